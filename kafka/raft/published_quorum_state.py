"""PublishedQuorumState: the quorum as the raft thread last saw it, for every other thread to read.

Only the raft thread touches the raft client's state (QuorumState, LeaderState, the log). The
others still need to know a little of it: the broker asks who leads (to forward to the active
controller) and where a voter listens, the controller listener's DescribeCluster names the leader
and the voters, the metrics endpoints export raft-metrics. Kafka lets those threads read volatile
fields of QuorumState and the KafkaRaftMetrics gauges. Here the raft client builds one frozen object
at the end of every poll and swaps it in with one assignment, so a reader gets a consistent view in
one read, never waits for the raft thread, and never sees it half-way through a step: a slow fsync
of the metadata log delays the next view, not the reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from kafka.raft.batch import LeaderAndEpoch
from kafka.raft.kafka_raft_metrics import KafkaRaftMetrics
from kafka.raft.quorum_state import QuorumState
from kafka.raft.replicated_log import ReplicatedLog
from kafka.raft.voter_set import VoterSet


@dataclass(frozen=True)
class PublishedQuorumState:
    cluster_id: str = ""
    leader_id: int | None = None
    epoch: int = 0
    state_name: str = "unattached"  # raft-metrics current-state
    high_watermark: int = -1
    log_end_offset: int = 0
    # the latest voter set in the log (immutable)
    voters: VoterSet = field(default_factory=lambda: VoterSet({}))
    kraft_version: int = 0  # the log's latest KRaftVersionRecord (KIP-853), 0 for a static quorum
    # by Kafka's names
    raft_metrics: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def of(cls, cluster_id: str, quorum: QuorumState, log: ReplicatedLog, voters: VoterSet,
           metrics: KafkaRaftMetrics, kraft_version: int = 0) -> PublishedQuorumState:
        """Built on the raft thread, from the client's QuorumState, log, voter set and KafkaRaftMetrics."""
        leader, epoch, state = quorum.leader_id, quorum.epoch, quorum.state_name()
        high_watermark, log_end_offset = log.high_watermark(), log.end_offset()
        values = metrics.values(leader, epoch, state, high_watermark, log_end_offset)
        return cls(cluster_id, leader, epoch, state, high_watermark, log_end_offset, voters, kraft_version,
                   MappingProxyType(values))

    def leader_and_epoch(self) -> LeaderAndEpoch:
        return LeaderAndEpoch(self.leader_id, self.epoch)

    def voter_ids(self) -> list[int]:
        return sorted(self.voters.voter_ids())

    def voter_endpoint(self, voter_id: int, listener_name: str) -> tuple[str, int] | None:
        return self.voters.endpoint(voter_id, listener_name)
