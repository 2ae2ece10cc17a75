"""The three assignors on hand-made group states: who gets what, and what a cooperative rebalance revokes."""

from kafka.clients.consumer.assignors import Subscription
from kafka.clients.consumer.assignors.cooperative_sticky_assignor import CooperativeStickyAssignor
from kafka.clients.consumer.assignors.range_assignor import RangeAssignor
from kafka.clients.consumer.assignors.round_robin_assignor import RoundRobinAssignor
from kafka.utils.topic_partition import TopicPartition as TP


def _subs(*members, topics=("a",), owned=None):
    owned = owned or {}
    return {m: Subscription(list(topics), owned.get(m, []), 1) for m in members}


def test_range_gives_contiguous_ranges_per_topic_with_the_extra_to_the_first_members():
    result = RangeAssignor().assign({"a": 7, "b": 2}, _subs("m1", "m2", "m3", topics=("a", "b")))
    assert result["m1"] == [TP("a", 0), TP("a", 1), TP("a", 2), TP("b", 0)]
    assert result["m2"] == [TP("a", 3), TP("a", 4), TP("b", 1)]
    assert result["m3"] == [TP("a", 5), TP("a", 6)]


def test_round_robin_deals_partitions_in_turn_and_skips_unsubscribed_members():
    subs = {"m1": Subscription(["a", "b"]), "m2": Subscription(["a"])}
    result = RoundRobinAssignor().assign({"a": 3, "b": 2}, subs)
    assert result["m1"] == [TP("a", 0), TP("a", 2), TP("b", 0), TP("b", 1)]
    assert result["m2"] == [TP("a", 1)]


def test_cooperative_sticky_keeps_owned_partitions_and_balances():
    owned = {"m1": [TP("a", p) for p in range(6)]}
    first = CooperativeStickyAssignor().assign({"a": 6}, _subs("m1", "m2", owned=owned))
    # m2 is new: m1 must give up 3, but in this round they are only revoked -- nobody gets them yet.
    assert len(first["m1"]) == 3 and set(first["m1"]) < set(owned["m1"])
    assert first["m2"] == []
    # After m1 revoked them, the follow-up rebalance hands them to m2.
    second = CooperativeStickyAssignor().assign({"a": 6}, _subs("m1", "m2", owned={"m1": first["m1"]}))
    assert second["m1"] == first["m1"]
    assert sorted(second["m2"]) == sorted(set(owned["m1"]) - set(first["m1"]))


def test_cooperative_sticky_spreads_a_departed_members_partitions():
    owned = {"m1": [TP("a", 0), TP("a", 1)], "m2": [TP("a", 2), TP("a", 3)]}  # m3 (a4, a5) has left
    result = CooperativeStickyAssignor().assign({"a": 6}, _subs("m1", "m2", owned=owned))
    assert set(owned["m1"]) <= set(result["m1"]) and set(owned["m2"]) <= set(result["m2"])
    assert sorted(result["m1"] + result["m2"]) == [TP("a", p) for p in range(6)]
