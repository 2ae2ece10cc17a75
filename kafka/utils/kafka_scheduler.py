"""KafkaScheduler: run named background tasks once or periodically (Kafka's server.util.KafkaScheduler).

The log's housekeeping runs here: "kafka-log-retention" deletes old segments, "kafka-log-flusher"
honours flush.ms, "kafka-recovery-point-checkpoint" and friends write the checkpoint files, and a
deleted segment's files are removed "file.delete.delay.ms" after the log let go of them.

Kafka uses a ScheduledThreadPoolExecutor. Here one thread keeps a heap of due times measured on the
injected clock (`Time.hi_res_clock_ms`) and sleeps until the first is due, so an idle broker's
scheduler wakes only when there is work. With a MockTime it never sleeps longer than `tick_ms` of
real time, so a test that advances the mock sees its tasks run within a tick, without sleeping itself.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

from kafka.utils.time import Time

log = structlog.get_logger("kafka.utils.KafkaScheduler")


@dataclass(order=True)
class ScheduledTask:
    """One entry of the heap: due time first, then a sequence number so equal times keep order."""

    due_ms: int
    sequence: int
    name: str = field(compare=False)
    function: Callable[[], None] = field(compare=False)
    period_ms: int = field(compare=False, default=-1)
    cancelled: bool = field(compare=False, default=False)

    def cancel(self) -> None:
        self.cancelled = True


class KafkaScheduler:
    """A single-threaded scheduler on an injected clock."""

    def __init__(self, time: Time, thread_name: str = "kafka-scheduler-0", tick_ms: int = 100) -> None:
        self.time = time
        self.thread_name = thread_name
        self.tick_ms = tick_ms
        self._tasks: list[ScheduledTask] = []
        self._sequence = itertools.count()
        self._condition = threading.Condition()
        self._thread: threading.Thread | None = None
        self._running = False

    def startup(self) -> None:
        with self._condition:
            if self._running:
                raise RuntimeError("the scheduler is already started")
            self._running = True
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self._thread.start()

    def shutdown(self) -> None:
        """Stop; tasks not yet due are dropped (a task that is running finishes first)."""
        with self._condition:
            self._running = False
            self._tasks.clear()
            self._condition.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    @property
    def is_started(self) -> bool:
        return self._running

    def schedule(self, name: str, function: Callable[[], None], delay_ms: int = 0,
                 period_ms: int = -1) -> ScheduledTask:
        """Run `function` after `delay_ms`, then every `period_ms` if that is positive."""
        task = ScheduledTask(self.time.hi_res_clock_ms() + max(0, delay_ms), next(self._sequence), name,
                             function, period_ms)
        with self._condition:
            heapq.heappush(self._tasks, task)
            self._condition.notify_all()
        return task

    def schedule_once(self, name: str, function: Callable[[], None], delay_ms: int = 0) -> ScheduledTask:
        return self.schedule(name, function, delay_ms)

    def wakeup(self) -> None:
        """Look at the clock now (a test that advanced a MockTime need not wait for the tick)."""
        with self._condition:
            self._condition.notify_all()

    def _run(self) -> None:
        while True:
            task = self._next_due_task()
            if task is None:
                return
            try:
                task.function()
            except Exception:  # one failing run must not stop every other task, nor its own next run
                log.exception("scheduled task failed", task=task.name)
            if task.period_ms > 0 and not task.cancelled:
                with self._condition:
                    if self._running:
                        # Fixed rate, like Kafka's scheduleAtFixedRate: the next run is due one
                        # period after this one was due, however long this one took to start.
                        task.due_ms += task.period_ms
                        task.sequence = next(self._sequence)
                        heapq.heappush(self._tasks, task)

    def _next_due_task(self) -> ScheduledTask | None:
        with self._condition:
            while self._running:
                while self._tasks and self._tasks[0].cancelled:
                    heapq.heappop(self._tasks)
                now = self.time.hi_res_clock_ms()
                if self._tasks and self._tasks[0].due_ms <= now:
                    return heapq.heappop(self._tasks)
                wait_ms = self._tasks[0].due_ms - now if self._tasks else None  # None: until schedule()
                if self.time.is_mock:
                    wait_ms = self.tick_ms if wait_ms is None else min(wait_ms, self.tick_ms)
                self._condition.wait(None if wait_ms is None else wait_ms / 1000)
            return None
