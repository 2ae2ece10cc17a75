"""DelayQueue: timer buckets ordered by expiration (the java.util.concurrent.DelayQueue that Kafka's
SystemTimer polls).

Seed 000 "Purgatories and Delayed Operations": the expiry reaper sleeps here. Only buckets are queued,
never individual tasks, so the heap stays small (at most wheel_size per wheel level) however many
requests are waiting.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time as _wall
from typing import TYPE_CHECKING

from kafka.utils.time import Time

if TYPE_CHECKING:
    from kafka.utils.timer.timer_task_list import TimerTaskList


class DelayQueue:
    """A min-heap of buckets keyed by expiration; poll() hands out a bucket once the clock reaches it.

    Two clocks are involved, on purpose. Whether a bucket has expired is decided by the injected
    `time.hi_res_clock_ms()`, so a MockTime decides expiry in tests. How long poll() blocks is real
    time (threading.Condition.wait can only wait in real time); with a MockTime a blocked poll simply
    re-checks the mock clock when its real wait ends, so tests call poll(0) after advancing the mock.
    """

    def __init__(self, time: Time) -> None:
        self._time = time
        self._cond = threading.Condition()
        # (expiration at offer time, tie-breaker, bucket). A queued bucket's expiration cannot change:
        # the wheel re-arms a bucket only after it was flushed, and it is flushed only after poll().
        self._heap: list[tuple[int, int, TimerTaskList]] = []
        self._seq = itertools.count()
        self._closed = False

    def offer(self, bucket: TimerTaskList) -> None:
        with self._cond:
            item = (bucket.get_expiration(), next(self._seq), bucket)
            heapq.heappush(self._heap, item)
            if self._heap[0] is item:
                # A new earliest bucket: a poller sleeping until a later expiry must re-plan its wait.
                self._cond.notify_all()

    def poll(self, timeout_ms: float = 0) -> TimerTaskList | None:
        """Remove and return the earliest bucket once it has expired; wait up to timeout_ms for that.

        Returns None when nothing expired within timeout_ms, or at once after close().
        """
        deadline = _wall.monotonic() + max(timeout_ms, 0) / 1000
        with self._cond:
            while True:
                wait_ms: float | None = None
                if self._heap:
                    delay_ms = self._heap[0][0] - self._time.hi_res_clock_ms()
                    if delay_ms <= 0:
                        return heapq.heappop(self._heap)[2]
                    wait_ms = delay_ms
                if self._closed:
                    return None
                remaining_ms = (deadline - _wall.monotonic()) * 1000
                if remaining_ms <= 0:
                    return None
                wait_ms = remaining_ms if wait_ms is None else min(wait_ms, remaining_ms)
                self._cond.wait(wait_ms / 1000)

    def close(self) -> None:
        """Wake every poller and make future polls return without waiting (shutdown)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def wakeup(self) -> None:
        """Make a blocked poll() re-check the clock now (e.g. after a test moved a MockTime)."""
        with self._cond:
            self._cond.notify_all()

    def __len__(self) -> int:
        with self._cond:
            return len(self._heap)
