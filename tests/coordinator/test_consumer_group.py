"""KIP-848 consumer groups on a mock clock (ConsumerGroupManager, ConsumerGroup, the assignors and
CurrentAssignmentBuilder), without a broker: epochs, revoke-before-assign, the errors Kafka gives,
regex subscriptions, new partitions, session timeouts; and a seeded simulation of members joining,
leaving and heartbeating in random order that checks no partition is ever held by two members."""

from __future__ import annotations

import random
import uuid

import pytest

from kafka.coordinator.assignor.consumer_group_partition_assignor import MemberSubscription
from kafka.coordinator.assignor.range_assignor import RangeAssignor
from kafka.coordinator.assignor.uniform_assignor import UniformAssignor
from kafka.coordinator.consumer_group_manager import (
    ConsumerGroupConfig,
    ConsumerGroupManager,
    HeartbeatRequest,
)
from kafka.coordinator.consumer_group_records import decode_key, replay
from kafka.coordinator.group_metadata import GroupMetadata, GroupState
from kafka.protocol.errors import Errors
from kafka.utils.time import MockTime

pytestmark = pytest.mark.fast

ORDERS, CLICKS = uuid.UUID(int=1), uuid.UUID(int=2)


class Groups:
    """The classic GroupMetadataManager's part the manager uses: this broker coordinates every group."""

    def __init__(self) -> None:
        self.groups: dict[str, GroupMetadata] = {}
        self.log: list[tuple[bytes, bytes | None]] = []  # what __consumer_offsets would hold, in order

    def append_group_records(self, group_id, entries, callback):
        self.log.extend(entries)
        callback(None)

    def validate_group_status(self, group_id, allow_empty_id):
        return None

    def get_group(self, group_id):
        return self.groups.get(group_id)

    def add_group(self, group):
        return self.groups.setdefault(group.group_id, group)

    def partition_for(self, group_id):
        return 0


def manager(topics=None, **config) -> tuple[ConsumerGroupManager, MockTime, dict]:
    time = MockTime()
    topics = {"orders": (ORDERS, 12)} if topics is None else topics
    m = ConsumerGroupManager(ConsumerGroupConfig(**config), Groups(), time)
    m.topics_image = lambda: topics
    return m, time, topics


def heartbeat(m, request, client_id="client", client_host="/127.0.0.1") -> dict:
    """The answer, which comes through the callback: at once here, since the fake log commits at once."""
    answers: list[dict] = []
    m.consumer_group_heartbeat(request, client_id, client_host, answers.append)
    assert len(answers) == 1
    return answers[0]


def join(m, member_id, topics=("orders",), regex=None, assignor=None, group="g"):
    return heartbeat(m, HeartbeatRequest(
        group, member_id, 0, rebalance_timeout_ms=30000, subscribed_topic_names=list(topics) if topics else None,
        subscribed_topic_regex=regex, server_assignor=assignor, topic_partitions={}))


def beat(m, member_id, epoch, owned, group="g"):
    return heartbeat(m, HeartbeatRequest(group, member_id, epoch, topic_partitions=owned))


def owned_of(response, current):
    """What a client holds after this answer: the assignment when one came, else what it had."""
    if response["assignment"] is None:
        return current
    return {t["topic_id"]: frozenset(t["partitions"]) for t in response["assignment"]["topic_partitions"]}


def count(owned):
    return sum(len(p) for p in owned.values())


