"""SnapshotRegistry: the snapshots of a coordinator's in-memory state, by epoch (Kafka's
org.apache.kafka.timeline.SnapshotRegistry).

The epoch is an offset in the coordinator's log. The coordinator takes a snapshot at the last written
offset before each write, reverts to it when the append fails, reads at the last committed offset,
and deletes the snapshots below the committed offset once the high watermark passes them. Memory
therefore holds only the changes not yet committed.
"""

from __future__ import annotations

import itertools
import weakref
from bisect import bisect_left

from kafka.timeline.revertable import Revertable
from kafka.timeline.snapshot import Snapshot


class NoSuchSnapshotError(KeyError, ValueError):
    """No snapshot at that epoch. Both a KeyError (a lookup by epoch that missed) and a ValueError
    (an epoch the caller may not use), so code written either way catches it."""


def _epoch(snapshot: Snapshot) -> int:
    return snapshot.epoch


class SnapshotRegistry:
    def __init__(self, log_context: str = "") -> None:
        self.log_context = log_context
        # Oldest first, epochs strictly increasing: snapshots are only ever created at or after the
        # newest, so appending keeps the order and bisect finds an epoch.
        self._snapshots: list[Snapshot] = []
        # Weak, unlike Kafka's list: a group's timeline maps die with the group, and a registry that
        # held them would grow for as long as the coordinator runs. A dead object needs no reset.
        self._revertables: weakref.WeakValueDictionary[int, Revertable] = weakref.WeakValueDictionary()
        self._registrations = itertools.count()

    def _index(self, epoch: int) -> int | None:
        i = bisect_left(self._snapshots, epoch, key=_epoch)
        return i if i < len(self._snapshots) and self._snapshots[i].epoch == epoch else None

    def _index_or_raise(self, epoch: int) -> int:
        i = self._index(epoch)
        if i is None:
            raise NoSuchSnapshotError(f"{self.log_context}no in-memory snapshot for epoch {epoch}; "
                                      f"snapshot epochs are {self.epochs_list()}")
        return i

    def get_snapshot(self, epoch: int) -> Snapshot:
        return self._snapshots[self._index_or_raise(epoch)]

    def get_or_create_snapshot(self, epoch: int) -> Snapshot:
        latest = self.latest_snapshot()
        if latest is not None:
            if epoch < latest.epoch:
                # An older epoch would have to know changes already made after it: impossible.
                raise ValueError(f"{self.log_context}can't create an in-memory snapshot at epoch {epoch} "
                                 f"because there is already one at epoch {latest.epoch}")
            if epoch == latest.epoch:
                return latest
        snapshot = Snapshot(epoch)
        self._snapshots.append(snapshot)
        return snapshot

    def idempotent_create_snapshot(self, epoch: int) -> None:
        self.get_or_create_snapshot(epoch)

    def has_snapshot(self, epoch: int) -> bool:
        return self._index(epoch) is not None

    def epochs_list(self) -> list[int]:
        return [snapshot.epoch for snapshot in self._snapshots]

    def latest_epoch(self) -> int:
        return self._snapshots[-1].epoch if self._snapshots else -1

    def latest_snapshot(self) -> Snapshot | None:
        """The snapshot a change copies its old value into (Kafka's reverseIterator().next())."""
        return self._snapshots[-1] if self._snapshots else None

    def snapshots_from(self, epoch: int) -> list[Snapshot]:
        """The snapshot at `epoch` and every later one, oldest first (Kafka's iterator(snapshot)): a
        read at `epoch` takes a key's value from the first of them that saved it, else from the latest."""
        return self._snapshots[self._index_or_raise(epoch):]

    def revert_to_snapshot(self, epoch: int) -> None:
        i = self._index_or_raise(epoch)
        target = self._snapshots[i]
        # Deleting each later snapshot merges its deltas into the one before it, which is the target
        # once the ones between are gone; the target then holds every change made since its epoch.
        for later in self._snapshots[i + 1:]:
            target.merge_from(later)
        del self._snapshots[i + 1:]
        target.handle_revert()

    def delete_snapshot(self, epoch: int) -> None:
        i = self._index_or_raise(epoch)
        snapshot = self._snapshots.pop(i)
        if i > 0:
            # The previous snapshot must now answer for the changes this one recorded.
            self._snapshots[i - 1].merge_from(snapshot)
        else:
            snapshot.erase()

    def delete_snapshots_up_to(self, epoch: int) -> None:
        """Delete every snapshot with an epoch below `epoch`. They are the oldest, so nothing merges:
        their deltas are only needed to read at their epochs, which nobody may do any more."""
        n = bisect_left(self._snapshots, epoch, key=_epoch)
        for snapshot in self._snapshots[:n]:
            snapshot.erase()
        del self._snapshots[:n]

    def reset(self) -> None:
        """Every object empty again and no snapshots, as when a coordinator shard is loaded afresh."""
        for snapshot in self._snapshots:
            snapshot.erase()
        self._snapshots.clear()
        for revertable in list(self._revertables.values()):
            revertable.reset()

    def register(self, revertable: Revertable) -> None:
        self._revertables[next(self._registrations)] = revertable

    def __repr__(self) -> str:
        return f"SnapshotRegistry({self.log_context!r}, epochs={self.epochs_list()})"
