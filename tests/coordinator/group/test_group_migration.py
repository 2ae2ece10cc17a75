"""Conversions between the two group types, on a real GroupCoordinatorShard driven as the runtime
drives it (snapshot, run, replay the records unless the operation changed its state itself, append,
complete the append future): a classic group upgraded when a ConsumerGroupHeartbeat joins it, its
classic members rejoining inside the consumer group, and the group downgraded when the last member of
the new protocol leaves. After each step a fresh shard replaying the log (a coordinator failover)
finds the same group; group.consumer.migration.policy=disabled keeps both doors shut."""

from __future__ import annotations

import uuid

import pytest

from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.group.consumer_group_manager import HeartbeatRequest
from kafka.coordinator.group.consumer_group_migration_policy import ConsumerGroupMigrationPolicy
from kafka.coordinator.group.group import ApiError, GroupType
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.coordinator.group.group_coordinator_record_serde import GroupCoordinatorRecordSerde
from kafka.coordinator.group.group_coordinator_requests import (
    HeartbeatRequest as ClassicHeartbeat,
)
from kafka.coordinator.group.group_coordinator_requests import (
    JoinGroupRequest,
    LeaveGroupRequest,
    LeavingMember,
    RequestContext,
    SyncGroupRequest,
)
from kafka.coordinator.group.group_coordinator_shard import GroupCoordinatorShard
from kafka.protocol.consumer_protocol import (
    deserialize_assignment,
    serialize_assignment,
    serialize_subscription,
)
from kafka.protocol.errors import Errors
from kafka.timeline import SnapshotRegistry
from kafka.utils.time import MockTime
from tests.coordinator.group.test_classic_group_manager import MockCoordinatorTimer

pytestmark = pytest.mark.fast

TOPIC_ID = uuid.UUID(int=7)
TOPICS = {"t": (TOPIC_ID, 4)}
CONTEXT = RequestContext("client", "/127.0.0.1", 9)
SUBSCRIPTION = serialize_subscription({"topics": ["t"], "user_data": None, "owned_partitions": []}, version=1)


def config(policy=ConsumerGroupMigrationPolicy.BIDIRECTIONAL) -> GroupCoordinatorConfig:
    return GroupCoordinatorConfig(classic_group_initial_rebalance_delay_ms=0,
                                  classic_group_min_session_timeout_ms=100,
                                  consumer_group_migration_policy=policy)


