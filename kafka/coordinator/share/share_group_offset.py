"""ShareGroupOffset: what the share coordinator holds for one share partition (Kafka's
org.apache.kafka.coordinator.share.ShareGroupOffset).

The state a snapshot record carries, whole: the snapshot epoch (which snapshot the updates since apply
to), the state epoch (bumped when the group's offsets are reset: an older leader's writes are fenced),
the leader epoch of the last leader that read it, the share-partition start offset, KIP-1226's
delivery complete count, the in-flight batches, and when the state was created and last snapshotted.
An update record carries only part of it (no state epoch, no timestamps); the shard merges it over
the snapshot. Frozen: the shard's TimelineHashMap keeps old versions for its snapshots.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kafka.coordinator.share.persister_state_batch import PersisterStateBatch

NO_TIMESTAMP = 0
UNINITIALIZED_EPOCH = 0
UNINITIALIZED_DELIVERY_COMPLETE_COUNT = -1
UNINITIALIZED_START_OFFSET = -1
DEFAULT_EPOCH = 0


@dataclass(frozen=True)
class ShareGroupOffset:
    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    delivery_complete_count: int = UNINITIALIZED_DELIVERY_COMPLETE_COUNT
    state_batches: tuple[PersisterStateBatch, ...] = ()
    create_timestamp: int = NO_TIMESTAMP
    write_timestamp: int = NO_TIMESTAMP

    @classmethod
    def from_snapshot_value(cls, value) -> ShareGroupOffset:
        return cls(value.snapshot_epoch, value.state_epoch, value.leader_epoch, value.start_offset,
                   value.delivery_complete_count, tuple(value.state_batches), value.create_timestamp,
                   value.write_timestamp)

    @classmethod
    def from_update_value(cls, value) -> ShareGroupOffset:
        """An update alone (no snapshot before it): no state epoch, no timestamps."""
        return cls(value.snapshot_epoch, UNINITIALIZED_EPOCH, value.leader_epoch, value.start_offset,
                   value.delivery_complete_count, tuple(value.state_batches))

    @classmethod
    def from_initialize_request(cls, partition_data, snapshot_epoch: int, timestamp: int) -> ShareGroupOffset:
        """Kafka's fromRequest(InitializeShareGroupStateRequestData.PartitionData): a fresh state, no
        batches; nothing is complete yet, unless there is no start offset at all."""
        no_start = partition_data.start_offset == UNINITIALIZED_START_OFFSET
        return cls(snapshot_epoch, partition_data.state_epoch, DEFAULT_EPOCH, partition_data.start_offset,
                   UNINITIALIZED_DELIVERY_COMPLETE_COUNT if no_start else 0, (), timestamp, timestamp)

    def with_changes(self, **changes) -> ShareGroupOffset:
        """Kafka's builderSupplier(): a copy with some fields changed."""
        return replace(self, **changes)
