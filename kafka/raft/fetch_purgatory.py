"""FetchPurgatory: the leader's long-polling Fetch requests
(Kafka's KafkaRaftClient.fetchPurgatory, a ThresholdPurgatory).

A follower that has everything sends Fetch with max_wait_ms > 0. Rather than answer "nothing new"
at once, and be asked again at once, the leader parks the request here until new records are
appended, the high watermark moves (a follower must not wait to hear of a commit), or the request's
wait runs out. The FetchHandler then answers each request afresh, from the log as it is by then. A
leader that loses its leadership answers all of them at once (NOT_LEADER_OR_FOLLOWER), so the
followers go looking for the new leader.

The purgatory only holds requests and their deadlines; the FetchHandler answers them.
"""

from __future__ import annotations

from kafka.raft.raft_message import RaftRequest


class FetchPurgatory:
    def __init__(self) -> None:
        self._waiting: list[tuple[RaftRequest, int]] = []  # (request, deadline ms), in arrival order

    def __len__(self) -> int:
        return len(self._waiting)

    def park(self, request: RaftRequest, deadline_ms: int) -> None:
        self._waiting.append((request, deadline_ms))

    def next_deadline_ms(self) -> int | None:
        return min((deadline for _, deadline in self._waiting), default=None)

    def complete_all(self) -> list[RaftRequest]:
        """Take every waiting request (to be answered now)."""
        waiting, self._waiting = self._waiting, []
        return [request for request, _ in waiting]

    def complete_expired(self, now: int) -> list[RaftRequest]:
        """Take the requests whose wait has run out; the others keep waiting."""
        expired = [request for request, deadline in self._waiting if deadline <= now]
        self._waiting = [(request, deadline) for request, deadline in self._waiting if deadline > now]
        return expired
