"""Who grants a pre-vote, and what a pre-vote changes (KIP-996; Kafka's KafkaRaftClientPreVoteTest).

One raft core on a MockTime (tests/raft/simulation.py's Node), put into each state and sent a Vote with
PreVote=true from voter 2: the answer, and the state and quorum-state after it.
"""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.raft.epoch_state import FollowerState, UnattachedState, VotedState
from kafka.raft.prospective_state import ProspectiveState
from kafka.raft.raft_message import RaftRequest, RaftResponse
from kafka.raft.raft_util import only_partition, partition_response, vote_request
from kafka.utils.time import MockTime
from tests.raft.simulation import CLUSTER_ID, Node

EPOCH = 4


def node_in(state: str) -> Node:
    """Node 1 of voters {1, 2, 3}, in `state` in epoch EPOCH, its log empty."""
    node = Node(1, {1, 2, 3}, MockTime(), seed=1)
    quorum = node.client.quorum
    if state == "unattached":
        quorum.transition_to_unattached(EPOCH)
    elif state == "voted":
        quorum.transition_to_voted(EPOCH, 3)
    elif state in ("follower", "follower that fetched"):
        quorum.transition_to_follower(EPOCH, 3).has_fetched_from_leader = state == "follower that fetched"
    elif state == "candidate":
        quorum.transition_to_unattached(EPOCH - 1)
        quorum.transition_to_candidate()
    elif state == "leader":
        quorum.transition_to_unattached(EPOCH - 1)
        quorum.transition_to_candidate()
        quorum.transition_to_leader(0)
    node.client.drain_outbound()
    return node


def ask(node: Node, epoch: int = EPOCH, last: tuple[int, int] = (0, 0), pre_vote: bool = True):
    """Voter 2, its log ending at `last` (epoch, offset), asks node 1: (error, granted, pre_vote) of the
    answer."""
    body = vote_request(CLUSTER_ID, epoch, 2, last[0], last[1], pre_vote=pre_vote)
    node.client.handle_inbound(RaftRequest(7, 2, 1, ApiKey.VOTE, body, node.time.milliseconds()))
    [answer] = [m for m in node.client.drain_outbound() if isinstance(m, RaftResponse)]
    p = only_partition(answer.body)
    return Errors.for_code(p["error_code"]), p["vote_granted"], p["pre_vote"]


def test_who_grants_a_pre_vote():
    granted = {state: ask(node_in(state))[1] for state in
               ("unattached", "voted", "follower", "follower that fetched", "candidate", "leader")}
    assert granted == {"unattached": True, "voted": True, "follower": True, "follower that fetched": False,
                       "candidate": True, "leader": False}


def test_a_pre_vote_changes_nothing_on_the_voter():
    node = node_in("voted")
    written, deadline = node.store.state, node.client.quorum.state.election_deadline_ms
    assert ask(node) == (Errors.NONE, True, True)
    assert isinstance(node.client.quorum.state, VotedState) and node.client.quorum.state.voted_id == 3
    assert node.store.state is written and node.client.quorum.state.election_deadline_ms == deadline
    assert ask(node, pre_vote=False)[1] is False  # the real vote: it voted for 3 in this epoch


def test_a_pre_vote_from_a_newer_epoch_moves_the_voter_to_it():
    node = node_in("follower that fetched")
    assert ask(node, epoch=EPOCH + 1) == (Errors.NONE, True, True)
    assert isinstance(node.client.quorum.state, UnattachedState) and node.client.quorum.epoch == EPOCH + 1


def test_refused_an_older_epoch_or_a_log_that_ends_past_the_askers_epoch():
    assert ask(node_in("unattached"), epoch=EPOCH - 1)[:2] == (Errors.FENCED_LEADER_EPOCH, False)
    # past its epoch
    assert ask(node_in("unattached"), last=(EPOCH + 1, 0))[:2] == (Errors.INVALID_REQUEST, False)


def prospective(leader: int | None, voted: int | None) -> Node:
    node = node_in("follower" if leader else "voted" if voted else "unattached")
    node.client._become_prospective()
    state = node.client.quorum.state
    assert isinstance(state, ProspectiveState) and state.epoch == EPOCH
    assert (state.leader_id, state.voted_id) == (leader, voted)
    return node


def answer_pre_votes(node: Node, granted: bool) -> None:
    """Node 1 polls and sends its pre-votes; voters 2 and 3 answer each, in epoch EPOCH."""
    node.client.poll()
    for request in [m for m in node.client.drain_outbound() if isinstance(m, RaftRequest)]:
        asked = only_partition(request.body)
        assert asked["pre_vote"] and asked["replica_epoch"] == EPOCH
        body = partition_response(Errors.NONE, None, EPOCH, vote_granted=granted, pre_vote=True)
        node.client.handle_inbound(RaftResponse(request.correlation_id, request.destination_id, 1,
                                                ApiKey.VOTE, body))


def test_refused_by_a_majority_a_prospective_voter_goes_back_in_the_same_epoch():
    for leader, voted, back in ((3, None, FollowerState), (None, 3, VotedState),
                                (None, None, UnattachedState)):
        node = prospective(leader, voted)
        answer_pre_votes(node, granted=False)
        state = node.client.quorum.state
        assert isinstance(state, back) and state.epoch == EPOCH, (leader, voted, state)


def test_granted_by_a_majority_it_stands_in_the_next_epoch():
    node = prospective(3, None)
    answer_pre_votes(node, granted=True)
    assert node.client.quorum.state.name == "Candidate" and node.client.quorum.epoch == EPOCH + 1


def test_a_candidate_that_asks_again_keeps_its_vote_for_itself():
    """Raft's safety: one vote an epoch. A candidate that lost and asks for pre-votes again is still in
    the epoch it voted for itself in; refused, it waits as Voted for itself, and grants no other vote."""
    node = node_in("candidate")
    node.client._become_prospective()
    assert node.client.quorum.state.voted_id == 1 and node.client.quorum.state_name() == "prospective-voted"
    assert ask(node, pre_vote=False)[1] is False
    answer_pre_votes(node, granted=False)
    assert isinstance(node.client.quorum.state, VotedState) and node.client.quorum.state.voted_id == 1
    assert ask(node, pre_vote=False)[1] is False
