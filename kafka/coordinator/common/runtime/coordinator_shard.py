"""CoordinatorShard: the state machine of one partition (Kafka's CoordinatorShard, CoordinatorShardBuilder
and TransactionResult).

A shard holds its state in timeline collections registered with the SnapshotRegistry it is built with,
and changes it only in replay(). Write operations read the latest (possibly uncommitted) state and return
records; read operations read the state as of the last committed offset (`get_at(key, offset)`), so a
reader never sees what a failed append is about to take back.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Protocol

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord


class TransactionResult(Enum):
    COMMIT = "COMMIT"
    ABORT = "ABORT"


class CoordinatorShard(Protocol):
    def on_loaded(self, image) -> None:
        """The partition is loaded and the shard active; `image` is the latest MetadataImage."""

    def on_new_metadata_image(self, image, delta) -> None: ...

    def on_unloaded(self) -> None: ...

    def replay(self, offset: int, producer_id: int, producer_epoch: int, record: CoordinatorRecord) -> None:
        """Apply one record. producer_id is -1 outside a transaction; a transactional record waits for
        its producer's end marker (replay_end_transaction_marker)."""

    def replay_end_transaction_marker(self, producer_id: int, producer_epoch: int,
                                      result: TransactionResult) -> None: ...


# builder(snapshot_registry=, time=, timer=, topic_partition=, log_context=) -> CoordinatorShard
# (Kafka's CoordinatorShardBuilder and its Supplier: the runtime calls it once per load).
CoordinatorShardBuilder = Callable[..., CoordinatorShard]
