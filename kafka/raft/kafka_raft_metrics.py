"""KafkaRaftMetrics: the raft-metrics group a quorum member reports (Kafka's
org.apache.kafka.raft.internals.KafkaRaftMetrics): who leads which epoch, this node's state, the
high watermark and log end, and the average election and commit latencies over the last 100 of each.

The client tells it when an election starts and ends, when it appends as leader and when the high
watermark passes what it appended; values() goes into the PublishedQuorumState the client swaps in
after each poll, which is where the MetricsEndpoint reads it, never waiting for the raft thread.
"""

from __future__ import annotations

from collections import deque

LATENCY_WINDOW = 100  # the averages are over this many latest elections and commits


class KafkaRaftMetrics:
    def __init__(self) -> None:
        self.election_started_ms: int | None = None
        self.election_latencies_ms: deque[int] = deque(maxlen=LATENCY_WINDOW)
        self.commit_latencies_ms: deque[int] = deque(maxlen=LATENCY_WINDOW)
        self._append_times: deque[tuple[int, int]] = deque()  # (last offset, appended at ms), oldest first

    def on_election_started(self, now_ms: int) -> None:
        if self.election_started_ms is None:  # a lost election and the next are one wait for a leader
            self.election_started_ms = now_ms

    def on_election_ended(self, now_ms: int) -> None:
        if self.election_started_ms is not None:
            self.election_latencies_ms.append(now_ms - self.election_started_ms)
            self.election_started_ms = None

    def on_append(self, last_offset: int, now_ms: int) -> None:
        self._append_times.append((last_offset, now_ms))

    def on_high_watermark(self, high_watermark: int, now_ms: int) -> None:
        while self._append_times and self._append_times[0][0] < high_watermark:
            self.commit_latencies_ms.append(now_ms - self._append_times.popleft()[1])

    def values(self, leader_id: int | None, epoch: int, state: str, high_watermark: int,
               log_end_offset: int) -> dict[str, object]:
        """raft-metrics, by Kafka's names."""
        def avg(values: deque[int]) -> float:
            return sum(values) / len(values) if values else 0.0
        return {"current-leader": -1 if leader_id is None else leader_id, "current-epoch": epoch,
                "current-state": state, "high-watermark": high_watermark, "log-end-offset": log_end_offset,
                "commit-latency-avg": avg(self.commit_latencies_ms),
                "election-latency-avg": avg(self.election_latencies_ms)}
