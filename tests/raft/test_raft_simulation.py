"""Thousands of seeded raft clusters, each checked on every step (Kafka's RaftEventSimulationTest).

Each run: 3 or 5 voters and an observer, messages delayed, dropped and reordered, nodes cut off and
restarted at random, records proposed to whoever leads. After every step: at most one leader per
epoch, nothing committed is ever lost or changed, every node agrees with that committed prefix, and
listeners are told each committed record once, in order. At the end the network heals and a new
record must commit everywhere. A failure names its seed; RAFT_SIM_SEED=<seed> replays it alone.
RAFT_SIM_SEEDS=<n> runs n seeds a cluster size instead of 1,000 (`make test-fast` runs 100).
"""

from __future__ import annotations

import os

import pytest

from tests.raft.simulation import Simulation

# Warnings and errors only: thousands of clusters' info lines would drown the output.
pytestmark = pytest.mark.usefixtures("quiet_logs")

SEEDS_PER_CASE = int(os.environ.get("RAFT_SIM_SEEDS", "1000"))
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


@pytest.mark.parametrize("voters, offset", [(3, 10_000), (5, 20_000)])
def test_invariants_hold_under_loss_partitions_and_restarts(voters, offset):
    for seed in seeds(offset):
        sim = Simulation(seed, voters=voters, drop=0.05)
        sim.run_for(2000, propose_every=25, chaos=True)
        sim.check_progress()
