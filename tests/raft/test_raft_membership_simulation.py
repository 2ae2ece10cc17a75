"""Seeded raft clusters whose voters change while records are written (KIP-853;
tests/raft/membership_simulation.py).

Each run starts three voters from a bootstrap checkpoint, with two observers (controllers formatted
with --no-initial-controllers). The operator adds observer 4 as a voter, then removes voter 1 (the
leader, as often as not), then adds observer 5, while records are proposed and messages are lost,
delayed and reordered, nodes cut off and restarted. The invariants are checked after every step; at
the end the network heals and a new record must commit on every node. RAFT_SIM_SEED=<seed> replays one;
RAFT_MEMBERSHIP_SIM_SEEDS=<n> runs n chaotic seeds (15 by default, and at most 10 quiet ones; `make test-fast`
runs 3). A seed here costs several of test_raft_simulation.py's, so it has a count of its own.
"""

from __future__ import annotations

import os

import pytest

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from tests.raft.membership_simulation import MembershipSimulation

pytestmark = pytest.mark.usefixtures("quiet_logs")

SEEDS = int(os.environ.get("RAFT_MEMBERSHIP_SIM_SEEDS", "15"))
REPLAY = os.environ.get("RAFT_SIM_SEED")


def seeds(offset: int, count: int) -> list[int]:
    return [int(REPLAY)] if REPLAY is not None else list(range(offset, offset + count))


def change_until_done(sim: MembershipSimulation, api_key: ApiKey, voter_id: int, done, propose_every: int,
                      chaos: bool) -> None:
    """Ask (again, as the tool's user would after a timeout) until the voter set says it happened."""
    for _ in range(40):
        if done():
            return
        sim.ask_leader(api_key, voter_id)
        sim.run_for(300, propose_every=propose_every, chaos=chaos)
    sim.fail(f"{api_key.name} of voter {voter_id} never took effect")


def committed_voters(sim: MembershipSimulation) -> frozenset[int]:
    """The voter set of a majority's committed log, as the leader sees it."""
    leader = sim.leader()
    return leader.client.voters if leader is not None else frozenset()


def run_membership_changes(seed: int, chaos: bool) -> MembershipSimulation:
    sim = MembershipSimulation(seed, drop=0.05 if chaos else 0.0)
    sim.run_for(800, propose_every=25, chaos=chaos)
    if chaos:
        sim.heal()  # the changes themselves are asked for on a quiet network; the faults came before
        sim.run_for(1000)
    change_until_done(sim, ApiKey.ADD_RAFT_VOTER, 4, lambda: 4 in committed_voters(sim), 25, False)
    change_until_done(sim, ApiKey.REMOVE_RAFT_VOTER, 1, lambda: committed_voters(sim) == {2, 3, 4}, 25, False)
    change_until_done(sim, ApiKey.ADD_RAFT_VOTER, 5, lambda: committed_voters(sim) == {2, 3, 4, 5}, 25, False)
    sim.run_for(1000, propose_every=25, chaos=chaos)
    sim.check_progress()
    for node_id in (2, 3, 4, 5):
        if sim.voters_of(node_id) != {2, 3, 4, 5}:
            sim.fail(f"node {node_id} ends with voters {sorted(sim.voters_of(node_id))}")
    if sim.nodes[1].client.quorum.is_voter:
        sim.fail("node 1 was removed but still thinks it votes")
    return sim


def test_add_and_remove_voters_one_at_a_time_without_faults():
    for seed in seeds(30_000, min(SEEDS, 10)):
        run_membership_changes(seed, chaos=False)


def test_add_and_remove_voters_with_loss_partitions_and_restarts_before():
    for seed in seeds(40_000, SEEDS):
        run_membership_changes(seed, chaos=True)


def test_the_leader_refuses_a_second_change_while_one_is_uncommitted():
    sim = MembershipSimulation(7, drop=0.0)
    sim.run_for(1000, propose_every=25)
    sim.add_voter(4)
    sim.add_voter(5)  # at once: the first is not committed yet
    assert (ApiKey.ADD_RAFT_VOTER, -1, Errors.REQUEST_TIMED_OUT) in sim.answers, sim.answers
    sim.run_for(1000, propose_every=25)
    assert committed_voters(sim) == {1, 2, 3, 4}
    assert sim.errors_for(ApiKey.ADD_RAFT_VOTER).count(Errors.NONE) == 1


