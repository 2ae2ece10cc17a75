"""KIP-848 consumer groups in a shard (ConsumerGroupManager, ConsumerGroup, the assignors and
CurrentAssignmentBuilder) over a real SnapshotRegistry and MockTime (shard_harness.py): epochs,
revoke-before-assign, the errors Kafka gives, regex subscriptions, new partitions, session and
rebalance timers; a failed append reverted; and the rule that replaying the records written gives
the same groups, checked after every step of a seeded run of members joining, leaving and heartbeating."""

from __future__ import annotations

import os
import random

import pytest

from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.group.assignor.consumer_group_partition_assignor import MemberSubscription
from kafka.coordinator.group.assignor.range_assignor import RangeAssignor
from kafka.coordinator.group.assignor.uniform_assignor import UniformAssignor
from kafka.coordinator.group.consumer_group_manager import HeartbeatRequest, session_timeout_key
from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition
from tests.coordinator.group.shard_harness import CLICKS, ORDERS, Config, Shard, SimpleGroup

pytestmark = pytest.mark.fast


def heartbeat(shard, request, fail=False):
    """The answer, or for a refused request an error answer as the service would send it."""
    result = shard.write(lambda: shard.consumer_groups.consumer_group_heartbeat(request, "client",
                                                                                "/127.0.0.1"),
                         fail=fail)
    if isinstance(result, ApiError):
        return dict(error_code=result.error, error_message=result.message, member_id=None, member_epoch=-1,
                    assignment=None)
    if isinstance(result, Errors):
        return dict(error_code=result, member_id=None, member_epoch=-1, assignment=None)
    return result


def join(shard, member_id, topics=("orders",), regex=None, assignor=None, group="g", fail=False):
    return heartbeat(shard, HeartbeatRequest(
        group, member_id, 0, rebalance_timeout_ms=30000, subscribed_topic_names=list(topics) if topics
        else None,
        subscribed_topic_regex=regex, server_assignor=assignor, topic_partitions={}), fail=fail)


def beat(shard, member_id, epoch, owned, group="g"):
    return heartbeat(shard, HeartbeatRequest(group, member_id, epoch, topic_partitions=owned))


def owned_of(response, current):
    """What a client holds after this answer: the assignment when one came, else what it had."""
    if response["assignment"] is None:
        return current
    return {t["topic_id"]: frozenset(t["partitions"]) for t in response["assignment"]["topic_partitions"]}


def count(owned):
    return sum(len(p) for p in owned.values())


def assert_replay_gives_the_same_groups(shard):
    fresh = shard.reload()
    assert consumer_groups(fresh) == consumer_groups(shard)


def consumer_groups(shard) -> dict:
    return {g.group_id: g for g in shard.consumer_groups.consumer_groups()}


def test_three_members_share_twelve_partitions_and_a_fourth_takes_three_after_revocation():
    shard = Shard()
    held, epochs = {}, {}
    for member in ("a", "b", "c"):
        r = join(shard, member)
        held[member], epochs[member] = owned_of(r, {}), r["member_epoch"]
    for _ in range(3):
        for member in ("a", "b", "c"):
            r = beat(shard, member, epochs[member], held[member])
            held[member], epochs[member] = owned_of(r, held[member]), r["member_epoch"]
    assert sorted(count(h) for h in held.values()) == [4, 4, 4]
    group = shard.consumer_groups.consumer_group("g")
    assert (str(group.state), group.group_epoch, group.assignment_epoch) == ("Stable", 3, 3)

    r = join(shard, "d")
    assert r["member_epoch"] == 4 and owned_of(r,
                                               {}) == {}, "nothing is free yet: the others still hold it all"
    assert str(shard.consumer_groups.consumer_group("g").state) == "Reconciling"
    r = beat(shard, "a", epochs["a"], held["a"])  # asked to give one back, at its old epoch
    assert r["member_epoch"] == 3 and count(owned_of(r, held["a"])) == 3
    held["a"] = owned_of(r, held["a"])
    assert shard.timer.is_scheduled("rebalance-timeout-g-a"), "it must revoke within its rebalance timeout"
    assert owned_of(beat(shard, "d", 4, {}), {}) == {}, "a has not acknowledged the revocation yet"
    r = beat(shard, "a", 3, held["a"])  # the ack: no longer lists it
    assert r["member_epoch"] == 4 and not shard.timer.is_scheduled("rebalance-timeout-g-a")
    assert count(owned_of(beat(shard, "d", 4, {}), {})) == 1, "given to d only once a let it go"
    assert_replay_gives_the_same_groups(shard)


