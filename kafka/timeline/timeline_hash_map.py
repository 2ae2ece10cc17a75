"""TimelineHashMap: a dict that can also be read as it was at any snapshot's epoch (Kafka's
org.apache.kafka.timeline.TimelineHashMap).

Through the mapping protocol it is the latest state, a dict in all but name: the coordinator's write
path changes it, and a failed write is reverted by the registry. `get_at` and the other `_at` reads
see a snapshot's epoch, which is how a read sees only committed state while writes run ahead.
Values are taken as immutable: a caller that changes a value in place must put it again, or the
snapshots would share the change.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from typing import Any, Generic, TypeVar

from kafka.timeline.snapshot_registry import SnapshotRegistry
from kafka.timeline.snapshottable_hash_table import ABSENT, SnapshottableHashTable

K = TypeVar("K")
V = TypeVar("V")


class TimelineHashMap(SnapshottableHashTable, MutableMapping[K, V], Generic[K, V]):
    def __init__(self, registry: SnapshotRegistry, expected_size: int = 0) -> None:
        # Kafka sizes its table up front; a dict grows by itself, so the hint is accepted and unused.
        super().__init__(registry)

    def __getitem__(self, key: K) -> V:
        return self._latest[key]

    def __setitem__(self, key: K, value: V) -> None:
        self.snapshottable_put(key, value)

    def __delitem__(self, key: K) -> None:
        if not self.snapshottable_remove(key):
            raise KeyError(key)

    def __iter__(self) -> Iterator[K]:
        # The dict's own iterator, so a change of size while iterating raises RuntimeError as a dict's does.
        return iter(self._latest)

    def __len__(self) -> int:
        return len(self._latest)

    def __contains__(self, key: object) -> bool:
        return key in self._latest

    def get_at(self, key: K, epoch: int, default: Any = None) -> V | Any:
        value = self.snapshottable_get(key, epoch)
        return default if value is ABSENT else value

    def contains_at(self, key: K, epoch: int) -> bool:
        return self.snapshottable_get(key, epoch) is not ABSENT

    def size_at(self, epoch: int) -> int:
        return self.snapshottable_size(epoch)

    def keys_at(self, epoch: int) -> list[K]:
        return list(self.snapshottable_items(epoch))

    def values_at(self, epoch: int) -> list[V]:
        return list(self.snapshottable_items(epoch).values())

    def items_at(self, epoch: int) -> list[tuple[K, V]]:
        return list(self.snapshottable_items(epoch).items())

    def __repr__(self) -> str:
        return f"TimelineHashMap({self._latest!r})"
