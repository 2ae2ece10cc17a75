"""CoordinatorCompleteTransactionEvent: writing a transaction's end marker to a shard's partition (Kafka's
CoordinatorRuntime.CoordinatorCompleteTransactionEvent): the shard replays the COMMIT or ABORT (the
transaction's offsets become visible, or are dropped), the marker is appended, and the future is answered
when it commits, as a write's is.
"""

from __future__ import annotations

from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.coordinator.common.runtime.coordinator_write_event import CoordinatorWriteEvent
from kafka.utils.topic_partition import TopicPartition


class CoordinatorCompleteTransactionEvent(CoordinatorWriteEvent):
    """A write whose records are the marker: only run() differs (no operation of the shard decides it)."""

    def __init__(self, runtime, name: str, tp: TopicPartition, producer_id: int,
                 producer_epoch: int, coordinator_epoch: int, result: TransactionResult,
                 write_timeout_ms: int) -> None:
        super().__init__(runtime, name, tp, write_timeout_ms, op=None, producer_id=producer_id,
                         producer_epoch=producer_epoch)
        self.coordinator_epoch = coordinator_epoch
        self.transaction_result = result

    def run(self) -> None:
        try:
            context = self.runtime.active_context_or_raise(self.tp)
            context.complete_transaction(self.producer_id, self.producer_epoch, self.coordinator_epoch,
                                         self.transaction_result, self)
            self.await_commit()
        except Exception as e:
            self.complete(e)

    def __repr__(self) -> str:
        return f"CoordinatorCompleteTransactionEvent(name={self.name})"
