"""TimelineHashMap (Kafka's TimelineHashMapTest): a dict at the latest epoch, the state of each
snapshot through the `_at` reads, and reverts."""

from __future__ import annotations

import pytest

from kafka.timeline import LATEST_EPOCH, SnapshotRegistry, TimelineHashMap


def test_the_latest_state_behaves_as_a_dict():
    table: TimelineHashMap[str, int] = TimelineHashMap(SnapshotRegistry(), expected_size=16)
    table["a"] = 1
    table.update(b=2, c=3)
    table["a"] = 10
    assert table["a"] == 10 and table.get("z") is None and table.get("z", 5) == 5
    assert "b" in table and "z" not in table
    assert len(table) == 3
    assert sorted(table) == ["a", "b", "c"]
    assert table == {"a": 10, "b": 2, "c": 3}
    assert table.pop("b") == 2
    assert table.setdefault("d", 4) == 4
    del table["c"]
    with pytest.raises(KeyError):
        del table["c"]
    with pytest.raises(KeyError):
        table["c"]
    assert dict(table.items()) == {"a": 10, "d": 4}
    table.clear()
    assert len(table) == 0


def test_a_change_of_size_while_iterating_raises_as_a_dicts_does():
    table = TimelineHashMap(SnapshotRegistry())
    table.update(a=1, b=2)
    with pytest.raises(RuntimeError):
        for key in table:
            table[key + "!"] = 0


def test_reads_at_each_snapshot_see_the_state_of_then():
    registry = SnapshotRegistry()
    table = TimelineHashMap(registry)
    table["a"] = 1
    registry.get_or_create_snapshot(1)
    table["a"] = 2
    table["b"] = 2
    registry.get_or_create_snapshot(2)
    del table["a"]
    table["c"] = 3
    registry.get_or_create_snapshot(3)

    assert table.get_at("a", 1) == 1 and table.get_at("a", 2) == 2 and table.get_at("a", 3) is None
    assert table.get_at("a", 3, "gone") == "gone"
    assert not table.contains_at("b", 1) and table.contains_at("b", 2)
    assert [table.size_at(epoch) for epoch in (1, 2, 3, LATEST_EPOCH)] == [1, 2, 2, 2]
    assert sorted(table.items_at(1)) == [("a", 1)]
    assert sorted(table.items_at(2)) == [("a", 2), ("b", 2)]
    assert sorted(table.keys_at(3)) == ["b", "c"]
    assert sorted(table.values_at(3)) == [2, 3]
    assert sorted(table.items_at(LATEST_EPOCH)) == sorted(table.items())


def test_none_is_a_value_not_an_absence():
    registry = SnapshotRegistry()
    table = TimelineHashMap(registry)
    table["a"] = None
    registry.get_or_create_snapshot(1)
    del table["a"]
    assert table.contains_at("a", 1) and table.get_at("a", 1, "default") is None
    assert table.items_at(1) == [("a", None)]


def test_revert_undoes_puts_overwrites_and_removes():
    registry = SnapshotRegistry()
    table = TimelineHashMap(registry)
    table.update(keep=1, change=2, remove=3)
    registry.get_or_create_snapshot(5)
    table["change"] = 20
    del table["remove"]
    table["add"] = 4
    registry.revert_to_snapshot(5)
    assert table == {"keep": 1, "change": 2, "remove": 3}


def test_a_map_made_after_a_snapshot_was_empty_at_it():
    registry = SnapshotRegistry()
    registry.get_or_create_snapshot(1)
    table = TimelineHashMap(registry)
    table["a"] = 1
    assert table.size_at(1) == 0 and table.items_at(1) == []
    registry.revert_to_snapshot(1)
    assert len(table) == 0


def test_changes_with_no_snapshot_are_not_saved_anywhere():
    registry = SnapshotRegistry()
    table = TimelineHashMap(registry)
    for i in range(100):
        table[i] = i
    snapshot = registry.get_or_create_snapshot(1)
    assert snapshot.get_delta(table) is None
    assert table.size_at(1) == 100
