"""Revertable: an object the SnapshotRegistry can put back (Kafka's org.apache.kafka.timeline.Revertable).

Every timeline object registers itself with its registry, so that one call to
`SnapshotRegistry.revert_to_snapshot` or `SnapshotRegistry.reset` reaches all of a coordinator's state
at once: a failed write is undone everywhere, not object by object.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from kafka.timeline.delta import Delta


class Revertable(ABC):
    @abstractmethod
    def execute_revert(self, target_epoch: int, delta: Delta) -> None:
        """Go back to the state at `target_epoch`; `delta` holds what this object saved in that
        snapshot, already merged with what every later snapshot saved."""

    @abstractmethod
    def reset(self) -> None:
        """Go back to the empty (initial) state; the registry has dropped every snapshot first."""
