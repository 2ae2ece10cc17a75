"""The seeded raft simulation with a quorum that changes its voters (KIP-853; Kafka's RaftEventSimulationTest
with its voter changes).

The voters start from a bootstrap checkpoint (kraft.version 1 and a VotersRecord, what `kafka-storage
format --initial-controllers` writes); observers fetch as brokers and controllers formatted with
--no-initial-controllers do. An operator (node id OPERATOR, the kafka-metadata-quorum tool) sends
AddRaftVoter and RemoveRaftVoter to whoever leads. Besides the invariants of every simulation (one
leader per epoch, nothing committed lost or changed), after every step:

  * a leader counts its majority from the latest voter set in its log, committed or not;
  * no log holds two uncommitted voter changes: a leader accepts a change only once the last is committed;
  * each voter set differs from the one before it by one voter at most (their majorities overlap).
"""

from __future__ import annotations

import uuid

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.kraft_control_records import (
    KRAFT_VERSION,
    KRAFT_VOTERS,
    control_batch,
    control_record,
    kraft_version_value,
    voters_value,
)
from kafka.raft.leader_state import LeaderState
from kafka.raft.raft_message import RaftRequest, RaftResponse
from kafka.raft.replicated_log import OffsetAndEpoch
from kafka.raft.voter_set import ReplicaKey, VoterNode, VoterSet
from tests.raft.simulation import CLUSTER_ID, Simulation

OPERATOR = 1000


def directory_id(node_id: int) -> uuid.UUID:
    return uuid.UUID(int=node_id * 7919)


def voter_node(node_id: int) -> VoterNode:
    return VoterNode(ReplicaKey(node_id, directory_id(node_id)),
                     {"CONTROLLER": ("127.0.0.1", 9000 + node_id)})


def bootstrap_checkpoint(voter_ids) -> bytes:
    """What `kafka-storage format --initial-controllers` writes as
    00000000000000000000-0000000000.checkpoint."""
    voters = VoterSet({i: voter_node(i) for i in voter_ids})
    return control_batch(0, 0, -1, [control_record(KRAFT_VERSION, kraft_version_value(1)),
                                    control_record(KRAFT_VOTERS, voters_value(voters.to_voters_record()))])


class MembershipSimulation(Simulation):
    def __init__(self, seed: int, voters: int = 3, observers: int = 2, drop: float = 0.05) -> None:
        super().__init__(seed, voters=voters, observers=observers, drop=drop)
        checkpoint = bootstrap_checkpoint(self.voter_ids)
        for node_id in self.voter_ids:
            node = self.nodes[node_id]
            node.log.snapshots[OffsetAndEpoch(0, 0)] = checkpoint
            node.start()
        self.answers: list[tuple[ApiKey, int, int]] = []  # (api, voter id, error code) the operator got
        self.correlation = 0

    # ------------------------------------------------------------------ the operator
    def send(self, message) -> None:
        if message.destination_id == OPERATOR:
            if isinstance(message, RaftResponse):
                self.answers.append((message.api_key, message.body.get("voter", -1),
                                     message.body["error_code"]))
            return
        super().send(message)

    def voters_of(self, node_id: int) -> frozenset[int]:
        return self.nodes[node_id].client.voters

    def ask_leader(self, api_key: ApiKey, voter_id: int, **extra) -> bool:
        leader = self.leader()
        if leader is None:
            return False
        self.correlation += 1
        body = dict(cluster_id=CLUSTER_ID, voter_id=voter_id, voter_directory_id=directory_id(voter_id))
        if api_key == ApiKey.ADD_RAFT_VOTER:
            body.update(timeout_ms=1000,
                        listeners=[dict(name="CONTROLLER", host="127.0.0.1", port=9000 + voter_id)], **extra)
        leader.client.handle_inbound(RaftRequest(self.correlation, OPERATOR, leader.node_id, api_key, body,
                                                 self.time.milliseconds()))
        leader.next_poll_ms = self.time.milliseconds()
        for message in leader.client.drain_outbound():
            self.send(message)
        return True

    def add_voter(self, voter_id: int, **extra) -> None:
        self.ask_leader(ApiKey.ADD_RAFT_VOTER, voter_id, **extra)

    def remove_voter(self, voter_id: int) -> None:
        self.ask_leader(ApiKey.REMOVE_RAFT_VOTER, voter_id)

    def errors_for(self, api_key: ApiKey) -> list[int]:
        return [error for api, _, error in self.answers if api == api_key]

    # ------------------------------------------------------------------ the invariants
    def check_invariants(self) -> None:
        super().check_invariants()
        hw = max(self.committed) + 1 if self.committed else 0  # the quorum's high watermark so far
        for node in self.nodes.values():
            client = node.client
            history = client.partition_state.voter_set_history
            uncommitted = [offset for offset, _ in history if offset >= hw]
            if len(uncommitted) > 1:
                self.fail(f"node {node.node_id} has {len(uncommitted)} uncommitted voter changes at "
                          f"{uncommitted}")
            for (_, before), (offset, after) in zip(history, history[1:], strict=False):
                if not before.has_overlapping_majority(after):
                    self.fail(f"node {node.node_id}: the voter set at {offset} ({sorted(after.voter_ids())}) "
                              f"changes more than one voter of {sorted(before.voter_ids())}")
            state = client.quorum.state
            if isinstance(state, LeaderState):
                latest = client.partition_state.last_voter_set().voter_ids()
                if state.voters != latest or client.quorum.voters != latest:
                    self.fail(f"leader {node.node_id} counts its majority from {sorted(state.voters)}, "
                              f"its log's latest voter set is {sorted(latest)}")
