"""SnapshottableCoordinator: a shard with its SnapshotRegistry and its two offsets (Kafka's
SnapshottableCoordinator, the CoordinatorPlayback the loader replays into).

    last written offset    the log end offset after the shard's last record: its latest state is the
                           log replayed up to here. A snapshot is taken at each one.
    last committed offset  the high watermark as the shard last heard it: reads see the state at this
                           snapshot, and every older snapshot is dropped, since nothing will go back
                           before it.

A failed append goes back to the snapshot at the last written offset before it (revert_last_written_offset):
that is how the state forgets records that never reached the log (the controller's rule, KIP-631).
"""

from __future__ import annotations

from typing import Generic, TypeVar

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.common.runtime.coordinator_shard import CoordinatorShard, TransactionResult
from kafka.timeline import SnapshotRegistry
from kafka.utils.topic_partition import TopicPartition

S = TypeVar("S", bound=CoordinatorShard)


class SnapshottableCoordinator(Generic[S]):
    def __init__(self, snapshot_registry: SnapshotRegistry, coordinator: S, tp: TopicPartition) -> None:
        self.snapshot_registry = snapshot_registry
        self.coordinator = coordinator
        self.tp = tp
        self.last_written_offset = 0
        self.last_committed_offset = 0
        # The empty state is the state at offset 0: a read before anything commits sees nothing.
        snapshot_registry.idempotent_create_snapshot(0)

    # ------------------------------------------------------------------ CoordinatorPlayback
    def replay(self, offset: int, producer_id: int, producer_epoch: int, record: CoordinatorRecord) -> None:
        self.coordinator.replay(offset, producer_id, producer_epoch, record)

    def replay_end_transaction_marker(self, producer_id: int, producer_epoch: int,
                                      result: TransactionResult) -> None:
        self.coordinator.replay_end_transaction_marker(producer_id, producer_epoch, result)

    def update_last_written_offset(self, offset: int) -> None:
        if offset <= self.last_written_offset:
            raise ValueError(f"{self.tp}: the new last written offset {offset} must be greater than "
                             f"{self.last_written_offset}")
        self.last_written_offset = offset
        self.snapshot_registry.idempotent_create_snapshot(offset)

    def update_last_committed_offset(self, offset: int) -> None:
        if offset < self.last_committed_offset:
            raise ValueError(f"{self.tp}: the new committed offset {offset} is below "
                             f"{self.last_committed_offset}")
        if offset > self.last_written_offset:
            raise ValueError(f"{self.tp}: the new committed offset {offset} is past the last written offset "
                             f"{self.last_written_offset}")
        self.last_committed_offset = offset
        self.snapshot_registry.delete_snapshots_up_to(offset)

    # ------------------------------------------------------------------ the runtime's
    def revert_last_written_offset(self, offset: int) -> None:
        """Back to the state at `offset` (a snapshot the last update_last_written_offset left)."""
        if offset > self.last_written_offset:
            raise ValueError(f"{self.tp}: cannot revert forward, to {offset} past {self.last_written_offset}")
        self.last_written_offset = offset
        self.snapshot_registry.revert_to_snapshot(offset)

    def on_loaded(self, image) -> None:
        self.coordinator.on_loaded(image)

    def on_new_metadata_image(self, image, delta) -> None:
        self.coordinator.on_new_metadata_image(image, delta)

    def on_unloaded(self) -> None:
        self.coordinator.on_unloaded()
