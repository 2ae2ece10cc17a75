"""MetadataLoader: committed metadata records in, new MetadataImages out (Kafka's image.loader.MetadataLoader).

Seed 004: a broker "passively" replays the metadata log. The raft client calls this listener with
each committed batch; the loader deserializes its records, replays them into a MetadataDelta on top
of the current image, and hands (delta, new image) to every publisher: the broker's
BrokerMetadataPublisher, which makes the broker match the image. Kafka's loader publishes from an
event queue of its own; this one publishes on the raft thread, in the order the log has, which is
simpler to step through (a breakpoint in a publisher shows the batch that caused it).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import structlog

from kafka.image.metadata_delta import MetadataDelta
from kafka.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafka.image.metadata_provenance import MetadataProvenance
from kafka.protocol.metadata_records import deserialize

log = structlog.get_logger("kafka.image.loader.MetadataLoader")


@dataclass(frozen=True)
class LogDeltaManifest:
    """What a published delta came from (Kafka's LogDeltaManifest)."""
    provenance: MetadataProvenance
    num_batches: int
    num_bytes: int


class MetadataLoader:
    def __init__(self, node_id: int, time) -> None:
        self.node_id = node_id
        self.time = time
        self.image: MetadataImage = EMPTY_IMAGE
        self.last_applied_offset = -1
        self.leader = None
        self._publishers: list = []
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ publishers
    def install_publishers(self, publishers: list) -> None:
        """A new publisher first gets the whole current image, as one delta from nothing."""
        with self._lock:
            for publisher in publishers:
                self._publishers.append(publisher)
                if not self.image.is_empty() or self.last_applied_offset >= 0:
                    delta = MetadataDelta(EMPTY_IMAGE)
                    for record in self.image.write():
                        delta.replay(record)
                    manifest = LogDeltaManifest(self.image.provenance, 0, 0)
                    publisher.on_metadata_update(delta, self.image, manifest)

    # ------------------------------------------------------------------ the raft listener
    def handle_commit(self, batch) -> None:
        with self._lock:
            delta = MetadataDelta(self.image)
            for value in batch.records:
                try:
                    delta.replay(deserialize(value))
                except Exception as e:  # a record we cannot read must not stop the broker's metadata
                    log.error("cannot replay a metadata record", offset=batch.base_offset, error=repr(e))
            provenance = MetadataProvenance(batch.last_offset, batch.epoch, batch.append_timestamp)
            self._publish(delta, provenance, LogDeltaManifest(provenance, 1, batch.size_in_bytes))

    def handle_load_snapshot(self, reader) -> None:
        """A snapshot replaces everything: replay it onto an empty image."""
        with self._lock:
            delta = MetadataDelta(EMPTY_IMAGE)
            size = 0
            for batch in reader:
                size += batch.size_in_bytes
                for value in batch.records:
                    delta.replay(deserialize(value))
            snapshot = reader.snapshot_id
            provenance = MetadataProvenance(snapshot.offset - 1, snapshot.epoch, reader.last_contained_log_timestamp)
            self._publish(delta, provenance, LogDeltaManifest(provenance, 0, size))

    def _publish(self, delta: MetadataDelta, provenance: MetadataProvenance, manifest: LogDeltaManifest) -> None:
        self.image = delta.apply(provenance)
        self.last_applied_offset = provenance.last_contained_offset
        for publisher in self._publishers:
            try:
                publisher.on_metadata_update(delta, self.image, manifest)
            except Exception:  # one publisher's bug must not keep the others from the new image
                log.exception("metadata publisher failed", publisher=publisher.name(),
                              offset=provenance.last_contained_offset)

    def handle_leader_change(self, leader) -> None:
        self.leader = leader

    def begin_shutdown(self) -> None:
        pass

    def close(self) -> None:
        with self._lock:
            for publisher in self._publishers:
                publisher.close()
            self._publishers = []