def test_errors_kafka_gives():
    shard = Shard()
    join(shard, "a")
    assert beat(shard, "a", 5, {})["error_code"] == Errors.FENCED_MEMBER_EPOCH
    assert beat(shard, "nobody", 1, {})["error_code"] == Errors.UNKNOWN_MEMBER_ID
    assert join(shard, "b", assignor="sticky")["error_code"] == Errors.UNSUPPORTED_ASSIGNOR
    assert join(shard, "b", topics=(), regex="orders(")["error_code"] == Errors.INVALID_REGULAR_EXPRESSION
    assert join(shard, "", group="")["error_code"] == Errors.INVALID_REQUEST
    bad = heartbeat(shard,
                    HeartbeatRequest("g", "b", 0, rebalance_timeout_ms=-1, subscribed_topic_names=["orders"],
                                     topic_partitions={}))
    assert bad["error_code"] == Errors.INVALID_REQUEST, "the first heartbeat must carry a rebalance timeout"
    assert beat(shard, "x", 1, {}, group="unknown")["error_code"] == Errors.GROUP_ID_NOT_FOUND


def test_a_classic_group_keeps_its_id_and_an_empty_one_is_replaced():
    shard = Shard()

    class Busy(SimpleGroup):
        def is_empty(self):
            return False

    shard.groups["classic"] = Busy("classic")
    r = join(shard, "x", group="classic")
    assert (r["error_code"], r["error_message"]) == (Errors.GROUP_ID_NOT_FOUND,
                                                     "Group classic is not a consumer group.")
    shard.groups["simple"] = SimpleGroup("simple")  # a group that only held offsets
    assert join(shard, "x", group="simple")["error_code"] == Errors.NONE
    assert shard.consumer_groups.consumer_group("simple") is not None
    assert_replay_gives_the_same_groups(shard)


def test_a_lost_response_is_forgiven_at_the_previous_epoch():
    shard = Shard()
    held = owned_of(join(shard, "a"), {})
    join(shard, "b")  # epoch 2; a must revoke half
    r = beat(shard, "a", 1, held)
    held = owned_of(r, held)
    r = beat(shard, "a", 1, held)  # revoked: a moves to epoch 2 ...
    assert r["member_epoch"] == 2
    # ... but suppose that answer was lost: a comes back at 1 owning a subset of its assignment
    assert beat(shard, "a", 1, held)["error_code"] == Errors.NONE
    assert beat(shard, "a", 7, held)["error_code"] == Errors.FENCED_MEMBER_EPOCH


def test_a_failed_append_is_reverted_and_the_client_carries_on_from_its_previous_epoch():
    shard = Shard()
    a = join(shard, "a")
    held = owned_of(a, {})
    before = shard.consumer_groups.consumer_group("g")
    b = join(shard, "b", fail=True)
    assert b["error_code"] == Errors.NOT_LEADER_OR_FOLLOWER
    assert shard.consumer_groups.consumer_group("g") is before, "the group as it was before b's join"
    r = beat(shard, "a", 1, held)
    assert r["error_code"] == Errors.NONE and r["member_epoch"] == 1 and r["assignment"] is None
    assert_replay_gives_the_same_groups(shard)


def test_a_failed_join_of_a_new_group_leaves_nothing():
    shard = Shard()
    assert join(shard, "a", fail=True)["error_code"] == Errors.NOT_LEADER_OR_FOLLOWER
    assert "g" not in shard.groups


def test_regex_subscription_and_new_topics_bump_the_group_epoch():
    shard = Shard(topics={"orders": (ORDERS, 2)})
    r = join(shard, "a", topics=(), regex="ord.*|cl.*")
    assert count(owned_of(r, {})) == 2
    shard.topics["clicks"] = (CLICKS, 3)  # a topic created that the regex matches
    r = beat(shard, "a", r["member_epoch"], owned_of(r, {}))
    assert r["member_epoch"] == 2 and count(owned_of(r, {})) == 5
    shard.topics["orders"] = (ORDERS, 4)  # partitions added
    r = beat(shard, "a", 2, owned_of(r, {}))
    assert r["member_epoch"] == 3 and count(owned_of(r, {})) == 7
    shard.topics["__consumer_offsets"] = (ORDERS, 50)
    join(shard, "b", topics=(), regex=".*")
    assert shard.consumer_groups.consumer_group("g").resolved_subscriptions["b"] == {"orders", "clicks"}, \
        "internal topics left out"
    assert_replay_gives_the_same_groups(shard)


