"""TimelineHashSet: a set that can also be read as it was at any snapshot's epoch (Kafka's
org.apache.kafka.timeline.TimelineHashSet).

The same table as TimelineHashMap with nothing stored against each element: the set protocol reads
and changes the latest state, the `_at` reads see a snapshot's epoch.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableSet
from typing import Generic, TypeVar

from kafka.timeline.snapshot_registry import SnapshotRegistry
from kafka.timeline.snapshottable_hash_table import ABSENT, SnapshottableHashTable

T = TypeVar("T")


class TimelineHashSet(SnapshottableHashTable, MutableSet[T], Generic[T]):
    def __init__(self, registry: SnapshotRegistry, expected_size: int = 0) -> None:
        # Kafka sizes its table up front; a dict grows by itself, so the hint is accepted and unused.
        super().__init__(registry)

    @classmethod
    def _from_iterable(cls, iterable: Iterable[T]) -> set[T]:
        # `a | b`, `a & b` and the like make a new set; it belongs to no registry, so a plain set.
        return set(iterable)

    def add(self, value: T) -> None:
        if value not in self._latest:  # adding what is there changes nothing, so saves nothing
            self.snapshottable_put(value, None)

    def discard(self, value: T) -> None:
        self.snapshottable_remove(value)

    def __contains__(self, value: object) -> bool:
        return value in self._latest

    def __iter__(self) -> Iterator[T]:
        return iter(self._latest)

    def __len__(self) -> int:
        return len(self._latest)

    def contains_at(self, value: T, epoch: int) -> bool:
        return self.snapshottable_get(value, epoch) is not ABSENT

    def size_at(self, epoch: int) -> int:
        return self.snapshottable_size(epoch)

    def items_at(self, epoch: int) -> list[T]:
        return list(self.snapshottable_items(epoch))

    def __repr__(self) -> str:
        return f"TimelineHashSet({set(self._latest)!r})"
