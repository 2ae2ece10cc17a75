"""Replica: the leader's view of one follower of a partition (Kafka's kafka.cluster.Replica).

Seed 004, the write path: followers pull. Every Fetch a follower sends carries the offset it wants
next, which is its log end offset: everything below it, the follower has. The leader keeps, per
follower, that log end offset and the last time the follower was *caught up*, which is what
decides ISR membership (replica.lag.time.max.ms):

    the follower fetched from at least the leader's log end offset   -> caught up now
    it fetched from at least the leader's log end offset at its
    previous fetch                                                     -> caught up as of that fetch

So a follower that keeps fetching but never reaches the end (the leader appends faster than it
copies) stops being caught up, and the ISR shrinks without it, while one that stopped fetching
altogether falls out the same way. Neither rule depends on how many records behind it is.
"""

from __future__ import annotations

from dataclasses import dataclass

UNKNOWN_OFFSET = -1


@dataclass
class Replica:
    broker_id: int
    log_end_offset: int = UNKNOWN_OFFSET  # unknown until its first fetch to this leader
    last_caught_up_time_ms: int = 0
    last_fetch_leader_log_end_offset: int = UNKNOWN_OFFSET
    last_fetch_time_ms: int = 0

    def update_fetch_state(self, fetch_offset: int, leader_end_offset: int, fetch_time_ms: int) -> None:
        """Kafka's Replica.updateFetchStateOrThrow, for a fetch from `fetch_offset` answered while
        the leader's log ended at `leader_end_offset`."""
        if fetch_offset >= leader_end_offset:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, fetch_time_ms)
        elif fetch_offset >= self.last_fetch_leader_log_end_offset:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, self.last_fetch_time_ms)
        self.log_end_offset = fetch_offset
        self.last_fetch_leader_log_end_offset = leader_end_offset
        self.last_fetch_time_ms = fetch_time_ms

    def reset(self, now_ms: int, in_sync: bool) -> None:
        """A new leadership: what it fetched from the previous leader says nothing. An ISR member
        gets a full replica.lag.time.max.ms to fetch from the new leader before it counts as lagging."""
        self.log_end_offset = UNKNOWN_OFFSET
        self.last_fetch_leader_log_end_offset = UNKNOWN_OFFSET
        self.last_fetch_time_ms = 0
        self.last_caught_up_time_ms = now_ms if in_sync else 0
