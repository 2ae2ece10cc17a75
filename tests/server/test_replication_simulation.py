"""Seeded replication of one partition over three brokers, checked after every step
(tests/server/replication_simulation.py: Kafka's ReplicaManager and Partition tests, run the way
KRaft's RaftEventSimulationTest runs a quorum; seed 004's followers pull, the HW, the ISR).

Each seed: a few hundred steps of produces (acks=1 and acks=all), follower fetches, ISR expiry and
AlterPartition, metadata reaching each broker late, links cut and healed (among them a leader cut from
its followers and the controller but not from its producers), crashes and restarts, controlled
shutdowns and preferred elections. After every step: the controller's ISR holds the current leader's
log below its HW, and every record acknowledged at acks=all is in the log of whoever leads. At the end,
healed, the three replicas rejoin the ISR with equal logs and a new record is acknowledged.

A failure names its seed and step; REPLICATION_SIM_SEED=<seed> replays that seed alone,
REPLICATION_SIM_SEEDS=<n> runs n seeds (100 by default, about 20 s; the quick loop wants 5).
"""

from __future__ import annotations

import os
import shutil

import pytest

from tests.server.replication_simulation import ReplicationSimulation

# Warnings and errors only: every fetch that backs off or ISR change refused would be an info line otherwise.
pytestmark = pytest.mark.usefixtures("quiet_logs")

SEEDS = int(os.environ.get("REPLICATION_SIM_SEEDS", "100"))
REPLAY = os.environ.get("REPLICATION_SIM_SEED")
STEPS = 300
# One test per chunk of seeds: each stays well inside the per-test timeout on a busy machine, and a
# failure names a chunk rather than all of them.
CHUNK = 25


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    """The logs are real files, but their fsyncs are skipped: a simulated crash is kill -9, after
    which the page cache still holds every write, so no fsync changes what a restart finds. On a
    shared disk the epoch checkpoints' and snapshots' fsyncs were over half of the run time."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


def seeds(offset: int, count: int) -> list[int]:
    return [int(REPLAY)] if REPLAY is not None else list(range(offset, offset + count))


def run(seed: int, directory, faults: bool = True) -> ReplicationSimulation:
    sim = ReplicationSimulation(seed, str(directory), faults=faults)
    sim.run(STEPS)
    sim.check_progress()
    shutil.rmtree(directory)
    return sim


def test_without_faults_every_acks_all_record_is_acknowledged(tmp_path):
    for seed in seeds(0, min(SEEDS, 3)):
        sim = run(seed, tmp_path / f"seed-{seed}", faults=False)
        assert sim.acknowledged and sim.acks_all_refused == 0, \
            f"seed {seed}: {len(sim.acknowledged)} acknowledged, {sim.acks_all_refused} refused"


@pytest.mark.parametrize("chunk", range(0, SEEDS, CHUNK) if REPLAY is None else [0])
def test_what_acks_all_acknowledged_survives_failovers_cuts_and_crashes(chunk, tmp_path):
    acknowledged = elections = 0
    for seed in seeds(chunk, min(CHUNK, SEEDS - chunk)):
        sim = run(seed, tmp_path / f"seed-{seed}")
        acknowledged += len(sim.acknowledged)
        elections += sim.controller.elections
    assert acknowledged and elections, "the simulation acknowledged nothing, or never moved the leadership"
