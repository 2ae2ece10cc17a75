"""KIP-932 share groups in a shard (ShareGroupManager, ShareGroup, ShareGroupMember, the SimpleAssignor
and the share state's partitions) over a real SnapshotRegistry and MockTime (shard_harness.py): a
member's epochs, partitions handed out only once their share state exists, sharing among more members
than partitions, leaving and session expiry, the errors Kafka 4.4 gives, ShareGroupDescribe, and the
rule that replaying the records written gives the same groups."""

from __future__ import annotations

import dataclasses
import uuid

import pytest

from kafka.coordinator.group.consumer_group_manager import HeartbeatRequest as ConsumerHeartbeat
from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.group_coordinator_records import (
    ShareGroupCurrentMemberAssignmentKey,
    ShareGroupMemberMetadataKey,
    ShareGroupMetadataKey,
    ShareGroupStatePartitionMetadataKey,
    ShareGroupTargetAssignmentMemberKey,
    ShareGroupTargetAssignmentMetadataKey,
)
from kafka.coordinator.group.share_group_manager import (
    ShareGroupHeartbeatRequest,
    throw_if_share_group_heartbeat_request_is_invalid,
)
from kafka.protocol.errors import Errors
from tests.coordinator.group.shard_harness import CLICKS, ORDERS, Config, Shard

pytestmark = pytest.mark.fast

NOW = Config(share_group_assignment_interval_ms=0)  # a new target at every change: no waiting in most tests


class Member:
    """A share consumer as its group coordinator sees it: it heartbeats with the epoch it was last given
    and keeps the partitions it was last sent. ``initialize`` stands for the persister: what the
    coordinator asked it to initialize is written as initialized, as the service does on success."""

    def __init__(self, shard: Shard, member_id: str, topics=("orders",), group: str = "g") -> None:
        self.shard, self.member_id, self.topics, self.group = shard, member_id, list(topics), group
        self.epoch = 0
        self.partitions: dict[uuid.UUID, frozenset[int]] = {}
        self.initialize_request = None

    def heartbeat(self, epoch: int, topics=None, rack_id=None, fail=False) -> dict:
        request = ShareGroupHeartbeatRequest(self.group, self.member_id, epoch, rack_id, topics)
        result = self.shard.write(lambda: self.shard.share_groups.share_group_heartbeat(request, "client",
                                                                                        "/10.0.0.1"),
                                  fail=fail)
        if isinstance(result, ApiError):
            return dict(error_code=result.error, error_message=result.message)
        if isinstance(result, Errors):
            return dict(error_code=result)
        response, self.initialize_request = result
        if response["error_code"] == Errors.NONE and epoch >= 0:
            self.epoch = response["member_epoch"]
            if response["assignment"] is not None:
                self.partitions = {t["topic_id"]: frozenset(t["partitions"])
                                   for t in response["assignment"]["topic_partitions"]}
        return response

    def join(self, **kwargs) -> dict:
        return self.heartbeat(0, self.topics, **kwargs)

    def beat(self) -> dict:
        return self.heartbeat(self.epoch)

    def leave(self) -> dict:
        return self.heartbeat(-1)

    def initialize(self) -> None:
        """The persister created the share state it was asked for."""
        request = self.initialize_request
        assert request is not None, "nothing to initialize"
        self.shard.write(lambda: self.shard.share_groups.initialize_share_group_state(request.group_id,
                                                                                       request.topic_partitions()))
        self.initialize_request = None

    def count(self, topic_id: uuid.UUID = ORDERS) -> int:
        return len(self.partitions.get(topic_id, ()))


def assert_replay_gives_the_same_groups(shard: Shard) -> Shard:
    fresh = shard.reload()
    assert fresh.share_groups.share_groups() == shard.share_groups.share_groups()
    for group in shard.share_groups.share_groups():
        assert partitions_of(fresh, group.group_id) == partitions_of(shard, group.group_id)
    return fresh


def partitions_of(shard: Shard, group_id: str) -> tuple:
    """(initializing, initialized): the share state's partitions, without the times they were asked at."""
    info = shard.share_groups.state.get(group_id)
    if info is None:
        return None
    return ({t: v.partitions for t, v in info.initializing_topics.items()},
            {t: v.partitions for t, v in info.initialized_topics.items()})


def written_keys(shard: Shard, since: int) -> list[type]:
    return [type(shard.serde.deserialize(entry[2], entry[3]).key) for entry in shard.log[since:]]


