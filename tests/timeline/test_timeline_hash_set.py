"""TimelineHashSet (Kafka's TimelineHashSetTest): a set at the latest epoch, the `_at` reads, reverts."""

from __future__ import annotations

import pytest

from kafka.timeline import LATEST_EPOCH, SnapshotRegistry, TimelineHashSet


def test_the_latest_state_behaves_as_a_set():
    members: TimelineHashSet[str] = TimelineHashSet(SnapshotRegistry(), expected_size=4)
    members.add("a")
    members.add("b")
    members.add("a")
    assert len(members) == 2 and "a" in members and "z" not in members
    assert members == {"a", "b"}
    members.discard("z")
    members.remove("b")
    with pytest.raises(KeyError):
        members.remove("b")
    members |= {"c", "d"}
    assert sorted(members) == ["a", "c", "d"]
    union = members | {"e"}
    assert type(union) is set and union == {"a", "c", "d", "e"}
    assert members & {"a", "z"} == {"a"}
    members.clear()
    assert len(members) == 0


def test_reads_at_each_snapshot_and_revert():
    registry = SnapshotRegistry()
    members = TimelineHashSet(registry)
    members.add("m1")
    registry.get_or_create_snapshot(1)
    members.add("m2")
    registry.get_or_create_snapshot(2)
    members.discard("m1")
    members.add("m3")

    assert members.contains_at("m1", 1) and not members.contains_at("m2", 1)
    assert members.contains_at("m1", 2) and not members.contains_at("m1", LATEST_EPOCH)
    assert [members.size_at(epoch) for epoch in (1, 2, LATEST_EPOCH)] == [1, 2, 2]
    assert sorted(members.items_at(1)) == ["m1"]
    assert sorted(members.items_at(2)) == ["m1", "m2"]
    assert sorted(members.items_at(LATEST_EPOCH)) == ["m2", "m3"]

    registry.revert_to_snapshot(2)
    assert members == {"m1", "m2"}
    registry.revert_to_snapshot(1)
    assert members == {"m1"}


def test_adding_what_is_there_saves_nothing():
    registry = SnapshotRegistry()
    members = TimelineHashSet(registry)
    members.add("m")
    snapshot = registry.get_or_create_snapshot(1)
    members.add("m")
    assert snapshot.get_delta(members) is None
