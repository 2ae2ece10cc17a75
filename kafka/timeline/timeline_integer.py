"""TimelineInteger: a counter that can also be read as it was at any snapshot's epoch (Kafka's
org.apache.kafka.timeline.TimelineInteger).

A TimelineObject of int starting at 0, as Kafka's does, with the increment and decrement its callers
use for counts such as the number of members of a group.
"""

from __future__ import annotations

from kafka.timeline.snapshot_registry import SnapshotRegistry
from kafka.timeline.timeline_object import TimelineObject


class TimelineInteger(TimelineObject[int]):
    def __init__(self, registry: SnapshotRegistry) -> None:
        super().__init__(registry, 0)

    def increment(self) -> None:
        self.set(self.get() + 1)

    def decrement(self) -> None:
        self.set(self.get() - 1)
