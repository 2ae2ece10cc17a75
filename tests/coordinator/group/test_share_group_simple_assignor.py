"""The share groups' SimpleAssignor (and its homogeneous and heterogeneous builders): partitions shared
by ceil(members / partitions) readers, members given about the same number, stickiness, topics read
by some members only, and only assignable (initialized) partitions handed out. Seeded properties over
random groups: a fresh assignment is exactly balanced, and a group that grows and shrinks one step at
a time never leaves a partition unread."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka.coordinator.group.assignor.consumer_group_partition_assignor import MemberSubscription
from kafka.coordinator.group.assignor.share_group_partition_assignor import (
    GroupSpec,
    PartitionAssignorError,
    SubscriptionType,
)
from kafka.coordinator.group.assignor.simple_assignor import SimpleAssignor

pytestmark = pytest.mark.fast

T1, T2, T3 = uuid.UUID(int=1), uuid.UUID(int=2), uuid.UUID(int=3)
HOMOGENEOUS, HETEROGENEOUS = SubscriptionType.HOMOGENEOUS, SubscriptionType.HETEROGENEOUS


def assign(subscriptions: dict[str, set], counts: dict[uuid.UUID, int], current=None, assignable=None,
           subscription_type=HOMOGENEOUS):
    current = current or {}
    if assignable is None:
        assignable = {t: frozenset(range(n)) for t, n in counts.items()}
    members = {m: MemberSubscription(frozenset(topics), current.get(m, {}))
               for m, topics in subscriptions.items()}
    return SimpleAssignor().assign(GroupSpec(members, subscription_type, assignable), counts)


def readers(assignment, topic_id, partition) -> int:
    return sum(partition in a.get(topic_id, ()) for a in assignment.values())


def test_as_many_partitions_as_members_or_more_is_a_balanced_split():
    result = assign({"a": {T1}, "b": {T1}, "c": {T1}}, {T1: 7})
    assert sorted(len(a[T1]) for a in result.values()) == [2, 2, 3]
    assert all(readers(result, T1, p) == 1 for p in range(7))


@pytest.mark.parametrize(("members", "partitions", "sharing", "counts"), [
    (5, 2, 3, [1, 1, 1, 1, 2]),  # each partition read by ceil(5/2) = 3 members
    (3, 1, 3, [1, 1, 1]),        # one partition: everybody reads it
    (4, 3, 2, [1, 1, 2, 2]),     # 2 readers each: 6 readings over 4 members
    (2, 2, 1, [1, 1]),
])
def test_more_members_than_partitions_share_them(members, partitions, sharing, counts):
    result = assign({f"m{i}": {T1} for i in range(members)}, {T1: partitions})
    assert [readers(result, T1, p) for p in range(partitions)] == [sharing] * partitions
    assert sorted(len(a.get(T1, ())) for a in result.values()) == counts


def test_it_is_sticky_a_new_member_takes_from_the_ones_with_too_many():
    first = assign({"a": {T1}, "b": {T1}, "c": {T1}}, {T1: 12})
    second = assign({"a": {T1}, "b": {T1}, "c": {T1}, "d": {T1}}, {T1: 12}, current=first)
    for member in ("a", "b", "c"):
        kept = second[member][T1]
        assert kept <= first[member][T1] and len(kept) == 3, "kept three of its four"
    assert second["d"][T1] == frozenset(range(12)) - frozenset().union(*(second[m][T1] for m in "abc"))


def test_a_topic_nobody_reads_any_more_is_revoked_when_all_read_the_same():
    first = assign({"a": {T1, T2}}, {T1: 2, T2: 2})
    second = assign({"a": {T1}}, {T1: 2, T2: 2}, current=first)
    assert second == {"a": {T1: frozenset({0, 1})}}


def test_members_reading_different_topics_share_each_among_its_readers():
    result = assign({"a": {T1}, "b": {T1, T2}, "c": {T2}, "d": set()}, {T1: 3, T2: 1},
                    subscription_type=HETEROGENEOUS)
    assert sorted(len(result[m].get(T1, ())) for m in "ab") == [1, 2] and T1 not in result["c"]
    assert result["b"][T2] == result["c"][T2] == frozenset({0}), "one partition, two readers: both read it"
    assert result["d"] == {}


def test_a_member_that_stops_reading_a_topic_others_read_gives_it_up():
    first = assign({"a": {T1, T2}, "b": {T1}}, {T1: 2, T2: 1}, subscription_type=HETEROGENEOUS)
    second = assign({"a": {T2}, "b": {T1}}, {T1: 2, T2: 1}, current=first, subscription_type=HETEROGENEOUS)
    assert second == {"a": {T2: frozenset({0})}, "b": {T1: frozenset({0, 1})}}


def test_only_assignable_partitions_are_handed_out():
    result = assign({"a": {T1}, "b": {T1}}, {T1: 4}, assignable={T1: frozenset({1, 3})})
    assert sorted(p for a in result.values() for p in a.get(T1, ())) == [1, 3]
    assert assign({"a": {T1}}, {T1: 4}, assignable={}) == {"a": {}}, "none initialized yet: nothing"


def test_no_members_or_no_topics_is_nothing_and_an_unknown_topic_an_error():
    assert assign({}, {T1: 2}) == {}
    assert assign({"a": set(), "b": set()}, {T1: 2}) == {}
    with pytest.raises(PartitionAssignorError, match="doesn't exist in the topic metadata"):
        assign({"a": {T3}}, {T1: 2}, assignable={T3: frozenset({0})})


@settings(max_examples=60, deadline=None)
@given(members=st.integers(1, 12), partitions=st.integers(1, 12))
def test_a_fresh_assignment_gives_every_partition_its_sharing_and_every_member_its_share(members, partitions):
    result = assign({f"m{i:02}": {T1} for i in range(members)}, {T1: partitions})
    sharing = -(-members // partitions)
    assert [readers(result, T1, p) for p in range(partitions)] == [sharing] * partitions
    counts = [len(a.get(T1, ())) for a in result.values()]
    assert max(counts) - min(counts) <= 1


@settings(max_examples=40, deadline=None)
@given(partitions=st.integers(1, 10), steps=st.lists(st.integers(-1, 3), min_size=1, max_size=15))
def test_a_group_changing_one_step_at_a_time_never_leaves_a_partition_unread(partitions, steps):
    members, current, joined = [], {}, 0
    for step in steps:
        if step < 0 and members:
            members.pop(0)
        for _ in range(max(step, 0)):
            members.append(f"m{joined:03}")
            joined += 1
        if not members:
            continue
        current = assign({m: {T1} for m in members}, {T1: partitions}, current=current)
        assert {p for a in current.values() for p in a.get(T1, ())} == set(range(partitions))