def test_session_timeout_removes_a_silent_member_and_frees_its_partitions():
    shard = Shard(config=Config(consumer_group_session_timeout_ms=3000))
    ra = join(shard, "a")
    join(shard, "b")
    shard.time.advance(2000)
    beat(shard, "a", ra["member_epoch"], owned_of(ra, {}))
    shard.time.advance(1500)
    shard.fire_timers()
    group = shard.consumer_groups.consumer_group("g")
    assert set(group.members) == {"a"} and group.group_epoch == 3
    assert count(group.target_assignment["a"]) == 12
    assert not shard.timer.is_scheduled(session_timeout_key("g", "b"))
    assert_replay_gives_the_same_groups(shard)


def test_a_member_that_does_not_revoke_in_time_is_fenced():
    shard = Shard()
    held = owned_of(join(shard, "a"), {})
    join(shard, "b")
    beat(shard, "a", 1, held)  # asked to revoke; it never acknowledges
    shard.time.advance(30_000)
    shard.fire_timers()
    assert set(shard.consumer_groups.consumer_group("g").members) == {"b"}


def test_a_leave_writes_tombstones_and_the_loaded_coordinator_knows_the_rest():
    shard = Shard()
    held, epochs = {}, {}
    for member in ("a", "b", "c"):
        r = join(shard, member)
        held[member], epochs[member] = owned_of(r, {}), r["member_epoch"]
    for member in ("a", "b", "a", "c"):
        r = beat(shard, member, epochs[member], held[member])
        held[member], epochs[member] = owned_of(r, held[member]), r["member_epoch"]
    left = beat(shard, "b", -1, held["b"])
    assert (left["error_code"], left["member_epoch"]) == (Errors.NONE, -1)
    fresh = shard.reload()
    assert consumer_groups(fresh) == consumer_groups(shard)
    rebuilt = fresh.consumer_groups.consumer_group("g")
    assert set(rebuilt.members) == {"a", "c"}
    assert fresh.timer.is_scheduled(session_timeout_key("g", "a")), "members get a session from the load"
    r = beat(fresh, "a", epochs["a"], held["a"])
    assert r["error_code"] == Errors.NONE and r["member_epoch"] == rebuilt.assignment_epoch == 4


def test_a_snapshot_revert_takes_the_group_back():
    shard = Shard()
    join(shard, "a")
    shard.registry.idempotent_create_snapshot(shard.last_written)
    mark = shard.last_written
    join(shard, "b")
    shard.registry.revert_to_snapshot(mark)
    assert set(shard.consumer_groups.consumer_group("g").members) == {"a"}


def test_reads_at_the_committed_offset_do_not_see_a_join_not_yet_committed():
    shard = Shard()
    join(shard, "a")
    shard.commit()
    join(shard, "b")
    committed = shard.consumer_groups.consumer_group("g", shard.last_committed)
    assert set(committed.members) == {"a"}
    (described,) = shard.consumer_groups.consumer_group_describe(["g"], shard.last_committed)
    assert [m["member_id"] for m in described["members"]] == ["a"] and described["assignor_name"] == "uniform"
    (unknown,) = shard.consumer_groups.consumer_group_describe(["nope"])
    assert unknown["error_code"] == Errors.GROUP_ID_NOT_FOUND
    assert shard.consumer_groups.count_by_state()["Reconciling"] == 1


