"""CommitRecordMetadataAndOffset: a committed offset and where in ``__consumer_offsets`` it was
written (Kafka's kafka.coordinator.group.CommitRecordMetadataAndOffset).

Seed 000: the coordinators append through ReplicaManager, so every commit is a batch at some
offset of the group's partition. With transactions (KIP-98) commits no longer take effect in the
order they were written: a transactional commit written at offset 10 becomes visible only when
its COMMIT marker arrives, perhaps after a plain OffsetCommit written at offset 12. The log order
decides, as it would on a reload: the offset written later wins, whenever it becomes visible.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.coordinator.offset_and_metadata import OffsetAndMetadata


@dataclass(frozen=True)
class CommitRecordMetadataAndOffset:
    appended_batch_offset: int | None  # None while the append is in flight
    offset_and_metadata: OffsetAndMetadata

    def older_than(self, that: CommitRecordMetadataAndOffset) -> bool:
        """Written before ``that``? A commit whose position is unknown counts as the older one."""
        if that.appended_batch_offset is None:
            return False
        return self.appended_batch_offset is None or self.appended_batch_offset < that.appended_batch_offset