# ---------------------------------------------------------------------- joining, the share state, sharing
def test_a_member_joins_at_epoch_two_and_reads_once_the_share_state_exists():
    shard = Shard(config=NOW)
    a = Member(shard, "a")
    r = a.join()
    assert (r["error_code"], r["member_id"], r["member_epoch"], r["heartbeat_interval_ms"]) == (
        Errors.NONE, "a", 2, 5000)
    assert r["assignment"] == {"topic_partitions": []}, (
        "no partition has share state yet: nothing to hand out")
    assert written_keys(shard, 0) == [ShareGroupMemberMetadataKey, ShareGroupMetadataKey,
                                      ShareGroupTargetAssignmentMemberKey,
                                      ShareGroupTargetAssignmentMetadataKey,
                                      ShareGroupCurrentMemberAssignmentKey,
                                      ShareGroupStatePartitionMetadataKey]
    request = a.initialize_request
    assert (request.group_id, request.state_epoch) == ("g", 2)
    assert request.start_offsets == {ORDERS: {p: -1
                                              for p in range(12)}}, "-1: share.auto.offset.reset decides"
    assert partitions_of(shard, "g") == ({ORDERS: frozenset(range(12))}, {})

    r = a.beat()
    assert (r["member_epoch"], r["assignment"], a.initialize_request) == (2, None, None), \
        "still initializing: not asked again, and nothing changed"
    a.initialize_request = request
    a.initialize()
    assert partitions_of(shard, "g") == ({}, {ORDERS: frozenset(range(12))})
    r = a.beat()
    assert r["member_epoch"] == 3 and a.count() == 12, (
        "the initialized partitions are handed out at a new epoch")
    group = shard.share_groups.share_group("g")
    assert (str(group.state), group.group_epoch, group.assignment_epoch) == ("Stable", 3, 3)
    assert_replay_gives_the_same_groups(shard)


def joined_and_initialized(shard: Shard, member_ids, topics=("orders",), group="g") -> list[Member]:
    members = [Member(shard, m, topics, group) for m in member_ids]
    for member in members:
        member.join()
        if member.initialize_request is not None:
            member.initialize()
    for _ in range(2):
        for member in members:
            member.beat()
    return members


def test_three_members_share_twelve_partitions_one_reader_each():
    shard = Shard(config=NOW)
    members = joined_and_initialized(shard, ["a", "b", "c"])
    assert [m.count() for m in members] == [4, 4, 4]
    held = [m.partitions[ORDERS] for m in members]
    assert frozenset().union(*held) == frozenset(range(12)) and sum(map(len,
                                                                        held)) == 12, "each partition once"
    assert len({m.epoch for m in members}) == 1
    assert_replay_gives_the_same_groups(shard)


def test_more_members_than_partitions_share_each_partition():
    """5 members, 2 partitions: each partition is read by ceil(5/2) = 3 members, one member reads both."""
    shard = Shard(topics={"orders": (ORDERS, 2)}, config=NOW)
    members = joined_and_initialized(shard, ["a", "b", "c", "d", "e"])
    readers = {p: sum(p in m.partitions.get(ORDERS, ()) for m in members) for p in range(2)}
    assert readers == {0: 3, 1: 3}
    assert sorted(m.count() for m in members) == [1, 1, 1, 1, 2]
    one = joined_and_initialized(Shard(topics={"orders": (ORDERS, 1)}, config=NOW), ["a", "b", "c"])
    assert [m.partitions for m in one] == [{ORDERS: frozenset({0})}] * 3, "one partition: everybody reads it"
    assert_replay_gives_the_same_groups(shard)


def test_members_reading_different_topics_share_each_topic_among_its_readers():
    shard = Shard(topics={"orders": (ORDERS, 4), "clicks": (CLICKS, 1)}, config=NOW)
    a, b = joined_and_initialized(shard, ["a", "b"], topics=("orders",))
    c = Member(shard, "c", ("orders", "clicks"))
    c.join()
    c.initialize()
    for member in (a, b, c, a, b, c):
        member.beat()
    assert sorted(m.count(ORDERS) for m in (a, b, c)) == [1, 1, 2]
    assert c.partitions[CLICKS] == frozenset({0}) and CLICKS not in a.partitions, "only c reads clicks"
    assert_replay_gives_the_same_groups(shard)


def test_a_new_target_is_computed_at_most_once_per_assignment_interval():
    shard = Shard()  # group.share.assignment.interval.ms = 1000
    a, = joined_and_initialized(shard, ["a"])
    b = Member(shard, "b")
    r = b.join()
    assert r["member_epoch"] == a.epoch and b.partitions == {}, \
        "the group epoch moved, but the target was computed less than a second ago: b waits at the old target"
    group = shard.share_groups.share_group("g")
    assert group.group_epoch > group.assignment_epoch
    shard.time.sleep(1000)
    a.beat()
    b.beat()
    assert a.count() == b.count() == 6 and a.epoch == b.epoch
    assert_replay_gives_the_same_groups(shard)