def test_three_members_share_twelve_partitions_and_a_fourth_takes_three_after_revocation():
    m, _, _ = manager()
    held, epochs = {}, {}
    for member in ("a", "b", "c"):
        r = join(m, member)
        held[member], epochs[member] = owned_of(r, {}), r["member_epoch"]
    for _ in range(3):  # each one converges on its own heartbeats
        for member in ("a", "b", "c"):
            r = beat(m, member, epochs[member], held[member])
            held[member], epochs[member] = owned_of(r, held[member]), r["member_epoch"]
    assert sorted(count(h) for h in held.values()) == [4, 4, 4]
    group = m.consumer_group("g")
    assert (str(group.state), group.group_epoch, group.assignment_epoch) == ("Stable", 3, 3)

    r = join(m, "d")
    assert r["member_epoch"] == 4 and owned_of(r, {}) == {}, "nothing is free yet: the others still hold it all"
    held["d"], epochs["d"] = {}, 4
    assert str(group.state) == "Reconciling"
    r = beat(m, "a", epochs["a"], held["a"])  # asked to give one back, at its old epoch
    assert r["member_epoch"] == 3 and count(owned_of(r, held["a"])) == 3
    held["a"] = owned_of(r, held["a"])
    r = beat(m, "d", 4, {})
    assert owned_of(r, {}) == {}, "a has not acknowledged the revocation yet"
    r = beat(m, "a", 3, held["a"])  # the ack: no longer lists it
    assert r["member_epoch"] == 4
    r = beat(m, "d", 4, {})
    assert count(owned_of(r, {})) == 1, "given to d only once a let it go"


def test_errors_kafka_gives():
    m, _, _ = manager()
    join(m, "a")
    assert beat(m, "a", 5, {})["error_code"] == Errors.FENCED_MEMBER_EPOCH
    assert beat(m, "nobody", 1, {})["error_code"] == Errors.UNKNOWN_MEMBER_ID
    assert join(m, "b", assignor="sticky")["error_code"] == Errors.UNSUPPORTED_ASSIGNOR
    assert join(m, "b", topics=(), regex="orders(")["error_code"] == Errors.INVALID_REGULAR_EXPRESSION
    assert join(m, "", group="")["error_code"] == Errors.INVALID_REQUEST
    bad = heartbeat(m, HeartbeatRequest("g", "b", 0, rebalance_timeout_ms=-1, subscribed_topic_names=["orders"],
                                        topic_partitions={}), "c", "h")
    assert bad["error_code"] == Errors.INVALID_REQUEST, "the first heartbeat must carry a rebalance timeout"
    m.group_manager.add_group(GroupMetadata("classic", GroupState.STABLE, MockTime()))
    assert join(m, "x", group="classic")["error_code"] == Errors.GROUP_ID_NOT_FOUND


def test_a_lost_response_is_forgiven_at_the_previous_epoch():
    m, _, _ = manager()
    r = join(m, "a")
    held = owned_of(r, {})
    join(m, "b")  # epoch 2; a must revoke half
    r = beat(m, "a", 1, held)
    held = {t: p for t, p in owned_of(r, held).items()}
    r = beat(m, "a", 1, held)  # revoked: a moves to epoch 2 ...
    assert r["member_epoch"] == 2
    # ... but suppose that answer was lost: a comes back at 1 owning a subset of its assignment
    assert beat(m, "a", 1, held)["error_code"] == Errors.NONE
    assert beat(m, "a", 0 - 0 + 7, held)["error_code"] == Errors.FENCED_MEMBER_EPOCH


def test_regex_subscription_and_new_topics_bump_the_group_epoch():
    topics = {"orders": (ORDERS, 2)}
    m, _, topics = manager(topics)
    r = join(m, "a", topics=(), regex="ord.*|cl.*")
    assert count(owned_of(r, {})) == 2
    topics["clicks"] = (CLICKS, 3)  # a topic created that the regex matches
    r = beat(m, "a", r["member_epoch"], owned_of(r, {}))
    assert r["member_epoch"] == 2 and count(owned_of(r, {})) == 5
    topics["orders"] = (ORDERS, 4)  # partitions added
    r = beat(m, "a", 2, owned_of(r, {}))
    assert r["member_epoch"] == 3 and count(owned_of(r, {})) == 7
    topics["__consumer_offsets"] = (uuid.UUID(int=9), 50)
    r = join(m, "b", topics=(), regex=".*")
    assert m.consumer_group("g").resolved_subscriptions["b"] == {"orders", "clicks"}, "internal topics left out"