class Runtime:
    """One shard and its log, with the runtime's write rule and a failover that replays the log."""

    def __init__(self, policy=ConsumerGroupMigrationPolicy.BIDIRECTIONAL) -> None:
        self.time, self.policy = MockTime(), policy
        self.serde = GroupCoordinatorRecordSerde()
        self.log: list[tuple[bytes, bytes | None]] = []
        self.shard, self.timer = self.new_shard()

    def new_shard(self):
        registry = SnapshotRegistry("test ")
        timer = MockCoordinatorTimer(self.time)
        shard = GroupCoordinatorShard(registry, self.time, timer, config(self.policy), lambda: TOPICS,
                                      "test ")
        shard.snapshot_registry = registry
        registry.get_or_create_snapshot(0)
        return shard, timer

    def write(self, op):
        """The operation's response (an ApiError it raised is returned): its records replayed (unless it
        changed its state itself), appended, committed."""
        self.shard.snapshot_registry.idempotent_create_snapshot(len(self.log))
        try:
            result: CoordinatorResult = op(self.shard)
        except ApiError as e:
            return e
        for i, record in enumerate(result.records):
            if result.replay_records:
                self.shard.replay(len(self.log) + i, -1, -1, record)
        self.log += [(self.serde.serialize_key(r), self.serde.serialize_value(r)) for r in result.records]
        if result.append_future is not None:
            result.append_future.set_result(None)
        return result.response

    def fire_timers(self) -> None:
        """Every timer that is due runs as a write event, earliest first."""
        while True:
            due = sorted((deadline, key) for key, (deadline, _) in self.timer.timeouts.items()
                         if deadline <= self.time.milliseconds())
            if not due:
                return
            _, operation = self.timer.timeouts.pop(due[0][1])
            self.write(lambda shard, operation=operation: operation())

    def failover(self) -> GroupCoordinatorShard:
        """A fresh coordinator that replays the log, as the loader does."""
        fresh, _ = self.new_shard()
        for offset, (key, value) in enumerate(self.log):
            fresh.replay(offset, -1, -1, self.serde.deserialize(key, value))
        return fresh

    # ------------------------------------------------------------------ the requests
    def join(self, member_id: str, owned=()) -> dict:
        answers = []
        metadata = serialize_subscription({"topics": ["t"], "user_data": None,
                                           "owned_partitions": [{"topic": "t", "partitions": list(owned)}]},
                                           version=1)
        request = JoinGroupRequest("g", member_id, None, False, 10_000, 10_000, "consumer",
                                   [("range", metadata)])
        self.write(lambda s: s.classic_group_join(CONTEXT, request, answers.append))
        # a classic group's join phase ends on a timer (group.initial.rebalance.delay.ms 0)
        self.fire_timers()
        return answers

    def sync(self, member_id: str, generation: int, assignments=None) -> list:
        answers = []
        request = SyncGroupRequest("g", generation, member_id, None, "consumer", "range", assignments or {})
        self.write(lambda s: s.classic_group_sync(CONTEXT, request, answers.append))
        return answers

    def heartbeat(self, member_id: str, generation: int) -> Errors:
        return self.write(lambda s: s.classic_group_heartbeat(CONTEXT, ClassicHeartbeat("g", member_id, None,
                                                                                        generation)))

    def consumer_heartbeat(self, member_id: str, epoch: int, owned=None):
        request = HeartbeatRequest("g", member_id, epoch, rebalance_timeout_ms=30_000 if epoch == 0 else -1,
                                   subscribed_topic_names=["t"] if epoch == 0 else None,
                                   topic_partitions={} if epoch == 0 else owned)
        return self.write(lambda s: s.consumer_group_heartbeat(CONTEXT, request))

    def group(self, shard=None):
        return (shard or self.shard).group_metadata_manager.group_lookup("g")


def partitions(assignment_bytes: bytes) -> list[int]:
    return sorted(p for tp in deserialize_assignment(assignment_bytes).assigned_partitions
                  for p in tp.partitions)


def a_classic_group_of_one(runtime: Runtime) -> str:
    """One classic member holding every partition at generation 1."""
    (joined,) = runtime.join("")
    member = joined.member_id
    assert (joined.error, joined.generation_id) == (Errors.NONE, 1)
    mine = serialize_assignment({"assigned_partitions": [{"topic": "t", "partitions": [0, 1, 2, 3]}],
                                 "user_data": None})
    (synced,) = runtime.sync(member, 1, {member: mine})
    assert synced.error == Errors.NONE
    return member


def summary(group) -> tuple:
    """What a failover must find again: the type, the epochs and each member's epoch and partitions."""
    if group.type() is GroupType.CLASSIC:
        return ("classic", group.generation_id, sorted(group.members))
    return ("consumer", group.group_epoch, group.assignment_epoch,
            {m.member_id: (m.member_epoch, m.use_classic_protocol(), dict(m.assigned_partitions))
             for m in group.members.values()})


