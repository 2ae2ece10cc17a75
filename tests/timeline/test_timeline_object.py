"""TimelineObject, TimelineInteger and TimelineLong (Kafka's TimelineObjectTest, TimelineIntegerTest,
TimelineLongTest): one value, read at each snapshot, reverted and reset."""

from __future__ import annotations

import pytest

from kafka.timeline import LATEST_EPOCH, SnapshotRegistry, TimelineInteger, TimelineLong, TimelineObject


def test_an_object_reads_at_each_snapshot_and_reverts():
    registry = SnapshotRegistry()
    state: TimelineObject[str] = TimelineObject(registry, "Empty")
    assert state.get() == "Empty"
    registry.get_or_create_snapshot(1)
    state.set("PreparingRebalance")
    state.set("CompletingRebalance")   # the second set after a snapshot saves nothing more
    registry.get_or_create_snapshot(2)
    registry.get_or_create_snapshot(3)
    state.set("Stable")

    assert [state.get_at(epoch) for epoch in (1, 2, 3, LATEST_EPOCH)] == [
        "Empty", "CompletingRebalance", "CompletingRebalance", "Stable"]
    registry.delete_snapshot(2)
    assert state.get_at(1) == "Empty" and state.get_at(3) == "CompletingRebalance"
    registry.revert_to_snapshot(3)
    assert state.get() == "CompletingRebalance"
    registry.revert_to_snapshot(1)
    assert state.get() == "Empty"


def test_an_object_resets_to_its_initial_value():
    registry = SnapshotRegistry()
    state = TimelineObject(registry, 42)
    state.set(7)
    registry.reset()
    assert state.get() == 42


@pytest.mark.parametrize("counter_class", [TimelineInteger, TimelineLong])
def test_a_counter_starts_at_zero_counts_reads_at_snapshots_and_reverts(counter_class):
    registry = SnapshotRegistry()
    counter = counter_class(registry)
    assert counter.get() == 0
    counter.increment()
    registry.get_or_create_snapshot(1)
    counter.increment()
    counter.increment()
    registry.get_or_create_snapshot(2)
    counter.decrement()
    counter.set(2 ** 40)   # a TimelineLong's range; a Python int has any
    assert [counter.get_at(epoch) for epoch in (1, 2, LATEST_EPOCH)] == [1, 3, 2 ** 40]
    registry.revert_to_snapshot(2)
    assert counter.get() == 3
    registry.reset()
    assert counter.get() == 0
