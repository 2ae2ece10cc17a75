"""CoordinatorTimer: the timers a shard sets (Kafka's CoordinatorTimer), e.g. a session timeout.

A timer's operation runs as a write event of the shard's partition, on the event thread, so it reads
and writes the shard as any request does: no lock, and its records are written as any write's are.
Keys name timers: scheduling a key again replaces the timer, and a timer rescheduled or cancelled after
it expired but before its event ran does nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult

TimeoutOperation = Callable[[], CoordinatorResult]


class CoordinatorTimer(Protocol):
    def schedule(self, key: str, delay_ms: int, retry: bool, operation: TimeoutOperation,
                 retry_backoff_ms: int = 500) -> None:
        """Run `operation` in delay_ms. With retry, a failed write is tried again retry_backoff_ms later."""

    def schedule_if_absent(self, key: str, delay_ms: int, retry: bool,
                           operation: TimeoutOperation) -> None: ...

    def cancel(self, key: str) -> None: ...

    def is_scheduled(self, key: str) -> bool: ...
