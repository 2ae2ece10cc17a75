"""PeriodicTaskControlManager: the active controller's timers
(Kafka's org.apache.kafka.controller.PeriodicTaskControlManager).

Some of the controller's decisions are asked for by no request; they come due:

    fence-stale-brokers     fence a broker silent for broker.session.timeout.ms, and move its
                            leaderships (checked every quarter of a session)
    write-no-op-record      a NoOpRecord every metadata.max.idle.interval.ms: brokers see the
                            metadata log move, and know they are caught up with it
    auto-leader-rebalance   preferred leader elections, every leader.imbalance.check.interval.seconds

Each is a PeriodicTask: a name, a period, and an operation that decides like any other, returning a
ControllerResult: records to write, and as its response whether work is left (then the task runs
again at once instead of after its period: a fence per run, the others wait their turn between).
The manager keeps each task scheduled as a deferred event of the controller's queue, under the
task's name, only while the controller is active: activate() when it claims leadership,
deactivate() when it renounces. It writes nothing itself: the controller hands it
`schedule_deferred`, which runs an operation as a write event, and `cancel_deferred`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kafka.controller.controller_result import ControllerResult
from kafka.utils.time import Time

Operation = Callable[[], ControllerResult]


@dataclass(frozen=True)
class PeriodicTask:
    name: str
    op: Operation  # its ControllerResult's response: True when there is more to do at once
    period_ms: int


class PeriodicTaskControlManager:
    def __init__(self, time: Time, schedule_deferred: Callable[[str, int, Operation], None],
                 cancel_deferred: Callable[[str], None]) -> None:
        self.time = time
        self._schedule_deferred = schedule_deferred
        self._cancel_deferred = cancel_deferred
        self.tasks: dict[str, PeriodicTask] = {}
        self.active = False

    def register_task(self, task: PeriodicTask) -> None:
        self.tasks[task.name] = task
        self._reschedule(task, immediate=False)

    def activate(self) -> None:
        """The controller became active: every task runs a period from now."""
        self.active = True
        for task in self.tasks.values():
            self._reschedule(task, immediate=False)

    def deactivate(self) -> None:
        """The controller renounced: no task runs until it is active again."""
        self.active = False
        for name in self.tasks:
            self._cancel_deferred(name)

    def _reschedule(self, task: PeriodicTask, immediate: bool) -> None:
        if not self.active or task.name not in self.tasks:
            self._cancel_deferred(task.name)
            return
        # The queue runs waiting events before due deferred ones, so "at once" needs no delay to be fair.
        delay = 0 if immediate else task.period_ms
        self._schedule_deferred(task.name, self.time.milliseconds() + delay, lambda: self._run(task))

    def _run(self, task: PeriodicTask) -> ControllerResult:
        result = task.op()  # a fault goes up to the controller's event handling, and nothing is rescheduled
        self._reschedule(task, immediate=bool(result.response))
        return ControllerResult(result.records, None)
