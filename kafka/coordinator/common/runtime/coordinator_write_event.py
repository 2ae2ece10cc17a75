"""CoordinatorWriteEvent: a write operation on a shard (Kafka's CoordinatorRuntime.CoordinatorWriteEvent),
a request's or an expired timer's.

run(), on the event thread: op(shard) -> a CoordinatorResult; its records are replayed and appended
(CoordinatorContext.append), and the event waits in the deferred queue until they commit, with a timer
that fails it with REQUEST_TIMED_OUT if they have not within the write timeout. complete() answers the
future (and the result's append_future) once: the first of commit, failure and timeout wins.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError

from kafka.coordinator.common.runtime.coordinator_error import CoordinatorError
from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.common.runtime.event_accumulator import RejectedExecutionError
from kafka.coordinator.common.runtime.operation_timeout import OperationTimeout
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import NO_PRODUCER_ID
from kafka.utils.topic_partition import TopicPartition

NOT_QUEUED = -1


def as_coordinator_error(exception: BaseException) -> BaseException:
    """An event the processor refused at shutdown fails as NOT_COORDINATOR, as Kafka's enqueue reports it."""
    if isinstance(exception, RejectedExecutionError):
        return CoordinatorError(Errors.NOT_COORDINATOR, str(exception))
    return exception


def complete_future(future: Future, result, exception: BaseException | None) -> bool:
    """Answer `future` unless it is answered already (a timeout before the commit, say) or its caller
    cancelled it. True if this call answered it."""
    try:
        if exception is None:
            future.set_result(result)
        else:
            future.set_exception(as_coordinator_error(exception))
    except InvalidStateError:
        return False
    return True


class CoordinatorWriteEvent:
    def __init__(self, runtime, name: str, tp: TopicPartition, write_timeout_ms: int,
                 op: Callable[[object], CoordinatorResult], transactional_id: str | None = None,
                 producer_id: int = NO_PRODUCER_ID, producer_epoch: int = -1) -> None:
        self.runtime = runtime
        self.name = name
        self.tp = tp
        self.write_timeout_ms = write_timeout_ms
        self.op = op
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.future: Future = Future()
        self.result: CoordinatorResult | None = None
        self._created_time_ms = runtime.time.milliseconds()
        self._deferred_queued_ms = NOT_QUEUED
        self._operation_timeout: OperationTimeout | None = None

    def key(self) -> TopicPartition:
        return self.tp

    def run(self) -> None:
        try:
            context = self.runtime.active_context_or_raise(self.tp)
            result = self.op(context.coordinator.coordinator)
            if not isinstance(result, CoordinatorResult):
                raise TypeError(f"write operation {self.name} returned {result!r}, not a CoordinatorResult")
            self.result = result
            context.append(self.producer_id, self.producer_epoch, list(result.records), result.replay_records,
                           self)
            self.await_commit()
        except Exception as e:
            self.complete(e)

    def await_commit(self) -> None:
        """Unless already answered, wait in the deferred queue for the commit, at most the write timeout."""
        if not self.future.done():
            self._deferred_queued_ms = self.runtime.time.milliseconds()
            self._operation_timeout = OperationTimeout(self.runtime, self.tp, self, self.write_timeout_ms)
            self.runtime.timer.add(self._operation_timeout)

    def complete(self, exception: BaseException | None) -> None:
        response = self.result.response if self.result is not None else None
        if not complete_future(self.future, response, exception):
            return
        append_future = self.result.append_future if self.result is not None else None
        if append_future is not None:
            complete_future(append_future, None, exception)
        if self._operation_timeout is not None:
            self._operation_timeout.cancel()
            self._operation_timeout = None
        if self._deferred_queued_ms != NOT_QUEUED:  # only a write that waited has a purgatory time
            now_ms = self.runtime.time.milliseconds()
            self.runtime.metrics.record_event_purgatory_time(now_ms - self._deferred_queued_ms)

    def created_time_ms(self) -> int:
        return self._created_time_ms

    def __repr__(self) -> str:
        return f"CoordinatorWriteEvent(name={self.name})"
