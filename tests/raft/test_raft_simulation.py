"""Thousands of seeded raft clusters, each checked on every step (Kafka's RaftEventSimulationTest).

Each run: 3 or 5 voters and an observer, messages delayed, dropped and reordered, nodes cut off and
restarted at random, records proposed to whoever leads. After every step: at most one leader per
epoch, nothing committed is ever lost or changed, every node agrees with that committed prefix,
listeners are told each committed record once, in order, and a node cut off never moves its epoch
(every election starts with a pre-vote, KIP-996). At the end the network heals and a new record
must commit everywhere. A failure names its seed; RAFT_SIM_SEED=<seed> replays it alone.
RAFT_SIM_SEEDS=<n> runs n seeds a cluster size instead of 500 (`make test-fast` runs 5; before a change
to the Raft core, run 5,000).
"""

from __future__ import annotations

import os

import pytest

from tests.raft.simulation import CONFIG, Simulation

# Warnings and errors only: thousands of clusters' info lines would drown the output.
pytestmark = pytest.mark.usefixtures("quiet_logs")

SEEDS_PER_CASE = int(os.environ.get("RAFT_SIM_SEEDS", "500"))  # 500 keeps make test inside its 25 minutes
REPLAY = os.environ.get("RAFT_SIM_SEED")


def seeds(offset: int) -> list[int]:
    if REPLAY is not None:
        return [int(REPLAY)]
    return list(range(offset, offset + SEEDS_PER_CASE))


@pytest.mark.parametrize("voters", [3, 5])
def test_elects_a_leader_and_commits_without_faults(voters):
    for seed in seeds(0)[:20]:
        sim = Simulation(seed, voters=voters, drop=0.0)
        sim.run_for(1500, propose_every=20)
        sim.check_progress()
        assert sim.committed, f"seed {seed}: nothing was committed"


# One test per chunk of seeds: 500 in one test took more than its 120 s timeout on a loaded machine,
# and pytest then failed while formatting the timeout's traceback, ending the whole run.
CHUNK = 50
CHUNKS = [(voters, base + start, min(CHUNK, SEEDS_PER_CASE - start))
          for voters, base in ((3, 10_000), (5, 20_000))
          for start in (range(0, SEEDS_PER_CASE, CHUNK) if REPLAY is None else [0])]


@pytest.mark.parametrize("voters, offset, count", CHUNKS)
def test_invariants_hold_under_loss_partitions_and_restarts(voters, offset, count):
    for seed in seeds(offset)[:count]:
        sim = Simulation(seed, voters=voters, drop=0.05)
        sim.run_for(2000, propose_every=25, chaos=True)
        sim.check_progress()


@pytest.mark.parametrize("voters", [3, 5])
def test_a_voter_cut_off_for_many_election_timeouts_does_not_disturb_the_leader_when_it_returns(voters):
    """The nemesis's finding (docs/replication.md): a follower cut off stood for election again and again,
    and on its return its higher epoch made the leader step down. With pre-vote (KIP-996) it asks first,
    gets no majority, and keeps its epoch; healed, it fetches again. The leader never changes."""
    for seed in seeds(30_000)[:10]:
        sim = Simulation(seed, voters=voters, drop=0.0)
        sim.run_for(1500, propose_every=20)
        leader = sim.leader()
        if leader is None:
            sim.fail("no leader before the cut")
        epoch = leader.client.quorum.epoch
        cut = sorted(v for v in sim.voter_ids if v != leader.node_id)[seed % (voters - 1)]
        sim.isolate(cut)
        phases = (("while cut off", 30 * CONFIG.election_timeout_ms), ("after healing", 3000),
                  ("settled", 500))
        for phase, ms in phases:
            if phase == "after healing":
                sim.heal()
            end = sim.time.milliseconds() + ms
            next_propose = sim.time.milliseconds()
            while sim.time.milliseconds() < end:
                if phase != "settled" and sim.time.milliseconds() >= next_propose:
                    sim.propose()
                    next_propose += 20
                sim.step()
                quorum = leader.client.quorum
                if not quorum.is_leader() or quorum.epoch != epoch:
                    sim.fail(f"{phase}, node {cut} disturbed the quorum: leader {leader.node_id} of epoch "
                             f"{epoch} is now {quorum.state.name} in epoch {quorum.epoch}")
        follower = sim.nodes[cut].client
        if not (follower.quorum.is_follower() and follower.quorum.leader_id == leader.node_id
                and follower.quorum.epoch == epoch
                and follower.high_watermark() == leader.client.high_watermark()):
            sim.fail(f"node {cut} did not come back as a caught-up follower of {leader.node_id} in epoch "
                     f"{epoch}: {follower.quorum.state.name}({follower.quorum.epoch}), hw "
                     f"{follower.high_watermark()} against {leader.client.high_watermark()}")
