"""QuorumEpochHandler: a voter's side of BeginQuorumEpoch and EndQuorumEpoch (KafkaRaftClient's
handleBeginQuorumEpochRequest and handleEndQuorumEpochRequest, KIP-595).

A leader announces itself, and resigns, with a request to every voter, so that none has to wait out
a timeout to learn either:

    BeginQuorumEpoch   a new leader, sent until each voter has answered. The voter follows that
                       leader in that epoch, unless it already does.
    EndQuorumEpoch     a leader shutting down or stepping down, naming its preferred successors,
                       the voters whose logs reach furthest first. A newer epoch moves the voter to
                       it, unattached; then a voter that followed the resigning leader (or knew of
                       none) cuts its timer short and stands soon, the sooner the better placed it
                       is in that list.

Either request from an older epoch is refused with FENCED_LEADER_EPOCH and changes nothing.

Kafka keeps both inside KafkaRaftClient; here they are a class of their own, as VoteHandler is the
voter's side of Vote, so that the client reads as the election protocol. It shares the client's
quorum state, runs on the raft thread, answers through the `respond` it is given, and follows a new
leader through the client's `become_follower`.
"""

from __future__ import annotations

import random as random_module
from collections.abc import Callable

from kafka.protocol.errors import Errors
from kafka.raft.quorum_state import QuorumState
from kafka.raft.raft_config import RaftConfig
from kafka.raft.raft_message import RaftRequest
from kafka.raft.raft_util import only_partition, partition_response
from kafka.utils.time import Time


class QuorumEpochHandler:
    def __init__(self, node_id: int, quorum: QuorumState, voters: Callable[[], frozenset[int]],
                 config: RaftConfig, time: Time, random: random_module.Random,
                 respond: Callable[[RaftRequest, dict], None],
                 become_follower: Callable[[int, int], None]) -> None:
        self.node_id = node_id
        self.quorum = quorum
        self.voters = voters
        self.config = config
        self.time = time
        self.random = random
        self.respond = respond
        self.become_follower = become_follower  # (epoch, leader id): the client's transition

    def handle_begin_quorum_epoch_request(self, request: RaftRequest) -> None:
        p = only_partition(request.body)
        epoch, leader = p["leader_epoch"], p["leader_id"]
        if epoch < self.quorum.epoch:
            self.respond(request, self._response(Errors.FENCED_LEADER_EPOCH, self.quorum.leader_id))
            return
        quorum = self.quorum
        if not (quorum.is_follower() and quorum.epoch == epoch and quorum.leader_id == leader):
            self.become_follower(epoch, leader)
        self.respond(request, self._response(Errors.NONE, leader))

    def handle_end_quorum_epoch_request(self, request: RaftRequest) -> None:
        p = only_partition(request.body)
        epoch, leader = p["leader_epoch"], p["leader_id"]
        if epoch < self.quorum.epoch:
            self.respond(request, self._response(Errors.FENCED_LEADER_EPOCH, self.quorum.leader_id))
            return
        if epoch > self.quorum.epoch:
            self.quorum.transition_to_unattached(epoch)
        if self.quorum.is_voter and self.quorum.leader_id in (leader, None):
            delay = self._end_epoch_election_backoff(list(p.get("preferred_successors") or []))
            if self.quorum.is_follower():
                self.quorum.state.fetch_deadline_ms = self.time.milliseconds() + delay
            elif hasattr(self.quorum.state, "election_deadline_ms"):
                self.quorum.state.election_deadline_ms = self.time.milliseconds() + delay
        self.respond(request, self._response(Errors.NONE, self.quorum.leader_id))

    def _end_epoch_election_backoff(self, successors: list[int]) -> int:
        """How long to wait before standing (Kafka's endEpochElectionBackoff): one retry backoff
        for the first successor, two more for each place further down the list (a voter not on
        it goes last), and a random part of one backoff so that two voters seldom stand at once."""
        position = successors.index(self.node_id) if self.node_id in successors else len(self.voters())
        backoff_ms = self.config.retry_backoff_ms
        return backoff_ms * (1 + 2 * position) + self.random.randrange(backoff_ms + 1)

    def _response(self, error: Errors, leader_id: int | None) -> dict:
        return partition_response(error, leader_id, self.quorum.epoch)
