"""CoordinatorLoader and CoordinatorPlayback: rebuilding a shard from its partition (Kafka's
CoordinatorLoader, its LoadSummary, and CoordinatorPlayback).

When this broker becomes leader of a coordinator partition, the runtime builds an empty shard and asks the
loader to replay the partition's records into it; the shard goes ACTIVE when the load's future completes.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from typing import Protocol

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.utils.topic_partition import TopicPartition


@dataclass(frozen=True)
class LoadSummary:
    start_time_ms: int
    end_time_ms: int
    scheduler_queue_time_ms: int
    num_records: int
    num_bytes: int


class CoordinatorPlayback(Protocol):
    def replay(self, offset: int, producer_id: int, producer_epoch: int,
               record: CoordinatorRecord) -> None: ...

    def replay_end_transaction_marker(self, producer_id: int, producer_epoch: int,
                                      result: TransactionResult) -> None: ...

    def update_last_written_offset(self, offset: int) -> None: ...

    def update_last_committed_offset(self, offset: int) -> None: ...


class CoordinatorLoader(Protocol):
    def load(self, tp: TopicPartition, coordinator: CoordinatorPlayback) -> Future[LoadSummary]:
        """Replay tp from its log start to its log end into `coordinator`, off the event threads."""

    def close(self) -> None: ...