def test_refusals_by_kafkas_errors():
    sim = MembershipSimulation(11, voters=1, observers=1, drop=0.0)
    sim.run_for(1000, propose_every=25)
    sim.remove_voter(1)  # the last voter
    sim.add_voter(1)  # votes already
    sim.remove_voter(7)  # never was one
    sim.run_for(200)
    assert sim.errors_for(ApiKey.REMOVE_RAFT_VOTER) == [Errors.VOTER_NOT_FOUND, Errors.VOTER_NOT_FOUND]
    assert sim.errors_for(ApiKey.ADD_RAFT_VOTER) == [Errors.DUPLICATE_VOTER]
    assert sim.leader().node_id == 1


def test_removing_the_leader_makes_it_resign_once_committed():
    sim = MembershipSimulation(5, drop=0.0)
    sim.run_for(1000, propose_every=25)
    leader = sim.leader().node_id
    sim.remove_voter(leader)
    sim.run_for(2000, propose_every=25)
    assert (ApiKey.REMOVE_RAFT_VOTER, -1, Errors.NONE) in sim.answers
    new_leader = sim.leader()
    assert new_leader is not None and new_leader.node_id != leader
    assert new_leader.client.voters == {1, 2, 3} - {leader}
    assert sim.nodes[leader].client.quorum.state_name() == "observer"
    sim.check_progress()


def test_a_voter_that_has_not_caught_up_is_not_added():
    sim = MembershipSimulation(3, drop=0.0)
    sim.isolated.add(4)  # observer 4 never fetches
    sim.run_for(1000, propose_every=25)
    sim.add_voter(4)
    sim.run_for(100)
    assert sim.errors_for(ApiKey.ADD_RAFT_VOTER) == [Errors.REQUEST_TIMED_OUT]
    assert 4 not in committed_voters(sim)


def test_a_change_in_flight_when_the_leader_loses_its_majority_is_answered_not_leader():
    sim = MembershipSimulation(13, drop=0.0)
    sim.run_for(1000, propose_every=25)
    leader = sim.leader()
    sim.isolated.update(n for n in (1, 2, 3) if n != leader.node_id)  # no majority can fetch the VotersRecord
    sim.add_voter(4)
    sim.run_for(1000)
    assert sim.errors_for(ApiKey.ADD_RAFT_VOTER) == [Errors.NOT_LEADER_OR_FOLLOWER], sim.answers


def test_add_voter_v1_may_answer_once_the_leader_has_written_the_change():
    """KIP-1186: AckWhenCommitted false is answered NONE as soon as the leader has appended the VotersRecord,
    before a majority has it. The change stays in flight until committed (a second change is refused
    meanwhile), and nothing more is sent when it never commits -- not even NOT_LEADER_OR_FOLLOWER."""
    sim = MembershipSimulation(13, drop=0.0)
    sim.run_for(1000, propose_every=25)
    leader = sim.leader()
    sim.isolated.update(n for n in (1, 2, 3) if n != leader.node_id)  # no majority can fetch the VotersRecord
    sim.add_voter(4, ack_when_committed=False)
    assert sim.errors_for(ApiKey.ADD_RAFT_VOTER) == [Errors.NONE], "answered at once"
    assert leader.client.quorum.state.add_voter_handler_state is not None, "in flight until committed"
    sim.add_voter(5)
    sim.run_for(1000)
    assert sim.errors_for(ApiKey.ADD_RAFT_VOTER) == [Errors.NONE, Errors.REQUEST_TIMED_OUT], sim.answers


def test_add_voter_v1_acknowledged_when_written_still_takes_effect():
    sim = MembershipSimulation(7, drop=0.0)
    sim.run_for(1000, propose_every=25)
    sim.add_voter(4, ack_when_committed=False)
    sim.run_for(1000, propose_every=25)
    assert committed_voters(sim) == {1, 2, 3, 4}
    assert sim.errors_for(ApiKey.ADD_RAFT_VOTER) == [Errors.NONE], "one answer, not a second on commit"
