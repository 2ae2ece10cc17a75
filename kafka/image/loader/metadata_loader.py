"""MetadataLoader: committed metadata records in, new MetadataImages out (Kafka's
image.loader.MetadataLoader).

Seed 004: a broker "passively" replays the metadata log. The raft client calls this listener with
each committed batch; the loader deserializes its records, replays them into a MetadataDelta on top
of the current image, and hands (delta, new image) to every publisher: the broker's
BrokerMetadataPublisher, which makes the broker match the image. Kafka's loader publishes from an
event queue of its own; this one publishes on the raft thread, in the order the log has, which is
simpler to step through (a breakpoint in a publisher shows the batch that caused it).

Catching up (Kafka's stillNeedToCatchUp): a node that starts replays the metadata log from its
beginning (or its snapshot), and the log's history says, batch by batch, things long untrue -- "you
lead __consumer_offsets-43 at epoch 0". Published one batch at a time, that history would make the
node act on it for a moment (load a shard, become a transaction coordinator) before the later batches
took it back. So until the loader has reached the high watermark the quorum gave this process, it
only accumulates: every batch (and a snapshot) goes into one delta, published once, when caught up.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from kafka.image.metadata_delta import MetadataDelta
from kafka.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafka.image.metadata_provenance import MetadataProvenance
from kafka.protocol.errors import ProtocolDecodeError
from kafka.protocol.metadata_records import deserialize

log = structlog.get_logger("kafka.image.loader.MetadataLoader")
# Until 2026-11-30 this broker wrote RegisterBrokerRecord, PartitionRecord and PartitionChangeRecord in a
# layout of its own; since then Kafka's, byte for byte (docs/kraft.md). Its old logs do not read.
OLD_LAYOUT_HINT = ("a metadata log written by this broker before 2026-11-30 does not read any more: stop the "
                   "node(s), delete the log directories (data/ for make run, data/cluster/ for make cluster) "
                   "and start again")


@dataclass(frozen=True)
class LogDeltaManifest:
    """What a published delta came from (Kafka's LogDeltaManifest)."""
    provenance: MetadataProvenance
    num_batches: int
    num_bytes: int


class MetadataLoader:
    def __init__(self, node_id: int, time, high_watermark: Callable[[], int | None]) -> None:
        """`high_watermark`: the quorum's high watermark as this process has learned it, None before
        (called on the raft thread, from handle_commit)."""
        self.node_id = node_id
        self.time = time
        self.high_watermark = high_watermark
        self.image: MetadataImage = EMPTY_IMAGE
        self.last_applied_offset = -1
        self.leader = None
        self._publishers: list = []
        self._lock = threading.Lock()
        self._catching_up = True
        # while catching up: the delta of every batch read so far, and how much went into it
        self._pending: MetadataDelta | None = None
        self._pending_provenance: MetadataProvenance | None = None
        self._pending_batches = 0
        self._pending_bytes = 0

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

    def remove_and_close_publisher(self, publisher) -> None:
        """Kafka's removeAndClosePublisher: once this returns, the publisher gets no more images (a
        stopping broker removes its own before it stops what they feed)."""
        with self._lock:  # held by every publish: none is half-way through the publisher
            if publisher in self._publishers:
                self._publishers.remove(publisher)
                publisher.close()

    # ------------------------------------------------------------------ the raft listener
    def handle_commit(self, batch) -> None:
        with self._lock:
            delta = self._pending if self._pending is not None else MetadataDelta(self.image)
            for value in batch.records:
                try:
                    delta.replay(deserialize(value))
                except ProtocolDecodeError as e:  # not Kafka's layout: likely written by an older us
                    log.error("cannot read a metadata record", offset=batch.base_offset, error=str(e),
                              hint=OLD_LAYOUT_HINT)
                except Exception as e:  # a record we cannot replay must not stop the broker's metadata
                    log.error("cannot replay a metadata record", offset=batch.base_offset, error=repr(e))
            provenance = MetadataProvenance(batch.last_offset, batch.epoch, batch.append_timestamp)
            self._maybe_publish(delta, provenance, 1, batch.size_in_bytes)

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
            provenance = MetadataProvenance(snapshot.offset - 1, snapshot.epoch,
                                            reader.last_contained_log_timestamp)
            self._pending, self._pending_provenance = None, None  # what came before is replaced
            self._pending_batches, self._pending_bytes = 0, 0
            self._maybe_publish(delta, provenance, 0, size)

    def handle_control_batch(self, last_offset: int) -> None:
        """A control batch (a LeaderChangeMessage) holds no metadata but moves the loader along the log:
        the last batches below the high watermark are often one, and catching up must count them."""
        with self._lock:
            just_caught_up = self._catching_up and not self._still_need_to_catch_up(last_offset)
            if just_caught_up and self._pending is not None:
                self._maybe_publish(self._pending, self._pending_provenance, 0, 0)

    def _maybe_publish(self, delta: MetadataDelta, provenance: MetadataProvenance, batches: int,
                       size: int) -> None:
        batches, size = self._pending_batches + batches, self._pending_bytes + size
        if self._still_need_to_catch_up(provenance.last_contained_offset):
            self._pending, self._pending_provenance = delta, provenance
            self._pending_batches, self._pending_bytes = batches, size
            return
        self._pending, self._pending_provenance, self._pending_batches, self._pending_bytes = None, None, 0, 0
        self._publish(delta, provenance, LogDeltaManifest(provenance, batches, size))

    def _still_need_to_catch_up(self, offset: int) -> bool:
        """Kafka's stillNeedToCatchUp: True until this loader has read up to the high watermark the
        quorum gave this process; once caught up, every later batch is published as it comes."""
        if not self._catching_up:
            return False
        high_watermark = self.high_watermark()
        if high_watermark is None or offset + 1 < high_watermark:
            return True
        self._catching_up = False
        log.info("the metadata loader caught up with the high watermark", offset=offset,
                 high_watermark=high_watermark)
        return False

    def _publish(self, delta: MetadataDelta, provenance: MetadataProvenance,
                 manifest: LogDeltaManifest) -> None:
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
