"""VoteHandler: the voter's side of Vote (KafkaRaftClient's handleVoteRequest), votes and pre-votes.

A Vote names the sender's epoch and where its log ends, and says whether it is a pre-vote (KIP-996,
Vote v2). The voter answers from its own state alone (QuorumState.can_grant_vote):

    an epoch older than ours       FENCED_LEADER_EPOCH
    a newer epoch                  move to it first (Unattached: no vote cast in it yet), then decide
    a log behind ours              refused: Raft's "up-to-date" rule, for votes and pre-votes alike
    a vote                         granted once an epoch, and written to quorum-state before the answer
    a pre-vote                     granted unless we lead or still hear from our leader; nothing changes

Only a granted vote restarts the election timer; a refused one, or any pre-vote, leaves it running,
so that a voter whose log is behind cannot keep the up-to-date voters from ever standing.

Kafka keeps this inside KafkaRaftClient; here it is a class of its own, as FetchHandler is the leader's
side of Fetch, so that the client reads as the election protocol. It shares the client's log and
quorum state, runs on the raft thread, and answers through the `respond` it is given.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.protocol.errors import Errors
from kafka.raft.epoch_state import VotedState
from kafka.raft.quorum_state import QuorumState
from kafka.raft.raft_message import RaftRequest
from kafka.raft.raft_util import only_partition, partition_response
from kafka.raft.replicated_log import ReplicatedLog


class VoteHandler:
    def __init__(self, log: ReplicatedLog, quorum: QuorumState, voters: Callable[[], frozenset[int]],
                 respond: Callable[[RaftRequest, dict], None], on_new_epoch: Callable[[], None]) -> None:
        self.log = log
        self.quorum = quorum
        self.voters = voters
        self.respond = respond
        self.on_new_epoch = on_new_epoch  # the client drops what a former leader held

    def handle_vote_request(self, request: RaftRequest) -> None:
        p = only_partition(request.body)
        candidate, epoch, pre_vote = p["replica_id"], p["replica_epoch"], bool(p.get("pre_vote"))
        if candidate not in self.voters() or not self.quorum.is_voter:
            self.respond(request, dict(error_code=Errors.INCONSISTENT_VOTER_SET, topics=[]))
            return
        last_epoch, last_offset = p["last_offset_epoch"], p["last_offset"]
        # A candidate has moved past its log's last epoch; a prospective one has not (Kafka checks both).
        if last_offset < 0 or last_epoch < 0 or (last_epoch > epoch if pre_vote else last_epoch >= epoch):
            self.respond(request, self._response(Errors.INVALID_REQUEST, False, pre_vote))
            return
        if epoch < self.quorum.epoch:
            self.respond(request, self._response(Errors.FENCED_LEADER_EPOCH, False, pre_vote))
            return
        previous_deadline = getattr(self.quorum.state, "election_deadline_ms", None)
        if epoch > self.quorum.epoch:
            self.quorum.transition_to_unattached(epoch)  # a newer epoch: we have not voted in it yet
            self.on_new_epoch()
        up_to_date = (last_epoch, last_offset) >= (self.log.last_fetched_epoch(), self.log.end_offset())
        granted = self.quorum.can_grant_vote(candidate, up_to_date, pre_vote)
        if granted and not pre_vote:
            if not isinstance(self.quorum.state, VotedState):
                self.quorum.transition_to_voted(epoch, candidate)
        elif previous_deadline is not None and hasattr(self.quorum.state, "election_deadline_ms"):
            self.quorum.state.election_deadline_ms = min(previous_deadline,
                                                         self.quorum.state.election_deadline_ms)
        self.respond(request, self._response(Errors.NONE, granted, pre_vote))

    def _response(self, error: Errors, granted: bool, pre_vote: bool) -> dict:
        return partition_response(error, self.quorum.leader_id, self.quorum.epoch, vote_granted=granted,
                                  pre_vote=pre_vote)
