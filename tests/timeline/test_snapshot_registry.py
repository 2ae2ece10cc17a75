"""SnapshotRegistry and Snapshot (Kafka's SnapshotRegistryTest): epochs in order, reverts reach every
registered object, deletes merge into the snapshot before, and memory is let go."""

from __future__ import annotations

import gc

import pytest

from kafka.timeline import (
    LATEST_EPOCH,
    NoSuchSnapshotError,
    SnapshotRegistry,
    TimelineHashMap,
    TimelineHashSet,
    TimelineInteger,
    TimelineObject,
)
from kafka.timeline.snapshottable_hash_table import ABSENT


def test_an_empty_registry_has_no_epochs():
    registry = SnapshotRegistry("[test] ")
    assert registry.epochs_list() == []
    assert registry.latest_epoch() == -1
    assert registry.latest_snapshot() is None
    assert not registry.has_snapshot(0)


def test_snapshots_are_created_in_epoch_order_and_creating_the_latest_again_returns_it():
    registry = SnapshotRegistry()
    first = registry.get_or_create_snapshot(3)
    assert registry.get_or_create_snapshot(3) is first
    registry.idempotent_create_snapshot(5)
    registry.idempotent_create_snapshot(5)
    registry.get_or_create_snapshot(7)
    assert registry.epochs_list() == [3, 5, 7]
    assert registry.latest_epoch() == 7
    assert registry.has_snapshot(5) and not registry.has_snapshot(4)
    assert registry.get_snapshot(3) is first


def test_a_snapshot_older_than_the_latest_cannot_be_created():
    registry = SnapshotRegistry()
    registry.get_or_create_snapshot(10)
    with pytest.raises(ValueError):
        registry.get_or_create_snapshot(9)
    with pytest.raises(ValueError):
        registry.idempotent_create_snapshot(2)


def test_a_missing_snapshot_is_both_a_key_error_and_a_value_error():
    registry = SnapshotRegistry()
    registry.get_or_create_snapshot(1)
    for call in (registry.get_snapshot, registry.revert_to_snapshot, registry.delete_snapshot,
                 registry.snapshots_from):
        with pytest.raises(KeyError):
            call(2)
        with pytest.raises(ValueError):
            call(2)
    assert issubclass(NoSuchSnapshotError, KeyError) and issubclass(NoSuchSnapshotError, ValueError)


def test_reads_at_a_missing_epoch_fail_but_latest_epoch_always_reads():
    registry = SnapshotRegistry()
    table = TimelineHashMap(registry)
    table["a"] = 1
    counter = TimelineInteger(registry)
    with pytest.raises(NoSuchSnapshotError):
        table.get_at("a", 0)
    with pytest.raises(NoSuchSnapshotError):
        counter.get_at(0)
    assert table.get_at("a", LATEST_EPOCH) == 1
    assert counter.get_at(LATEST_EPOCH) == 0


def test_revert_puts_every_registered_object_back_and_keeps_the_target_but_not_later_snapshots():
    registry = SnapshotRegistry()
    table = TimelineHashMap(registry)
    members = TimelineHashSet(registry)
    state = TimelineObject(registry, "Empty")
    table["a"] = 1
    members.add("m1")
    registry.get_or_create_snapshot(1)
    table["a"] = 2
    table["b"] = 3
    members.add("m2")
    state.set("Stable")
    registry.get_or_create_snapshot(2)
    del table["a"]
    members.discard("m1")
    state.set("Dead")

    registry.revert_to_snapshot(1)

    assert dict(table) == {"a": 1}
    assert set(members) == {"m1"}
    assert state.get() == "Empty"
    assert registry.epochs_list() == [1]
    # The target still answers reads, and a change after the revert is saved in it afresh.
    table["c"] = 4
    assert table.items_at(1) == [("a", 1)]
    registry.revert_to_snapshot(1)
    assert dict(table) == {"a": 1}


