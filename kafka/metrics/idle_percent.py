"""AvgIdlePercent: how idle a pool of threads has been lately (Kafka's NetworkProcessorAvgIdlePercent
and RequestHandlerAvgIdlePercent).

Seed 002 has two pools: network threads that "only do work that's lightweight", and I/O threads
"limited" in number. Each thread adds up the nanoseconds it spends waiting (a Processor in select, a
KafkaRequestHandler for the request queue). This gauge turns those running totals into the fraction
of recent wall time the pool spent waiting: 1.0 is a pool with nothing to do, near 0 a saturated one.

Kafka reports the one-minute rate of a Yammer meter; here the window is the same minute, measured
between samples taken whenever the gauge is read, so any number of scrapers see the same value.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence

WINDOW_NS = 60 * 1_000_000_000
MIN_SAMPLE_SPACING_NS = 1_000_000_000


class AvgIdlePercent:
    def __init__(self, idle_times_ns: Callable[[], Sequence[int]],
                 clock_ns: Callable[[], int] = time.monotonic_ns, window_ns: int = WINDOW_NS) -> None:
        self.idle_times_ns = idle_times_ns  # each thread's total time spent waiting, in nanoseconds
        self.clock_ns = clock_ns
        self.window_ns = window_ns
        self._samples: deque[tuple[int, int]] = deque([(clock_ns(), sum(idle_times_ns()))])

    def value(self) -> float:
        """The fraction of the last window the pool's threads spent waiting: 1.0 idle, 0.0 saturated."""
        # BEGIN LAB 02 SOLUTION: sample (now, total idle ns), keep a baseline at or before the window start,
        # divide
        now = self.clock_ns()
        idle = self.idle_times_ns()
        total = sum(idle)
        if now - self._samples[-1][0] >= MIN_SAMPLE_SPACING_NS:
            self._samples.append((now, total))
        # Keep one sample at or before the window's start as the baseline.
        while len(self._samples) > 1 and self._samples[1][0] <= now - self.window_ns:
            self._samples.popleft()
        since, idle_then = self._samples[0]
        elapsed = (now - since) * max(len(idle), 1)
        if elapsed <= 0:
            return 1.0
        return min(1.0, max(0.0, (total - idle_then) / elapsed))
        # END LAB 02 SOLUTION