def test_a_member_that_changes_its_subscription_reads_the_new_topic_once_initialized():
    shard = Shard(topics={"orders": (ORDERS, 2), "clicks": (CLICKS, 3)}, config=NOW)
    a, = joined_and_initialized(shard, ["a"])
    epoch = a.epoch
    r = a.heartbeat(a.epoch, topics=["orders", "clicks"])
    assert r["member_epoch"] == epoch + 1 and a.partitions == {ORDERS: frozenset({0, 1})}
    assert a.initialize_request.start_offsets == {CLICKS: {0: -1, 1: -1, 2: -1}}
    a.initialize()
    a.beat()
    assert a.partitions == {ORDERS: frozenset({0, 1}), CLICKS: frozenset({0, 1, 2})}
    r = a.heartbeat(a.epoch, topics=["clicks"])
    assert a.partitions == {CLICKS: frozenset({0, 1, 2})}, "it keeps only what it reads"
    assert_replay_gives_the_same_groups(shard)


def test_partitions_added_to_a_topic_bump_the_epoch_and_start_from_the_beginning():
    shard = Shard(topics={"orders": (ORDERS, 2)}, config=NOW)
    a, = joined_and_initialized(shard, ["a"])
    epoch = a.epoch
    # CreatePartitions: the metadata hash of what the group reads changes
    shard.topics = {"orders": (ORDERS, 4)}
    r = a.beat()
    assert r["member_epoch"] == epoch + 1 and a.count() == 2
    assert a.initialize_request.start_offsets == {ORDERS: {2: 0, 3: 0}}, (
        "a topic the group already reads: its new partitions are read from offset 0, "
        "not share.auto.offset.reset")
    a.initialize()
    a.beat()
    assert a.count() == 4
    assert_replay_gives_the_same_groups(shard)


def test_an_unanswered_initialization_is_asked_again_after_the_retry_interval():
    shard = Shard(config=NOW)
    a = Member(shard, "a")
    a.join()
    assert a.initialize_request is not None
    a.beat()
    assert a.initialize_request is None, "asked less than group.share.initialize.retry.interval.ms ago"
    shard.time.sleep(30_000)
    a.beat()
    assert a.initialize_request.start_offsets == {ORDERS: {p: 0 for p in range(12)}}, \
        "asked again (the topic is known now: from offset 0)"


def test_a_failed_initialization_is_forgotten_and_asked_again():
    shard = Shard(config=NOW)
    a = Member(shard, "a")
    a.join()
    request = a.initialize_request
    shard.write(lambda: shard.share_groups.uninitialize_share_group_state("g", request.topic_partitions()))
    assert partitions_of(shard, "g") == ({}, {})
    a.beat()
    assert a.initialize_request.topic_partitions() == {ORDERS: set(range(12))}
    assert_replay_gives_the_same_groups(shard)


# ---------------------------------------------------------------------- leaving and sessions
def test_a_leaving_member_is_removed_and_the_others_take_its_partitions():
    shard = Shard(config=NOW)
    a, b = joined_and_initialized(shard, ["a", "b"])
    epoch = shard.share_groups.share_group("g").group_epoch
    since = len(shard.log)
    r = b.leave()
    assert (r["error_code"], r["member_id"], r["member_epoch"], r["assignment"]) == (Errors.NONE, "b", -1,
                                                                                     None)
    assert written_keys(shard, since) == [ShareGroupCurrentMemberAssignmentKey,
                                          ShareGroupTargetAssignmentMemberKey,
                                          ShareGroupMemberMetadataKey, ShareGroupMetadataKey]
    group = shard.share_groups.share_group("g")
    assert list(group.members) == ["a"] and group.group_epoch == epoch + 1
    assert not shard.timer.is_scheduled("session-timeout-g-b")
    a.beat()
    assert a.count() == 12
    r = a.leave()
    assert r["error_code"] == Errors.NONE
    group = shard.share_groups.share_group("g")
    assert (str(group.state), group.assignment_epoch) == ("Empty", group.group_epoch), \
        "the last member going stamps the target's epoch too"
    fresh = assert_replay_gives_the_same_groups(shard)
    assert str(fresh.share_groups.share_group("g").state) == "Empty"