def test_a_classic_group_upgraded_its_member_rejoins_inside_and_the_last_new_member_leaving_downgrades_it():
    runtime = Runtime()
    classic = a_classic_group_of_one(runtime)

    answer = runtime.consumer_heartbeat("new", 0)
    assert answer["error_code"] == Errors.NONE and answer["member_epoch"] == 2, answer
    group = runtime.group()
    assert group.type() is GroupType.CONSUMER and group.group_epoch == 2
    assert group.members[classic].use_classic_protocol() and group.members[classic].member_epoch == 1
    assert group.members[classic].assigned_partitions == {TOPIC_ID: frozenset({0, 1, 2, 3})}, "it keeps them"
    assert summary(runtime.group(runtime.failover())) == summary(group)

    # the classic member learns of the rebalance, gives back what it must and rejoins at the new epoch
    assert runtime.heartbeat(classic, 1) == Errors.REBALANCE_IN_PROGRESS
    (joined,) = runtime.join(classic, owned=())
    assert (joined.error, joined.leader_id, joined.members) == (Errors.NONE, "", [])
    assert joined.generation_id == runtime.group().members[classic].member_epoch == 2
    (synced,) = runtime.sync(classic, joined.generation_id)
    assert synced.error == Errors.NONE and len(partitions(synced.assignment)) == 2
    assert runtime.heartbeat(classic, 2) == Errors.NONE
    assert runtime.heartbeat(classic, 1) == Errors.ILLEGAL_GENERATION
    assert summary(runtime.group(runtime.failover())) == summary(runtime.group())

    # the member of the new protocol leaves: the group turns classic at its epoch and rebalances
    runtime.consumer_heartbeat("new", -1)
    group = runtime.group()
    assert group.type() is GroupType.CLASSIC and group.generation_id == 2 and list(group.members) == [classic]
    assert partitions(group.members[classic].assignment) == partitions(synced.assignment), "its target"
    assert runtime.heartbeat(classic, 2) == Errors.REBALANCE_IN_PROGRESS
    assert summary(runtime.group(runtime.failover()))[:2] == ("classic", 2)
    (joined,) = runtime.join(classic)
    assert (joined.error, joined.generation_id, joined.leader_id) == (Errors.NONE, 3, classic)


def test_a_classic_member_must_speak_the_groups_protocols_and_leaves_with_leave_group():
    runtime = Runtime()
    runtime.consumer_heartbeat("new", 0)
    answers = []
    other = JoinGroupRequest("g", "", None, False, 10_000, 10_000, "connect", [("range", SUBSCRIPTION)])
    runtime.write(lambda s: s.classic_group_join(CONTEXT, other, answers.append))
    assert answers[0].error == Errors.INCONSISTENT_GROUP_PROTOCOL
    member = runtime.join("")[0].member_id  # require_known_member_id off: no MEMBER_ID_REQUIRED round
    group = runtime.group()
    assert group.type() is GroupType.CONSUMER and group.members[member].use_classic_protocol()
    (error, answers) = runtime.write(lambda s: s.classic_group_leave(CONTEXT, LeaveGroupRequest("g", [
        LeavingMember(member, None), LeavingMember("new", None)])))
    assert [e for _, e in answers] == [Errors.NONE,
                                       Errors.UNKNOWN_MEMBER_ID], "a member of the new protocol heartbeats -1"
    assert list(runtime.group().members) == ["new"]


def test_with_the_policy_disabled_neither_door_opens():
    runtime = Runtime(ConsumerGroupMigrationPolicy.DISABLED)
    classic = a_classic_group_of_one(runtime)
    refused = runtime.consumer_heartbeat("new", 0)
    assert isinstance(refused, ApiError) and refused.error == Errors.GROUP_ID_NOT_FOUND
    assert runtime.group().type() is GroupType.CLASSIC and list(runtime.group().members) == [classic]


def test_a_group_of_classic_members_stays_a_consumer_group_when_the_policy_forbids_the_downgrade():
    runtime = Runtime(ConsumerGroupMigrationPolicy.UPGRADE)
    classic = a_classic_group_of_one(runtime)
    runtime.consumer_heartbeat("new", 0)
    runtime.consumer_heartbeat("new", -1)
    group = runtime.group()
    assert group.type() is GroupType.CONSUMER and list(group.members) == [classic]
