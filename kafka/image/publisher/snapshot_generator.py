"""SnapshotGenerator: writes a snapshot of the metadata image every so often (Kafka's
org.apache.kafka.image.publisher.SnapshotGenerator, KIP-630).

A publisher like any other: it sees every new image, counts the bytes of metadata log that went
into it, and when metadata.log.max.record.bytes.between.snapshots have accumulated (or
metadata.log.max.snapshot.interval.ms has passed with something new) it hands the image to its
emitter, which writes the image's records as a snapshot at the image's offset. After that, the log
before the snapshot can be deleted, and a restart loads the snapshot instead of replaying the log.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

log = structlog.get_logger("kafka.image.publisher.SnapshotGenerator")


class SnapshotGenerator:
    def __init__(self, emitter: Callable[[object], None], time, max_bytes_since_last_snapshot: int,
                 max_time_since_last_snapshot_ms: int) -> None:
        self.emitter = emitter
        self.time = time
        self.max_bytes = max_bytes_since_last_snapshot
        self.max_time_ms = max_time_since_last_snapshot_ms
        self.bytes_since_last_snapshot = 0
        self.last_snapshot_ms = time.milliseconds()

    def name(self) -> str:
        return "SnapshotGenerator"

    def on_metadata_update(self, delta, image, manifest=None) -> None:
        self.bytes_since_last_snapshot += getattr(manifest, "num_bytes", 0)
        if self.bytes_since_last_snapshot == 0:
            return
        now = self.time.milliseconds()
        due_by_time = self.max_time_ms > 0 and now - self.last_snapshot_ms >= self.max_time_ms
        if self.bytes_since_last_snapshot >= self.max_bytes or due_by_time:
            log.info("snapshot due", bytes_since_last_snapshot=self.bytes_since_last_snapshot,
                     offset=image.provenance.last_contained_offset)
            self.emitter(image)
            self.bytes_since_last_snapshot = 0
            self.last_snapshot_ms = now

    def close(self) -> None:
        pass