def test_a_silent_member_is_fenced_when_its_session_expires():
    shard = Shard(config=NOW)
    a, b = joined_and_initialized(shard, ["a", "b"])
    assert shard.timer.is_scheduled("session-timeout-g-b")
    shard.time.sleep(30_000)
    a.beat()  # a heartbeat restarts the member's session
    shard.time.sleep(15_000)  # b's 45 s are up, a's are not
    shard.fire_timers()
    assert list(shard.share_groups.share_group("g").members) == ["a"]
    assert b.beat()["error_code"] == Errors.UNKNOWN_MEMBER_ID
    a.beat()
    assert a.count() == 12
    fresh = assert_replay_gives_the_same_groups(shard)
    assert fresh.timer.is_scheduled("session-timeout-g-a"), "a loaded member gets a session from the load"


def test_a_groups_own_session_timeout_wins():
    shard = Shard(config=NOW)
    shard.share_groups.group_configs = lambda group_id: {"share.session.timeout.ms": "50000",
                                                         "share.heartbeat.interval.ms": "6000"}
    a = Member(shard, "a")
    assert a.join()["heartbeat_interval_ms"] == 6000
    shard.time.sleep(45_000)
    shard.fire_timers()
    assert "a" in shard.share_groups.share_group("g").members
    shard.time.sleep(5_000)
    shard.fire_timers()
    assert shard.share_groups.share_group("g").is_empty()


# ---------------------------------------------------------------------- epochs and errors
def test_member_epochs_as_kafka_checks_them():
    shard = Shard(config=NOW)
    a, = joined_and_initialized(shard, ["a"])
    current, previous = a.epoch, shard.share_groups.share_group("g").members["a"].previous_member_epoch
    r = a.heartbeat(current + 1)
    assert r["error_code"] == Errors.FENCED_MEMBER_EPOCH and "greater member epoch" in r["error_message"]
    r = a.heartbeat(previous)
    assert r["error_code"] == Errors.NONE, "its previous epoch: the answer was lost, not fenced"
    r = a.heartbeat(previous - 1)
    assert r["error_code"] == Errors.FENCED_MEMBER_EPOCH
    assert "does not match the previous member epoch" in r["error_message"]
    r = a.join()
    assert (r["error_code"], r["member_epoch"]) == (Errors.NONE, current), (
        "a rejoin with epoch 0 keeps the member")
    assert r["assignment"] == {"topic_partitions": [{"topic_id": ORDERS, "partitions": list(range(12))}]}


def test_errors_kafka_gives():
    shard = Shard(config=dataclasses.replace(NOW, share_group_max_size=2))
    joined_and_initialized(shard, ["a", "b"])
    r = Member(shard, "c").join()
    assert (r["error_code"], r["error_message"]) == (
        Errors.GROUP_MAX_SIZE_REACHED, "The share group has reached its maximum capacity of 2 members.")
    assert Member(shard, "nobody").heartbeat(3)["error_code"] == Errors.GROUP_MAX_SIZE_REACHED, \
        "Kafka checks the size before it looks the member up"
    Member(shard, "b").leave()
    r = Member(shard, "nobody").heartbeat(3)
    assert (r["error_code"], r["error_message"]) == (Errors.UNKNOWN_MEMBER_ID,
                                                     "Member nobody is not a member of group g.")
    assert Member(shard, "nobody").leave()["error_code"] == Errors.UNKNOWN_MEMBER_ID
    r = Member(shard, "a", group="unknown").heartbeat(3)
    assert (r["error_code"], r["error_message"]) == (Errors.GROUP_ID_NOT_FOUND,
                                                     "Share group unknown not found.")
    assert Member(shard, "a", group="unknown").leave()["error_code"] == Errors.GROUP_ID_NOT_FOUND


@pytest.mark.parametrize(("request_", "message"), [
    (ShareGroupHeartbeatRequest("g", "", 0, None, ["orders"]), "MemberId can't be empty."),
    (ShareGroupHeartbeatRequest(" ", "m", 0, None, ["orders"]), "GroupId can't be empty."),
    (ShareGroupHeartbeatRequest("g", "m", 0, "", ["orders"]), "RackId can't be empty."),
    (ShareGroupHeartbeatRequest("g", "m", 0, None, None),
     "SubscribedTopicNames must be set in first request."),
    (ShareGroupHeartbeatRequest("g", "m", 0, None, []), "SubscribedTopicNames must be set in first request."),
    (ShareGroupHeartbeatRequest("g", "m", -2), "MemberEpoch is invalid."),
])
def test_bad_fields_are_invalid_request(request_, message):
    with pytest.raises(ApiError) as refused:
        throw_if_share_group_heartbeat_request_is_invalid(request_)
    assert (refused.value.error, refused.value.message) == (Errors.INVALID_REQUEST, message)
    throw_if_share_group_heartbeat_request_is_invalid(ShareGroupHeartbeatRequest("g", "m", 5))  # fine


