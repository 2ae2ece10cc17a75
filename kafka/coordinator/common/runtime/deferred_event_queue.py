"""DeferredEventQueue: events waiting for an offset to commit (Kafka's org.apache.kafka.deferred
DeferredEventQueue and DeferredEvent, shared with the controller).

A write's answer waits here, keyed by the offset after its records, until the high watermark reaches
that offset. Offsets only grow (each write appends after the last), so the queue is a list in offset
order and completing is popping from its front.
"""

from __future__ import annotations

from collections import deque
from typing import Protocol


class DeferredEvent(Protocol):
    def complete(self, exception: BaseException | None) -> None:
        """None: the offset committed. Otherwise why it never will (for this coordinator)."""


class DeferredEventQueue:
    def __init__(self) -> None:
        self._pending: deque[tuple[int, DeferredEvent]] = deque()

    def add(self, offset: int, event: DeferredEvent) -> None:
        if self._pending and offset < self._pending[-1][0]:
            raise ValueError(f"an event already waits for offset {self._pending[-1][0]}; "
                             f"one for the lower offset {offset} cannot follow it")
        self._pending.append((offset, event))

    def complete_up_to(self, offset: int) -> None:
        """Every event waiting for an offset <= `offset` succeeds, in the order they were added."""
        while self._pending and self._pending[0][0] <= offset:
            _, event = self._pending.popleft()
            event.complete(None)

    def fail_all(self, exception: BaseException) -> None:
        while self._pending:
            _, event = self._pending.popleft()
            event.complete(exception)

    def highest_pending_offset(self) -> int | None:
        return self._pending[-1][0] if self._pending else None

    def __len__(self) -> int:
        return len(self._pending)