def test_deleting_a_middle_snapshot_merges_its_changes_into_the_one_before():
    registry = SnapshotRegistry()
    table = TimelineHashMap(registry)
    table["a"] = 1
    registry.get_or_create_snapshot(1)
    table["b"] = 2           # saved in snapshot 1: b was absent
    registry.get_or_create_snapshot(2)
    table["a"] = 10          # saved in snapshot 2 only: a was 1
    registry.get_or_create_snapshot(3)

    registry.delete_snapshot(2)

    assert registry.epochs_list() == [1, 3]
    assert table.get_at("a", 1) == 1
    assert not table.contains_at("b", 1)
    registry.revert_to_snapshot(1)
    assert dict(table) == {"a": 1}


def test_deleting_the_oldest_snapshot_drops_its_deltas():
    registry = SnapshotRegistry()
    table = TimelineHashMap(registry)
    registry.get_or_create_snapshot(1)
    table["a"] = 1
    snapshot = registry.get_snapshot(1)
    assert snapshot.get_delta(table) is not None
    registry.delete_snapshot(1)
    assert snapshot.get_delta(table) is None
    assert registry.epochs_list() == []


def test_delete_snapshots_up_to_deletes_only_the_epochs_below():
    registry = SnapshotRegistry()
    for epoch in (1, 3, 5, 7):
        registry.get_or_create_snapshot(epoch)
    registry.delete_snapshots_up_to(5)
    assert registry.epochs_list() == [5, 7]
    registry.delete_snapshots_up_to(6)
    assert registry.epochs_list() == [7]
    registry.delete_snapshots_up_to(LATEST_EPOCH)
    assert registry.epochs_list() == []


def test_a_snapshot_holds_only_what_changed_after_it_and_deleting_it_lets_that_go():
    registry = SnapshotRegistry()
    table = TimelineHashMap(registry)
    for i in range(1000):
        table[i] = i
    registry.get_or_create_snapshot(1)
    for _ in range(5):
        table[7] = -1        # the first write copies, the rest find the key saved already
    tier = registry.get_snapshot(1).get_delta(table)
    assert tier.values == {7: 7}
    assert tier.size == 1000
    snapshot = registry.get_snapshot(1)
    registry.delete_snapshots_up_to(2)
    assert snapshot.get_delta(table) is None


def test_reset_empties_every_object_and_drops_every_snapshot():
    registry = SnapshotRegistry()
    table = TimelineHashMap(registry)
    members = TimelineHashSet(registry)
    state = TimelineObject(registry, "Empty")
    counter = TimelineInteger(registry)
    table["a"] = 1
    registry.get_or_create_snapshot(1)
    members.add("m")
    state.set("Stable")
    counter.increment()

    registry.reset()

    assert registry.epochs_list() == []
    assert len(table) == 0 and len(members) == 0
    assert state.get() == "Empty" and counter.get() == 0


def test_the_registry_does_not_keep_dead_objects_alive():
    registry = SnapshotRegistry()
    table = TimelineHashMap(registry)
    table["a"] = 1
    del table
    gc.collect()
    assert len(registry._revertables) == 0
    registry.reset()  # nothing left to reset, and no error


def test_snapshot_merge_from_takes_whole_deltas_it_lacks_and_keeps_its_own_values():
    registry = SnapshotRegistry()
    table = TimelineHashMap(registry)
    other = TimelineHashMap(registry)
    older = registry.get_or_create_snapshot(1)
    other["x"] = 1           # older saves x: absent
    newer = registry.get_or_create_snapshot(2)
    table["a"] = "new"       # newer saves a: absent
    other["x"] = 2           # newer saves x: 1
    table_tier = newer.get_delta(table)

    older.merge_from(newer)

    assert older.get_delta(table) is table_tier
    assert older.get_delta(other).values == {"x": ABSENT}
    assert newer.get_delta(table) is None and newer.get_delta(other) is None
