"""GapWindow: the offsets a new leader's SharePartition has not heard of yet (Kafka's
kafka.server.share.SharePartition.GapWindow, its persisterReadResultGapWindow).

Acquisitions are never persisted, so the state a new leader reads back can have holes: records some member
held when the old leader went, between runs that were acknowledged or released. Those records must be
delivered again, as new ones, and the start offset must not move past them. The window covers the state
read back, up to its last offset (`end_offset`); `gap_start_offset` is where the first hole not acquired
yet may begin. It lasts while the share partition's end offset is still the one read back: once
acquisitions go past it, every hole has been acquired and the window is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class GapWindow:
    end_offset: int
    gap_start_offset: int
