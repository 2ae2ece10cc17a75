"""Time and MockTime: the injected clock (Kafka's org.apache.kafka.common.utils.Time / MockTime).

Everything that waits or expires (purgatory, timing wheel, retention, group timeouts) asks a Time
object for "now" instead of the system, so tests can move the clock by hand and never sleep.
"""

from __future__ import annotations

import threading
import time as _time


class Time:
    """The system clock."""

    # Nothing tells a thread blocked in real time that a MockTime moved, so code that blocks until
    # a deadline on the injected clock re-checks it every short while when this is True.
    is_mock = False

    def milliseconds(self) -> int:
        """Wall-clock milliseconds since the epoch (record timestamps, file times)."""
        return _time.time_ns() // 1_000_000

    def nanoseconds(self) -> int:
        """A monotonic nanosecond counter (durations, deadlines)."""
        return _time.monotonic_ns()

    def hi_res_clock_ms(self) -> int:
        """Monotonic milliseconds: what timers and deadlines are measured in."""
        return _time.monotonic_ns() // 1_000_000

    def sleep(self, ms: float) -> None:
        _time.sleep(ms / 1000)


SYSTEM = Time()


class MockTime(Time):
    """A clock that moves only when a test calls sleep() or advance()."""

    is_mock = True

    def __init__(self, start_ms: int = 1_700_000_000_000, start_hi_res_ms: int = 0) -> None:
        self._lock = threading.Lock()
        self._wall_ms = start_ms
        self._hi_res_ns = start_hi_res_ms * 1_000_000

    def milliseconds(self) -> int:
        with self._lock:
            return self._wall_ms

    def nanoseconds(self) -> int:
        with self._lock:
            return self._hi_res_ns

    def hi_res_clock_ms(self) -> int:
        with self._lock:
            return self._hi_res_ns // 1_000_000

    def sleep(self, ms: float) -> None:
        self.advance(ms)

    def advance(self, ms: float) -> None:
        with self._lock:
            self._wall_ms += int(ms)
            self._hi_res_ns += int(ms * 1_000_000)
