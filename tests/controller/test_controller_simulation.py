"""Seeded clusters of three QuorumControllers on the Raft simulation
(tests/controller/controller_simulation.py).

Every committed batch on every node: its image equals every other node's at that offset, and a
controller with nothing pending holds exactly what replaying its image gives. Through elections,
restarts, cut-off nodes, lost messages and snapshots, with brokers registering, heartbeating, dying
and shutting down, and topics, partitions, configs, elections and producer ids asked for. At the
end, healed, nothing acknowledged is lost. A failure names its seed; CONTROLLER_SIM_SEED=<seed>
replays it alone, CONTROLLER_SIM_SEEDS=<n> runs n seeds (100 by default, about 40 s).
"""

from __future__ import annotations

import os

import pytest

from tests.controller.controller_simulation import ControllerSimulation

# Warnings and errors only: thousands of clusters' info lines would drown the output.
pytestmark = pytest.mark.usefixtures("quiet_logs")

SEEDS = int(os.environ.get("CONTROLLER_SIM_SEEDS", "100"))
REPLAY = os.environ.get("CONTROLLER_SIM_SEED")


def seeds(offset: int, count: int) -> list[int]:
    return [int(REPLAY)] if REPLAY is not None else list(range(offset, offset + count))


def test_controllers_agree_without_faults():
    for seed in seeds(0, min(SEEDS, 5)):
        sim = ControllerSimulation(seed, drop=0.0)
        sim.run_for(2000)
        sim.check_progress()
        assert sim.acknowledged_topics, f"seed {seed}: no topic was ever created"


# The chaotic seeds in chunks of 25: one test per chunk keeps each well inside the per-test timeout on a
# busy machine, and a failure names a chunk of seeds rather than all of them.
CHUNK = 25


@pytest.mark.parametrize("chunk", range(0, SEEDS, CHUNK) if REPLAY is None else [0])
def test_standbys_agree_with_the_active_controller_through_elections(chunk):
    for seed in seeds(1000 + chunk, min(CHUNK, SEEDS - chunk)):
        sim = ControllerSimulation(seed, drop=0.05)
        sim.run_for(3000, chaos=True)
        sim.check_progress()
