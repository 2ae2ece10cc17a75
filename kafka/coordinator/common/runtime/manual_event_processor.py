"""ManualEventProcessor: queues events and runs one when told (Kafka's ManualEventProcessor, from
CoordinatorRuntimeTest), for tests that need to see what waits in the queue and for the seeded simulation,
which decides at each step whether an event runs or something else happens first.

Events go into an EventAccumulator whose key choice comes from the given random.Random, so a seed fixes
the order in which partitions' events run, and a partition's own events keep their order.
"""

from __future__ import annotations

import random

from kafka.coordinator.common.runtime.coordinator_event import CoordinatorEvent
from kafka.coordinator.common.runtime.event_accumulator import EventAccumulator, RejectedExecutionError


class ManualEventProcessor:
    def __init__(self, rng: random.Random | None = None) -> None:
        self._accumulator: EventAccumulator = EventAccumulator(rng if rng is not None else random.Random(0))

    def enqueue_last(self, event: CoordinatorEvent) -> None:
        self._accumulator.add_last(event)

    def enqueue_first(self, event: CoordinatorEvent) -> None:
        self._accumulator.add_first(event)

    def size(self) -> int:
        return self._accumulator.size()

    def poll(self) -> bool:
        """Run the next event; False if none was queued."""
        event = self._accumulator.poll()
        if event is None:
            return False
        try:
            event.run()
        except Exception as e:
            event.complete(e)
        finally:
            self._accumulator.done(event)
        return True

    def run_all(self) -> int:
        """Run events until none is left (the ones they enqueue too); returns how many ran."""
        count = 0
        while self.poll():
            count += 1
        return count

    def close(self) -> None:
        """Refuse new events and reject the queued ones, as the real processor does at shutdown."""
        self._accumulator.close()
        while (event := self._accumulator.poll()) is not None:
            event.complete(RejectedExecutionError("the event processor is closed"))
            self._accumulator.done(event)
