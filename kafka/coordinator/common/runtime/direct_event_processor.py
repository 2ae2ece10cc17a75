"""DirectEventProcessor: runs each event at once on the caller's thread (Kafka's DirectEventProcessor,
from CoordinatorRuntimeTest), for unit tests: a scheduled write has run, and its future may be done, when
schedule_write_operation returns.

An event that enqueues another while it runs (an append that moves the high watermark, a timer firing
inside a write) does not run it nested inside itself: it waits until the running one has finished, as it
would on a real event thread. That keeps the one-event-of-a-partition-at-a-time rule even here.
"""

from __future__ import annotations

from collections import deque

from kafka.coordinator.common.runtime.coordinator_event import CoordinatorEvent
from kafka.coordinator.common.runtime.event_accumulator import RejectedExecutionError


class DirectEventProcessor:
    def __init__(self) -> None:
        self._pending: deque[CoordinatorEvent] = deque()
        self._running = False
        self._closed = False

    def enqueue_last(self, event: CoordinatorEvent) -> None:
        self._enqueue(event, first=False)

    def enqueue_first(self, event: CoordinatorEvent) -> None:
        self._enqueue(event, first=True)

    def _enqueue(self, event: CoordinatorEvent, first: bool) -> None:
        if self._closed:
            raise RejectedExecutionError("the event processor is closed")
        if first:
            self._pending.appendleft(event)
        else:
            self._pending.append(event)
        if self._running:
            return  # the loop below, further up this thread's stack, runs it next
        self._running = True
        try:
            while self._pending:
                event = self._pending.popleft()
                try:
                    event.run()
                except Exception as e:
                    event.complete(e)
        finally:
            self._running = False

    def close(self) -> None:
        self._closed = True