def test_session_timeout_removes_a_silent_member_and_frees_its_partitions():
    m, time, _ = manager(session_timeout_ms=3000)
    ra = join(m, "a")
    join(m, "b")
    time.advance(2000)
    beat(m, "a", ra["member_epoch"], owned_of(ra, {}))
    time.advance(1500)
    m.expire_members(time.milliseconds())
    group = m.consumer_group("g")
    assert set(group.members) == {"a"} and group.group_epoch == 3
    assert sum(len(p) for p in group.target_assignment["a"].values()) == 12


def test_offset_commit_checks_the_member_epoch():
    m, _, _ = manager()
    r = join(m, "a")
    group = m.consumer_group("g")
    assert group.validate_offset_commit("a", r["member_epoch"], False, 9) is None
    assert group.validate_offset_commit("a", r["member_epoch"] - 1, False, 9) == Errors.STALE_MEMBER_EPOCH
    assert group.validate_offset_commit("a", r["member_epoch"] + 1, False, 9) == Errors.FENCED_MEMBER_EPOCH
    assert group.validate_offset_commit("zz", 1, False, 9) == Errors.UNKNOWN_MEMBER_ID
    assert group.validate_offset_commit("a", r["member_epoch"], False, 8) == Errors.UNSUPPORTED_VERSION
    assert group.validate_offset_commit("", -1, False, 9) == Errors.UNKNOWN_MEMBER_ID, "only an empty group: simple commits"
    assert group.validate_offset_fetch(None, -1) is None and group.validate_offset_fetch("a", 0) == Errors.STALE_MEMBER_EPOCH


def test_a_transactional_commit_checks_the_member_epoch_its_own_way():
    """TxnOffsetCommit (is_transactional): any version, any other epoch stale (ILLEGAL_GENERATION on the
    wire before v6), and a request naming no member at all accepted while the group has members."""
    m, _, _ = manager()
    epoch = join(m, "a")["member_epoch"]
    group = m.consumer_group("g")
    assert group.validate_offset_commit("a", epoch, True, 3) is None, "no OffsetCommit v9 rule"
    assert group.validate_offset_commit("a", epoch + 1, True, 3) == Errors.STALE_MEMBER_EPOCH
    assert group.validate_offset_commit("a", epoch - 1, True, 3) == Errors.STALE_MEMBER_EPOCH
    assert group.validate_offset_commit("a", -1, True, 3) == Errors.STALE_MEMBER_EPOCH
    assert group.validate_offset_commit("zz", epoch, True, 3) == Errors.UNKNOWN_MEMBER_ID
    assert group.validate_offset_commit("", epoch, True, 3) == Errors.UNKNOWN_MEMBER_ID
    assert group.validate_offset_commit("", -1, True, 3) is None, "a producer that knows only the group's id"
    assert group.validate_offset_commit("", -1, True, 3, group_instance_id="i") == Errors.UNKNOWN_MEMBER_ID
    beat(m, "a", -1, {})  # the member leaves: an empty group takes simple commits from anyone
    assert group.validate_offset_commit("a", -1, True, 3) is None
    assert group.validate_offset_commit("a", epoch, True, 3) == Errors.UNKNOWN_MEMBER_ID


def test_assignors():
    members = {m: MemberSubscription(frozenset({ORDERS})) for m in ("m1", "m2", "m3")}
    ranged = RangeAssignor().assign(members, {ORDERS: 8})
    assert {m: sorted(a[ORDERS]) for m, a in ranged.items()} == {
        "m1": [0, 1, 2], "m2": [3, 4, 5], "m3": [6, 7]}
    uniform = UniformAssignor().assign(members, {ORDERS: 12})
    assert sorted(len(a[ORDERS]) for a in uniform.values()) == [4, 4, 4]
    members["m4"] = MemberSubscription(frozenset({ORDERS}))
    members = {m: MemberSubscription(s.subscribed_topic_ids, uniform.get(m, {})) for m, s in members.items()}
    again = UniformAssignor().assign(members, {ORDERS: 12})
    moved = sum(len(uniform[m][ORDERS] - again[m].get(ORDERS, frozenset())) for m in uniform)
    assert sorted(len(a[ORDERS]) for a in again.values()) == [3, 3, 3, 3] and moved == 3, "sticky: only 3 move"


