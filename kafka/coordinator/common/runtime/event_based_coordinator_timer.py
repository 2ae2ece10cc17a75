"""EventBasedCoordinatorTimer: the CoordinatorTimer the runtime gives each shard (Kafka's
CoordinatorRuntime.EventBasedCoordinatorTimer).

Each timer is a TimerTask in the runtime's timer (a SystemTimer). When it expires, on the timer's thread,
it only enqueues a write event of the shard's partition; the event runs the operation on the event
thread. The event first checks that this task is still the one scheduled under its key: a timer
cancelled or replaced after it expired, while its event waited in the queue, does nothing.

A timer whose write fails is scheduled again after retry_backoff_ms if it asked for retries, unless the
shard is gone (NOT_COORDINATOR) or loading: the new shard sets its own timers when it loads.
"""

from __future__ import annotations

import structlog

from kafka.coordinator.common.runtime.coordinator_error import CoordinatorError
from kafka.coordinator.common.runtime.coordinator_timer import TimeoutOperation
from kafka.coordinator.common.runtime.coordinator_write_event import CoordinatorWriteEvent
from kafka.protocol.errors import Errors
from kafka.utils.timer.timer_task import TimerTask
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.coordinator.common.runtime.EventBasedCoordinatorTimer")

DEFAULT_RETRY_BACKOFF_MS = 500


class TimerCancelledError(Exception):
    """The timer was cancelled or replaced before its event ran (Kafka's RejectedExecutionException here)."""


class _TimeoutTask(TimerTask):
    def __init__(self, timer: EventBasedCoordinatorTimer, key: str, delay_ms: int, retry: bool,
                 retry_backoff_ms: int, operation: TimeoutOperation) -> None:
        super().__init__(delay_ms)
        self.timer = timer
        self.key = key
        self.retry = retry
        self.retry_backoff_ms = retry_backoff_ms
        self.operation = operation

    def run(self) -> None:
        timer, runtime = self.timer, self.timer.runtime
        name = f"Timeout(tp={timer.tp}, key={self.key})"
        event = CoordinatorWriteEvent(runtime, name, timer.tp, runtime.default_write_timeout_ms,
                                      self._generate_records)
        event.future.add_done_callback(self._on_done)
        try:
            runtime.enqueue_last(event)
        except CoordinatorError:
            log.info("timer not run: the runtime is closed", name=name)

    def _generate_records(self, _shard):
        if self.timer.tasks.get(self.key) is not self:
            raise TimerCancelledError(f"timer {self.key} was cancelled or replaced")
        del self.timer.tasks[self.key]
        return self.operation()

    def _on_done(self, future) -> None:
        error = future.exception()
        if error is None or isinstance(error, TimerCancelledError):
            return
        if isinstance(error, CoordinatorError) and error.error in (Errors.NOT_COORDINATOR,
                                                                   Errors.COORDINATOR_LOAD_IN_PROGRESS):
            return  # the shard is gone or not yet back; its next incarnation sets its own timers
        if self.retry:
            log.info("timer write failed; trying again", key=self.key, error=repr(error))
            self.timer.schedule(self.key, self.retry_backoff_ms, True, self.operation, self.retry_backoff_ms)
        else:
            log.error("timer write failed", key=self.key, error=repr(error))


class EventBasedCoordinatorTimer:
    def __init__(self, runtime, tp: TopicPartition) -> None:
        self.runtime = runtime
        self.tp = tp
        self.tasks: dict[str, _TimeoutTask] = {}

    def schedule(self, key: str, delay_ms: int, retry: bool, operation: TimeoutOperation,
                 retry_backoff_ms: int = DEFAULT_RETRY_BACKOFF_MS) -> None:
        task = _TimeoutTask(self, key, delay_ms, retry, retry_backoff_ms, operation)
        previous = self.tasks.get(key)
        self.tasks[key] = task
        if previous is not None:
            previous.cancel()
        self.runtime.timer.add(task)

    def schedule_if_absent(self, key: str, delay_ms: int, retry: bool, operation: TimeoutOperation) -> None:
        if key not in self.tasks:
            self.schedule(key, delay_ms, retry, operation)

    def cancel(self, key: str) -> None:
        task = self.tasks.pop(key, None)
        if task is not None:
            task.cancel()

    def is_scheduled(self, key: str) -> bool:
        return key in self.tasks

    def cancel_all(self) -> None:
        tasks, self.tasks = self.tasks, {}
        for task in tasks.values():
            task.cancel()

    def size(self) -> int:
        return len(self.tasks)
