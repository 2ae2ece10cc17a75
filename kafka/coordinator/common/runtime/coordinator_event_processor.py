"""CoordinatorEventProcessor: what runs the runtime's events (Kafka's CoordinatorEventProcessor).

MultiThreadedEventProcessor is the broker's (group.coordinator.threads threads over one EventAccumulator);
DirectEventProcessor and ManualEventProcessor run events on the caller's thread, for tests and the seeded
simulation. Both enqueue methods raise RejectedExecutionError once the processor is closed.
"""

from __future__ import annotations

from typing import Protocol

from kafka.coordinator.common.runtime.coordinator_event import CoordinatorEvent


class CoordinatorEventProcessor(Protocol):
    def enqueue_last(self, event: CoordinatorEvent) -> None: ...

    def enqueue_first(self, event: CoordinatorEvent) -> None:
        """Ahead of the key's other events: a high watermark update should not wait behind writes."""

    def close(self) -> None: ...
