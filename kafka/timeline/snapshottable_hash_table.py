"""SnapshottableHashTable: a hash table readable at any snapshot's epoch, the base of TimelineHashMap
and TimelineHashSet (Kafka's org.apache.kafka.timeline.SnapshottableHashTable).

The latest state is a plain dict. The first time a key changes after the newest snapshot was taken,
its old value (or "absent") is copied into that snapshot's HashTier; later changes to the key copy
nothing. A read at epoch E walks the snapshots from E on, oldest first: the first tier that saved the
key has its value at E (nothing changed it between E and that snapshot), and a key no tier saved has
not changed since E, so the latest dict answers.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable
from typing import Any

from kafka.timeline.delta import Delta
from kafka.timeline.revertable import Revertable
from kafka.timeline.snapshot_registry import SnapshotRegistry

# Read the latest state, not a snapshot's (Kafka's SnapshottableHashTable.LATEST_EPOCH, Long.MAX_VALUE).
LATEST_EPOCH = sys.maxsize

# What a tier saves for a key that was not in the table at its epoch: None is a value a map may hold.
ABSENT: Any = object()


class HashTier(Delta):
    """One table's values at one snapshot's epoch, for the keys changed since (Kafka's
    SnapshottableHashTable.HashTier)."""

    def __init__(self, size: int) -> None:
        # The table's size at the epoch: the first change after a snapshot finds the table as it was
        # then, so its size is saved once here and size_at needs no walk over the keys.
        self.size = size
        self.values: dict[Hashable, Any] = {}

    def merge_from(self, destination_epoch: int, source: Delta) -> None:
        assert isinstance(source, HashTier)
        # A key this tier lacks did not change between the two epochs: the later value is also this one's.
        for key, value in source.values.items():
            self.values.setdefault(key, value)


class SnapshottableHashTable(Revertable):
    def __init__(self, registry: SnapshotRegistry) -> None:
        self.registry = registry
        self._latest: dict[Hashable, Any] = {}
        registry.register(self)

    def _save_before_change(self, key: Hashable) -> None:
        """Copy-on-first-write: save the key's current value in the newest snapshot, once per snapshot."""
        snapshot = self.registry.latest_snapshot()
        if snapshot is None:
            return  # no snapshot can be read or reverted to: nothing to save
        tier = snapshot.get_delta(self)
        if tier is None:
            tier = HashTier(len(self._latest))
            snapshot.set_delta(self, tier)
        assert isinstance(tier, HashTier)
        if key not in tier.values:
            tier.values[key] = self._latest.get(key, ABSENT)

    def _tiers_from(self, epoch: int) -> list[HashTier]:
        """This table's tiers in the snapshots from `epoch` on, oldest first (none for LATEST_EPOCH)."""
        if epoch == LATEST_EPOCH:
            return []
        snapshots = self.registry.snapshots_from(epoch)
        return [tier for snapshot in snapshots if isinstance(tier := snapshot.get_delta(self), HashTier)]

    def snapshottable_get(self, key: Hashable, epoch: int) -> Any:
        """The key's value at `epoch`, or ABSENT."""
        for tier in self._tiers_from(epoch):
            if key in tier.values:
                return tier.values[key]
        return self._latest.get(key, ABSENT)

    def snapshottable_put(self, key: Hashable, value: Any) -> None:
        self._save_before_change(key)
        self._latest[key] = value

    def snapshottable_remove(self, key: Hashable) -> bool:
        """Remove the key from the latest state; False if it was not there."""
        if key not in self._latest:
            return False
        self._save_before_change(key)
        del self._latest[key]
        return True

    def snapshottable_size(self, epoch: int) -> int:
        tiers = self._tiers_from(epoch)
        return tiers[0].size if tiers else len(self._latest)

    def snapshottable_items(self, epoch: int) -> dict[Hashable, Any]:
        """The whole table at `epoch`, as a new dict: the latest state with the tiers laid over it
        newest first, so that for each key the oldest tier from `epoch` on has the last word."""
        items = dict(self._latest)
        for tier in reversed(self._tiers_from(epoch)):
            for key, value in tier.values.items():
                if value is ABSENT:
                    items.pop(key, None)
                else:
                    items[key] = value
        return items

    def execute_revert(self, target_epoch: int, delta: Delta) -> None:
        assert isinstance(delta, HashTier)
        for key, value in delta.values.items():
            if value is ABSENT:
                self._latest.pop(key, None)
            else:
                self._latest[key] = value

    def reset(self) -> None:
        self._latest.clear()
