"""The coordinator runtime in a seeded simulation
(tests/coordinator/runtime/coordinator_runtime_simulation.py): writes, reads and timers on two partitions,
while appends fail, the high watermark moves and this broker loses and regains leadership in the middle of
writes; after every step each active shard's committed view is a replay of the committed log and its latest
state a replay of what it wrote.

A failure names its seed and step; COORDINATOR_RUNTIME_SIM_SEED=<seed> replays that seed alone,
COORDINATOR_RUNTIME_SIM_SEEDS=<n> runs n seeds (100 by default; `make test-fast` runs 5).
"""

from __future__ import annotations

import os

import pytest

from tests.coordinator.runtime.coordinator_runtime_simulation import CoordinatorRuntimeSimulation

# Warnings and errors only: every load, unload and failed append would be an info line otherwise.
pytestmark = pytest.mark.usefixtures("quiet_logs")

SEEDS = int(os.environ.get("COORDINATOR_RUNTIME_SIM_SEEDS", "100"))
REPLAY = os.environ.get("COORDINATOR_RUNTIME_SIM_SEED")
STEPS = 1000
# One test per chunk of seeds: each stays well inside the per-test timeout on a busy machine.
CHUNK = 50


def seeds(offset: int, count: int) -> list[int]:
    return [int(REPLAY)] if REPLAY is not None else list(range(offset, offset + count))


@pytest.mark.parametrize("chunk", range(0, SEEDS, CHUNK) if REPLAY is None else [0])
def test_shards_stay_the_replay_of_their_log_through_failed_appends_and_leader_changes(chunk):
    writes = committed = leader_changes = 0
    for seed in seeds(chunk, min(CHUNK, SEEDS - chunk)):
        sim = CoordinatorRuntimeSimulation(seed)
        sim.run(STEPS)
        sim.finish()
        writes += sim.writes
        committed += sim.committed_writes
        leader_changes += sim.leader_changes
    assert writes and committed and leader_changes, (
        "the simulation wrote nothing, committed nothing or never moved")
