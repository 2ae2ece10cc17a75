"""Delta: what one timeline object saved in one snapshot (Kafka's org.apache.kafka.timeline.Delta).

A snapshot keeps, for each object changed since its epoch, a delta holding the values that object
had at that epoch. When a snapshot is deleted its deltas are merged into the snapshot before it,
because that older snapshot now has to answer for the changes the deleted one was recording.
"""

from __future__ import annotations

from abc import ABC, abstractmethod


class Delta(ABC):
    @abstractmethod
    def merge_from(self, destination_epoch: int, source: Delta) -> None:
        """Fold in `source`, the delta of the same object in the next (later) snapshot, which is being
        deleted. Whatever this delta already holds is older, so it wins; only what it lacks is taken."""
