"""OperationTimeout: the timer task that fails a write still waiting to commit after its timeout (Kafka's
CoordinatorRuntime.OperationTimeout). It fires on the timer's thread and hands the failure to an event of
the write's partition, so the write's future is completed on the event thread like every other answer.
"""

from __future__ import annotations

from kafka.coordinator.common.runtime.coordinator_error import CoordinatorError
from kafka.coordinator.common.runtime.deferred_event_queue import DeferredEvent
from kafka.protocol.errors import Errors
from kafka.utils.timer.timer_task import TimerTask
from kafka.utils.topic_partition import TopicPartition


class OperationTimeout(TimerTask):
    def __init__(self, runtime, tp: TopicPartition, event: DeferredEvent, delay_ms: int) -> None:
        super().__init__(delay_ms)
        self.runtime = runtime
        self.tp = tp
        self.event = event

    def run(self) -> None:
        error = CoordinatorError(Errors.REQUEST_TIMED_OUT,
                                 f"{self.event!r} timed out after {self.delay_ms} ms")
        try:
            self.runtime.schedule_internal_operation(f"OperationTimeout(name={self.event!r}, tp={self.tp})",
                                                     self.tp,
                                                     lambda: self.event.complete(error))
        except CoordinatorError:
            self.event.complete(error)  # the runtime is closed: no event thread will ever answer it
