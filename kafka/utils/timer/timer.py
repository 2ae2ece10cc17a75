"""Timer: what a purgatory needs from its expiry clock (Kafka's org.apache.kafka.server.util.timer.Timer).

Seed 000 "Purgatories and Delayed Operations": the purgatory's expiry reaper drives a Timer; tests may
hand the purgatory any other implementation.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from kafka.utils.timer.timer_task import TimerTask


class Timer(ABC):
    @abstractmethod
    def add(self, timer_task: TimerTask) -> None:
        """Schedule the task to run after its delay_ms (at once if that has already passed)."""

    @abstractmethod
    def advance_clock(self, timeout_ms: float) -> bool:
        """Run what has expired, waiting up to timeout_ms for something to expire; True if anything did."""

    @abstractmethod
    def size(self) -> int:
        """Number of tasks waiting to expire."""

    @abstractmethod
    def shutdown(self) -> None:
        """Wake any waiter in advance_clock and stop waiting from now on (Kafka's close())."""