@pytest.mark.parametrize("seed", [random.randrange(2**32) for _ in range(20)])
def test_no_partition_is_ever_held_twice(seed):
    print(f"seed={seed}")
    rnd = random.Random(seed)
    m, time, topics = manager({"orders": (ORDERS, 7), "clicks": (CLICKS, 5)})
    held: dict[str, dict] = {}
    epochs: dict[str, int] = {}
    for _ in range(300):
        action = rnd.random()
        if action < 0.1 and len(held) < 6:
            name = f"m{rnd.randrange(100)}"
            if name not in held:
                r = join(m, name, topics=rnd.choice([("orders",), ("clicks",), ("orders", "clicks")]),
                         assignor=rnd.choice([None, "range", "uniform"]))
                held[name], epochs[name] = owned_of(r, {}), r["member_epoch"]
        elif action < 0.15 and held:
            name = rnd.choice(sorted(held))
            beat(m, name, -1, held[name])
            del held[name], epochs[name]
        elif held:
            name = rnd.choice(sorted(held))
            r = beat(m, name, epochs[name], held[name])
            assert r["error_code"] == Errors.NONE, (seed, r)
            held[name], epochs[name] = owned_of(r, held[name]), r["member_epoch"]
        every = [(t, p) for h in held.values() for t, ps in h.items() for p in ps]
        assert len(every) == len(set(every)), f"seed {seed}: a partition held by two members: {held}"
    for _ in range(4):  # quiet: everyone converges on the target
        for name in sorted(held):
            r = beat(m, name, epochs[name], held[name])
            held[name], epochs[name] = owned_of(r, held[name]), r["member_epoch"]
    group = m.consumer_group("g")
    if held:
        assert str(group.state) == "Stable", f"seed {seed}"
        assert {n: h for n, h in held.items() if h} == {n: t for n, t in group.target_assignment.items() if t}


def test_the_records_written_rebuild_the_group_on_the_next_coordinator():
    """every change is appended as Kafka's ConsumerGroup* records; replaying them (latest per key,
    tombstones delete) gives the same group, members, epochs and assignments"""
    m, time, _ = manager(session_timeout_ms=3000)
    held, epochs = {}, {}
    for member in ("a", "b", "c"):
        r = join(m, member)
        held[member], epochs[member] = owned_of(r, {}), r["member_epoch"]
    for member in ("a", "b", "a", "c"):
        r = beat(m, member, epochs[member], held[member])
        held[member], epochs[member] = owned_of(r, held[member]), r["member_epoch"]
    beat(m, "b", -1, held["b"])  # b leaves: its records become tombstones
    latest = {}
    for key, value in m.group_manager.log:
        latest[decode_key(key)] = value
    rebuilt = replay({k: v for k, v in latest.items() if v is not None})["g"]
    group = m.consumer_group("g")
    assert (rebuilt.group_epoch, rebuilt.assignment_epoch) == (group.group_epoch, group.assignment_epoch)
    assert rebuilt.members == group.members and set(rebuilt.members) == {"a", "c"}
    assert rebuilt.target_assignment == group.target_assignment
    assert rebuilt.partition_epochs == group.partition_epochs
    loaded, _, _ = manager(session_timeout_ms=3000)
    loaded.on_groups_loaded({"g": rebuilt})
    r = beat(loaded, "a", epochs["a"], held["a"])
    assert r["error_code"] == Errors.NONE, "the member is known to the new coordinator, at its epoch"
    assert r["member_epoch"] == rebuilt.assignment_epoch == 4, "and moves on to the target b's leaving made"


def test_kafka_dump_log_names_the_records():
    """kafka-dump-log --offsets-decoder prints a consumer group's record by its Kafka name"""
    from types import SimpleNamespace

    from kafka.tools.dump_log_segments import offsets_key_and_payload
    m, _, _ = manager()
    join(m, "a")
    key, value = m.group_manager.log[0]
    assert offsets_key_and_payload(SimpleNamespace(key=key, value=value)) == (
        ' key: ConsumerGroupMetadata::group=g payload: {"epoch":1}')
    assert offsets_key_and_payload(SimpleNamespace(key=key, value=None)).endswith("payload: <DELETE>")
