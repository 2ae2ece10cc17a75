"""GapWindow: the offsets a new leader's SharePartition has not heard of yet (Kafka's
kafka.server.share.SharePartition.GapWindow, its persisterReadResultGapWindow).

Acquisitions are never persisted, so the state a new leader reads back can have holes: records some member
held when the old leader went, between runs that were acknowledged or released. Those records must be
delivered again, as new ones, and the start offset must not move past them. The window covers the state
read back, up to its last offset (`end_offset`); `gap_start_offset` is where the first hole not acquired
yet may begin. It lasts while the share partition's end offset is still the one read back: once
acquisitions go past it, every hole has been acquired and the window is over.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass
class GapWindow:
    end_offset: int
    gap_start_offset: int

    @classmethod
    def read_back(cls, start_offset: int, state_batches: Iterable, end_offset: int) -> GapWindow | None:
        """The window over a state read back that has a hole: from the first offset past start_offset no
        batch holds (Kafka's maybeInitialize); None without one."""
        previous_last = start_offset - 1
        for batch in state_batches:
            if batch.first_offset > previous_last + 1:
                return cls(end_offset, previous_last + 1)
            previous_last = batch.last_offset
        return None

    def gap_start(self, end_offset: int) -> int | None:
        """Where a hole may start, while the window lasts (Kafka's isPersisterReadGapWindowActive: the share
        partition's end offset is still the one read back)."""
        return self.gap_start_offset if end_offset == self.end_offset else None

    def acquired_up_to(self, offset: int, end_offset: int) -> bool:
        """Acquisitions reached offset - 1: the holes before it are in the cache now. False once the window
        is over: acquired past it, or the end offset moved (maybeUpdatePersisterGapWindowStartOffset)."""
        if end_offset != self.end_offset or offset > self.end_offset:
            return False
        self.gap_start_offset = offset
        return True
