"""TimelineHashMap against a model (seeded): random puts, removes, snapshots, reverts and deletes,
applied to the map and to a plain dict that keeps a full copy at each snapshot. After every step the
map's reads at every live epoch must equal the model's copy for that epoch. A failure names its seed;
add it to SEEDS to replay it."""

from __future__ import annotations

import random

import pytest

from kafka.timeline import LATEST_EPOCH, SnapshotRegistry, TimelineHashMap

SEEDS = list(range(12))
STEPS = 250
KEYS = range(8)  # few keys, so that the same key is changed across many snapshots


def check(table: TimelineHashMap, registry: SnapshotRegistry, model: dict, snapshots: dict, seed: int,
          step: int, op: str) -> None:
    where = f"seed {seed}, step {step} ({op})"
    assert registry.epochs_list() == sorted(snapshots), where
    assert dict(table) == model, where
    for epoch, expected in [*snapshots.items(), (LATEST_EPOCH, model)]:
        assert dict(table.items_at(epoch)) == expected, f"{where}: items at epoch {epoch}"
        assert table.size_at(epoch) == len(expected), f"{where}: size at epoch {epoch}"
        for key in KEYS:
            assert table.get_at(key, epoch, "absent") == expected.get(key, "absent"), \
                f"{where}: key {key} at epoch {epoch}"
            assert table.contains_at(key, epoch) == (key in expected), f"{where}: key {key} at epoch {epoch}"


def run(seed: int) -> None:
    rng = random.Random(seed)
    registry = SnapshotRegistry(f"[seed {seed}] ")
    table: TimelineHashMap[int, int] = TimelineHashMap(registry)
    model: dict[int, int] = {}
    snapshots: dict[int, dict[int, int]] = {}  # epoch -> a copy of the model as of then
    epoch = 0
    for step in range(STEPS):
        roll = rng.random()
        if roll < 0.4:
            op = "put"
            key, value = rng.choice(KEYS), rng.randrange(100)
            table[key] = value
            model[key] = value
        elif roll < 0.6:
            op = "remove"
            key = rng.choice(KEYS)
            table.pop(key, None)
            model.pop(key, None)
        elif roll < 0.82:
            op = "snapshot"
            epoch += rng.choice((0, 1, 1, 1, 2))  # sometimes the latest epoch again: idempotent
            registry.idempotent_create_snapshot(epoch)
            snapshots.setdefault(epoch, dict(model))
        elif roll < 0.86 and snapshots:
            op = "revert"
            target = rng.choice(sorted(snapshots))
            registry.revert_to_snapshot(target)
            model = dict(snapshots[target])
            snapshots = {e: copy for e, copy in snapshots.items() if e <= target}
        elif roll < 0.93 and snapshots:
            op = "delete"
            victim = rng.choice(sorted(snapshots))
            registry.delete_snapshot(victim)
            del snapshots[victim]
        elif roll < 0.995 and snapshots:
            op = "delete up to"
            # Mostly the oldest one or two, as the coordinator deletes below each new commit.
            bound = min(snapshots) + rng.randrange(3)
            registry.delete_snapshots_up_to(bound)
            snapshots = {e: copy for e, copy in snapshots.items() if e >= bound}
        else:
            op = "reset"
            registry.reset()
            model, snapshots = {}, {}
        check(table, registry, model, snapshots, seed, step, op)


@pytest.mark.parametrize("seed", SEEDS)
def test_reads_at_every_live_epoch_match_a_model_that_copies_at_each_snapshot(seed):
    run(seed)
