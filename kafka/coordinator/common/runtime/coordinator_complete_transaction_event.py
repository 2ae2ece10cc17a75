"""CoordinatorCompleteTransactionEvent: writing a transaction's end marker to a shard's partition (Kafka's
CoordinatorRuntime.CoordinatorCompleteTransactionEvent): the shard replays the COMMIT or ABORT (the
transaction's offsets become visible, or are dropped), the marker is appended, and the future is answered
when it commits, as a write's is.
"""

from __future__ import annotations

from concurrent.futures import Future

from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.coordinator.common.runtime.coordinator_write_event import NOT_QUEUED, complete_future
from kafka.coordinator.common.runtime.operation_timeout import OperationTimeout
from kafka.utils.topic_partition import TopicPartition


class CoordinatorCompleteTransactionEvent:
    def __init__(self, runtime, name: str, tp: TopicPartition, producer_id: int,
                 producer_epoch: int, coordinator_epoch: int, result: TransactionResult, write_timeout_ms: int) -> None:
        self.runtime = runtime
        self.name = name
        self.tp = tp
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.coordinator_epoch = coordinator_epoch
        self.result = result
        self.write_timeout_ms = write_timeout_ms
        self.future: Future = Future()
        self._created_time_ms = runtime.time.milliseconds()
        self._deferred_queued_ms = NOT_QUEUED
        self._operation_timeout: OperationTimeout | None = None

    def key(self) -> TopicPartition:
        return self.tp

    def run(self) -> None:
        try:
            context = self.runtime.active_context_or_raise(self.tp)
            context.complete_transaction(self.producer_id, self.producer_epoch, self.coordinator_epoch,
                                         self.result, self)
            if not self.future.done():
                self._deferred_queued_ms = self.runtime.time.milliseconds()
                self._operation_timeout = OperationTimeout(self.runtime, self.tp, self, self.write_timeout_ms)
                self.runtime.timer.add(self._operation_timeout)
        except Exception as e:
            self.complete(e)

    def complete(self, exception: BaseException | None) -> None:
        if not complete_future(self.future, None, exception):
            return
        if self._operation_timeout is not None:
            self._operation_timeout.cancel()
            self._operation_timeout = None
        if self._deferred_queued_ms != NOT_QUEUED:
            self.runtime.metrics.record_event_purgatory_time(self.runtime.time.milliseconds() - self._deferred_queued_ms)

    def created_time_ms(self) -> int:
        return self._created_time_ms

    def __repr__(self) -> str:
        return f"CoordinatorCompleteTransactionEvent(name={self.name})"
