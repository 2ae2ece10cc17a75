"""RLMScheduledThreadPool: a few threads running the RemoteLogManager's per-partition tasks again and
again (Kafka's RemoteLogManager.RLMScheduledThreadPool, a ScheduledThreadPoolExecutor).

Each task runs every `remote.log.manager.task.interval.ms` after its previous run ended (Kafka's
scheduleWithFixedDelay), on whichever of the pool's threads is free: the copier pool has
`remote.log.manager.copier.thread.pool.size` of them, the expiration pool
`remote.log.manager.expiration.thread.pool.size`. A copy may block on remote storage for a long time; it
holds only its own thread. Due times are on the injected clock; with a MockTime no thread sleeps longer
than `tick_ms`, so a test advancing the mock sees the tasks run.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

from kafka.utils.time import Time

log = structlog.get_logger(__name__)


@dataclass(order=True)
class ScheduledRun:
    """A task's place in the pool: its next due time; `cancel` stops it for good."""

    due_ms: int
    sequence: int
    name: str = field(compare=False)
    function: Callable[[], None] = field(compare=False)
    delay_ms: int = field(compare=False)
    cancelled: bool = field(compare=False, default=False)

    def cancel(self) -> None:
        self.cancelled = True


class RLMScheduledThreadPool:
    def __init__(self, pool_size: int, thread_pool_name: str, thread_name_prefix: str, time: Time,
                 tick_ms: int = 50) -> None:
        self.thread_pool_name = thread_pool_name
        self.time = time
        self.tick_ms = tick_ms
        self._runs: list[ScheduledRun] = []
        self._sequence = itertools.count()
        self._condition = threading.Condition()
        self._running = True
        self._active = 0
        self._threads = [threading.Thread(target=self._work, name=f"{thread_name_prefix}{i}", daemon=True)
                         for i in range(pool_size)]
        for thread in self._threads:
            thread.start()

    @property
    def pool_size(self) -> int:
        return len(self._threads)

    def idle_percent(self) -> float:
        """Kafka's getIdlePercent: the share of the pool's threads not running a task now."""
        return 1.0 - self._active / len(self._threads)

    def schedule_with_fixed_delay(self, name: str, function: Callable[[], None], initial_delay_ms: int,
                                  delay_ms: int) -> ScheduledRun:
        due_ms = self.time.hi_res_clock_ms() + initial_delay_ms
        run = ScheduledRun(due_ms, next(self._sequence), name, function, delay_ms)
        with self._condition:
            heapq.heappush(self._runs, run)
            self._condition.notify()
        return run

    def close(self, timeout_s: float = 10) -> None:
        """Stop: runs not started are dropped; a run in progress finishes (a cancelled task returns soon)."""
        with self._condition:
            self._running = False
            self._runs.clear()
            self._condition.notify_all()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout_s)

    def _work(self) -> None:
        while True:
            run = self._next_due()
            if run is None:
                return
            try:
                run.function()
            except Exception:  # a task logs its own errors; this keeps the thread and the task's next run
                log.exception("remote log manager task failed", task=run.name, pool=self.thread_pool_name)
            with self._condition:
                self._active -= 1
                if self._running and not run.cancelled:
                    # a fixed delay: from this run's end
                    run.due_ms = self.time.hi_res_clock_ms() + run.delay_ms
                    run.sequence = next(self._sequence)
                    heapq.heappush(self._runs, run)
                    self._condition.notify()

    def _next_due(self) -> ScheduledRun | None:
        with self._condition:
            while self._running:
                while self._runs and self._runs[0].cancelled:
                    heapq.heappop(self._runs)
                now = self.time.hi_res_clock_ms()
                if self._runs and self._runs[0].due_ms <= now:
                    self._active += 1
                    return heapq.heappop(self._runs)
                wait_ms = self._runs[0].due_ms - now if self._runs else None
                if self.time.is_mock:
                    wait_ms = self.tick_ms if wait_ms is None else min(wait_ms, self.tick_ms)
                self._condition.wait(None if wait_ms is None else wait_ms / 1000)
            return None
