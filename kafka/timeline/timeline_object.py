"""TimelineObject: one value that can also be read as it was at any snapshot's epoch (Kafka's
org.apache.kafka.timeline.TimelineObject).

The first `set` after a snapshot saves the old value in that snapshot (an ObjectContainer); a read at
an epoch takes the value saved by the first snapshot from that epoch on, else the latest value.
The value is taken as immutable: change it by setting a new one.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from kafka.timeline.delta import Delta
from kafka.timeline.revertable import Revertable
from kafka.timeline.snapshot_registry import SnapshotRegistry
from kafka.timeline.snapshottable_hash_table import LATEST_EPOCH

T = TypeVar("T")


class ObjectContainer(Delta, Generic[T]):
    """The value at one snapshot's epoch (Kafka's TimelineObject.ObjectContainer)."""

    def __init__(self, value: T) -> None:
        self.value = value

    def merge_from(self, destination_epoch: int, source: Delta) -> None:
        pass  # this container is the older one: its value is the one true at its epoch


class TimelineObject(Revertable, Generic[T]):
    def __init__(self, registry: SnapshotRegistry, initial: T) -> None:
        self.registry = registry
        self._initial = initial  # what reset() goes back to
        self._value = initial
        registry.register(self)

    def get(self) -> T:
        return self._value

    def get_at(self, epoch: int) -> T:
        if epoch != LATEST_EPOCH:
            for snapshot in self.registry.snapshots_from(epoch):
                container = snapshot.get_delta(self)
                if isinstance(container, ObjectContainer):
                    return container.value
        return self._value

    def set(self, value: T) -> None:
        snapshot = self.registry.latest_snapshot()
        if snapshot is not None and snapshot.get_delta(self) is None:
            snapshot.set_delta(self, ObjectContainer(self._value))  # copy-on-first-write
        self._value = value

    def execute_revert(self, target_epoch: int, delta: Delta) -> None:
        assert isinstance(delta, ObjectContainer)
        self._value = delta.value

    def reset(self) -> None:
        self._value = self._initial

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._value!r})"