def test_a_group_id_names_one_group_type_at_a_time():
    shard = Shard(config=NOW)
    joined_and_initialized(shard, ["a"])
    consumer = shard.write(lambda: shard.consumer_groups.consumer_group_heartbeat(ConsumerHeartbeat(
        "g", "x", 0, rebalance_timeout_ms=30_000, subscribed_topic_names=["orders"], topic_partitions={}),
        "c", "/h"))
    assert (consumer.error, consumer.message) == (Errors.GROUP_ID_NOT_FOUND,
                                                  "Group g is not a consumer group.")
    commit = shard.write(lambda: shard.offsets.commit_offset("g", "a", None, 3, {}, 9))
    assert (commit.error, commit.message) == (Errors.GROUP_ID_NOT_FOUND, "Group g is not a consumer group.")

    shard.write(lambda: shard.consumer_groups.consumer_group_heartbeat(ConsumerHeartbeat(
        "cg", "x", 0, rebalance_timeout_ms=30_000, subscribed_topic_names=["orders"], topic_partitions={}),
        "c", "/h"))
    r = Member(shard, "a", group="cg").join()
    assert (r["error_code"], r["error_message"]) == (Errors.GROUP_ID_NOT_FOUND,
                                                     "Group cg is not a share group.")


def test_a_failed_append_is_reverted_and_the_member_joins_again():
    shard = Shard(config=NOW)
    a = Member(shard, "a")
    assert a.join(fail=True)["error_code"] == Errors.NOT_LEADER_OR_FOLLOWER
    assert shard.share_groups.share_group("g") is None and shard.share_groups.state.get("g") is None
    assert a.join()["member_epoch"] == 2
    assert_replay_gives_the_same_groups(shard)


# ---------------------------------------------------------------------- ShareGroupDescribe and the group
def test_describe_shows_the_members_their_partitions_and_the_epochs():
    shard = Shard(topics={"orders": (ORDERS, 2)}, config=NOW)
    a, = joined_and_initialized(shard, ["a"])
    a.heartbeat(a.epoch, rack_id="rack-1")
    shard.commit()
    described, unknown, classic = shard.share_groups.share_group_describe(["g", "unknown", "simple"],
                                                                          shard.last_committed)
    assert described == dict(
        error_code=Errors.NONE, error_message=None, group_id="g", group_state="Stable", group_epoch=a.epoch,
        assignment_epoch=a.epoch, assignor_name="simple",
        members=[dict(member_id="a", rack_id="rack-1", member_epoch=a.epoch, client_id="client",
                      client_host="/10.0.0.1", subscribed_topic_names=["orders"],
                      assignment=dict(topic_partitions=[dict(topic_id=ORDERS, topic_name="orders",
                                                             partitions=[0, 1])]))])
    assert (unknown["error_code"], unknown["error_message"]) == (Errors.GROUP_ID_NOT_FOUND,
                                                                 "Group unknown not found.")
    shard.get_or_maybe_create_classic_group("simple", True)  # a group that only holds offsets
    classic, = shard.share_groups.share_group_describe(["simple"])
    assert (classic["error_code"], classic["error_message"]) == (Errors.GROUP_ID_NOT_FOUND,
                                                                 "Group simple is not a share group.")
    Member(shard, "b").join()
    assert len(shard.share_groups.share_group_describe(["g"], shard.last_committed)[0]["members"]) == 1, \
        "a read sees what has committed, not b's join"


def test_the_group_answers_for_its_type():
    shard = Shard(config=NOW)
    a, = joined_and_initialized(shard, ["a"])
    group = shard.share_groups.share_group("g")
    assert (str(group.type()), group.protocol_type(), group.state_as_string()) == ("share", "share", "Stable")
    assert group.is_subscribed_to_topic("orders") and not group.is_subscribed_to_topic("clicks")
    with pytest.raises(ApiError) as refused:
        group.validate_delete_group()
    assert refused.value.error == Errors.NON_EMPTY_GROUP
    a.leave()
    group = shard.share_groups.share_group("g")
    group.validate_delete_group()
    shard.write(lambda: _delete(group))
    assert shard.share_groups.share_group("g") is None and shard.share_groups.state.get("g") is None
    assert_replay_gives_the_same_groups(shard)


def _delete(group):
    from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
    return CoordinatorResult(group.create_group_tombstone_records())
