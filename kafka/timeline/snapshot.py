"""Snapshot: the state of every timeline object at one epoch, kept as deltas (Kafka's
org.apache.kafka.timeline.Snapshot).

A snapshot copies nothing when it is taken. An object copies its old value into the newest snapshot
the first time it changes after that snapshot (copy-on-first-write), so a snapshot costs memory in
proportion to what changed while it was the newest, never to the size of the state.
"""

from __future__ import annotations

from kafka.timeline.delta import Delta
from kafka.timeline.revertable import Revertable


class Snapshot:
    def __init__(self, epoch: int) -> None:
        self.epoch = epoch
        # Keyed by id(): a TimelineHashMap compares by content, as a dict does, so it cannot be a dict
        # key itself. The tuple holds the object too, which keeps it alive, and its id unique, for as
        # long as its delta is here.
        self._deltas: dict[int, tuple[Revertable, Delta]] = {}

    def get_delta(self, owner: Revertable) -> Delta | None:
        entry = self._deltas.get(id(owner))
        return entry[1] if entry is not None else None

    def set_delta(self, owner: Revertable, delta: Delta) -> None:
        self._deltas[id(owner)] = (owner, delta)

    def handle_revert(self) -> None:
        """Put every object this snapshot saved back to its state at this epoch. Afterwards the latest
        state is this snapshot's, so its deltas would tell a read nothing new: they are dropped, and
        the next change copies afresh."""
        for owner, delta in self._deltas.values():
            owner.execute_revert(self.epoch, delta)
        self._deltas.clear()

    def merge_from(self, source: Snapshot) -> None:
        """Take over what `source`, the next snapshot, saved, because `source` is being deleted. An
        object this snapshot saved nothing for did not change between the two epochs, so the source's
        delta is true at this epoch too and is taken whole."""
        for key, (owner, delta) in source._deltas.items():
            mine = self._deltas.get(key)
            if mine is None:
                self._deltas[key] = (owner, delta)
            else:
                mine[1].merge_from(self.epoch, delta)
        source._deltas.clear()

    def erase(self) -> None:
        """Drop every delta: the oldest snapshot is deleted and nobody can read before it any more."""
        self._deltas.clear()

    def __repr__(self) -> str:
        return f"Snapshot(epoch={self.epoch}, deltas={len(self._deltas)})"