def test_the_group_validates_offset_commits_and_deletes():
    shard = Shard()
    epoch = join(shard, "a")["member_epoch"]
    group = shard.consumer_groups.consumer_group("g")

    def error_of(*args, partition=("orders", 0)):
        """The request's error, or the one its partition check gives (KIP-1251: an older epoch is judged
        by the epoch each partition was assigned at)."""
        try:
            validator = group.validate_offset_commit(*args)
            if validator is not None:
                validator(*partition)
        except ApiError as e:
            return e.error
        return None
    assert error_of("a", None, epoch, False, 9) is None
    assert error_of("a", None, epoch - 1, False,
                    9) == Errors.STALE_MEMBER_EPOCH, "assigned at `epoch`, not before"
    assert error_of("a", None, epoch + 1, False, 9) == Errors.STALE_MEMBER_EPOCH, "never a newer epoch"
    assert error_of("", None, -1, False, 9) == Errors.UNKNOWN_MEMBER_ID, "only an empty group: simple commits"
    assert error_of("", None, -1, True, 3) is None, "a producer that knows only the group's id"
    assert error_of("", "i", -1, True, 3) == Errors.UNKNOWN_MEMBER_ID
    assert group.is_subscribed_to_topic("orders") and not group.is_subscribed_to_topic("t")
    with pytest.raises(ApiError):
        group.validate_delete_group()
    beat(shard, "a", -1, {})
    group = shard.consumer_groups.consumer_group("g")
    group.validate_delete_group()
    assert error_of("a", None, -1, True, 3) is None, "an empty group takes simple commits from anyone"
    records = group.create_group_tombstone_records()
    shard.write(lambda: CoordinatorResult(records))
    assert "g" not in shard.groups


def test_assignors():
    members = {m: MemberSubscription(frozenset({ORDERS})) for m in ("m1", "m2", "m3")}
    ranged = RangeAssignor().assign(members, {ORDERS: 8})
    assert {m: sorted(a[ORDERS]) for m, a in ranged.items()} == {"m1": [0, 1, 2], "m2": [3, 4, 5],
                                                                 "m3": [6, 7]}
    uniform = UniformAssignor().assign(members, {ORDERS: 12})
    members["m4"] = MemberSubscription(frozenset({ORDERS}))
    members = {m: MemberSubscription(s.subscribed_topic_ids, uniform.get(m, {})) for m, s in members.items()}
    again = UniformAssignor().assign(members, {ORDERS: 12})
    moved = sum(len(uniform[m][ORDERS] - again[m].get(ORDERS, frozenset())) for m in uniform)
    assert sorted(len(a[ORDERS]) for a in again.values()) == [3, 3, 3,
                                                              3] and moved == 3, "sticky: only 3 move"


# Ten fresh seeds a run (each test id names its seed, to replay it), the same ten in every pytest-xdist
# worker of one run: they must all collect the same tests.
_SEEDS = random.Random(os.environ.get("PYTEST_XDIST_TESTRUNUID") or random.random())


@pytest.mark.parametrize("seed", [_SEEDS.randrange(2**32) for _ in range(10)])
def test_no_partition_is_ever_held_twice_and_replay_gives_the_same_groups(seed):
    print(f"seed={seed}")
    rnd = random.Random(seed)
    shard = Shard(topics={"orders": (ORDERS, 7), "clicks": (CLICKS, 5)})
    held: dict[str, dict] = {}
    epochs: dict[str, int] = {}
    for step in range(200):
        action = rnd.random()
        if action < 0.1 and len(held) < 6:
            name = f"m{rnd.randrange(100)}"
            if name not in held:
                r = join(shard, name, topics=rnd.choice([("orders",), ("clicks",), ("orders", "clicks")]),
                         assignor=rnd.choice([None, "range", "uniform"]), fail=rnd.random() < 0.1)
                if r["error_code"] == Errors.NONE:
                    held[name], epochs[name] = owned_of(r, {}), r["member_epoch"]
        elif action < 0.15 and held:
            name = rnd.choice(sorted(held))
            beat(shard, name, -1, held[name])
            del held[name], epochs[name]
        elif held:
            name = rnd.choice(sorted(held))
            r = beat(shard, name, epochs[name], held[name])
            assert r["error_code"] == Errors.NONE, (seed, r)
            held[name], epochs[name] = owned_of(r, held[name]), r["member_epoch"]
        every = [(t, p) for h in held.values() for t, ps in h.items() for p in ps]
        assert len(every) == len(set(every)), f"seed {seed}: a partition held by two members: {held}"
        if step % 20 == 0:
            assert_replay_gives_the_same_groups(shard)
    assert_replay_gives_the_same_groups(shard)


def test_offsets_and_groups_share_the_namespace():
    shard = Shard()
    shard.write(lambda: shard.offsets.commit_offset("g", "", None, -1,
                                                    {TopicPartition("t", 0): OffsetAndMetadata(1)}))
    assert isinstance(shard.groups["g"], SimpleGroup)
    join(shard, "a")
    assert shard.consumer_groups.consumer_group("g") is not None, "the simple group is replaced"
    assert shard.offsets.offsets.get("g", "t", 0).offset == 1, "its offsets stay"
    assert_replay_gives_the_same_groups(shard)
