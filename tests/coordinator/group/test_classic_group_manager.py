"""The classic group protocol on the coordinator runtime's terms, without a runtime: a real
SnapshotRegistry and TimelineHashMap, a MockTime, and a timer whose due operations the test fires
(as Kafka's GroupMetadataManagerTest drives its MockCoordinatorTimer). A write's append_future is
completed (or failed) by the test, standing in for the records committing."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass

import pytest

from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.group.classic.classic_group import ClassicGroup
from kafka.coordinator.group.classic.classic_group_manager import ClassicGroupManager
from kafka.coordinator.group.classic.classic_group_results import JoinGroupResult, SyncGroupResult
from kafka.coordinator.group.classic.classic_group_state import ClassicGroupState
from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.group_coordinator_records import GroupMetadataKey
from kafka.coordinator.group.group_coordinator_requests import (
    HeartbeatRequest,
    JoinGroupRequest,
    LeaveGroupRequest,
    LeavingMember,
    RequestContext,
    SyncGroupRequest,
)
from kafka.protocol.consumer_protocol import serialize_subscription
from kafka.protocol.errors import Errors
from kafka.timeline import SnapshotRegistry, TimelineHashMap
from kafka.utils.time import MockTime

EMPTY, PREPARING, COMPLETING, STABLE, DEAD = (
    ClassicGroupState.EMPTY, ClassicGroupState.PREPARING_REBALANCE, ClassicGroupState.COMPLETING_REBALANCE,
    ClassicGroupState.STABLE, ClassicGroupState.DEAD)
SUBSCRIPTION = serialize_subscription({"topics": ["t"], "user_data": None}, version=0)
PROTOCOLS = [("range", SUBSCRIPTION)]


CONTEXT = RequestContext("client", "/127.0.0.1", 9)


@dataclass(frozen=True)
class Config:
    """The classic_group_* settings of GroupCoordinatorConfig the manager reads."""

    classic_group_min_session_timeout_ms: int = 100
    classic_group_max_session_timeout_ms: int = 1_800_000
    classic_group_initial_rebalance_delay_ms: int = 0
    classic_group_max_size: int = 2**31 - 1
    classic_group_new_member_join_timeout_ms: int = 300_000


class MockCoordinatorTimer:
    """A CoordinatorTimer whose expired operations run when the test polls (Kafka's MockCoordinatorTimer)."""

    def __init__(self, time: MockTime) -> None:
        self.time = time
        self.timeouts: dict[str, tuple[int, object]] = {}

    def schedule(self, key, delay_ms, retry, operation, retry_backoff_ms=500) -> None:
        self.timeouts[key] = (self.time.milliseconds() + delay_ms, operation)

    def schedule_if_absent(self, key, delay_ms, retry, operation) -> None:
        if key not in self.timeouts:
            self.schedule(key, delay_ms, retry, operation)

    def cancel(self, key) -> None:
        self.timeouts.pop(key, None)

    def is_scheduled(self, key) -> bool:
        return key in self.timeouts

    def poll(self) -> list[CoordinatorResult]:
        """Run every expired operation, earliest first (one may schedule another that is due)."""
        results = []
        while True:
            due = [(deadline, key) for key, (deadline, _) in self.timeouts.items()
                   if deadline <= self.time.milliseconds()]
            if not due:
                return results
            _, key = min(due)
            _, operation = self.timeouts.pop(key)
            results.append(operation())


class AppendError(Exception):
    """What the runtime fails an append_future with (its CoordinatorError carries .error)."""

    def __init__(self, error: Errors) -> None:
        super().__init__(error.name)
        self.error = error


def commit(result: CoordinatorResult) -> None:
    if result.append_future is not None:
        result.append_future.set_result(None)


def fail(result: CoordinatorResult, error: Errors) -> None:
    result.append_future.set_exception(AppendError(error))


class Harness:
    def __init__(self, config: Config = Config()) -> None:
        self.time = MockTime()
        self.registry = SnapshotRegistry()
        self.groups = TimelineHashMap(self.registry)
        self.timer = MockCoordinatorTimer(self.time)
        self.manager = ClassicGroupManager(self.groups, self.registry, self.time, self.timer, config, "test")

    def join(self, group_id="g", member_id="", *, instance=None, require_known=False, session=10_000,
             rebalance=10_000, protocols=PROTOCOLS, answers=None, version=9,
             reason=None) -> tuple[list[JoinGroupResult], CoordinatorResult]:
        answers = [] if answers is None else answers
        request = JoinGroupRequest(group_id, member_id, instance, require_known, rebalance, session,
                                   "consumer", protocols, reason)
        result = self.manager.classic_group_join(RequestContext("client", "/127.0.0.1", version), request,
                                                 answers.append)
        return answers, result

    def sync(self, generation, member_id, assignment=None, group_id="g", instance=None):
        answers: list[SyncGroupResult] = []
        request = SyncGroupRequest(group_id, generation, member_id, instance, None, None, assignment or {})
        result = self.manager.classic_group_sync(CONTEXT, request, answers.append)
        return answers, result

    def heartbeat(self, member_id, generation, group_id="g", instance=None) -> Errors:
        request = HeartbeatRequest(group_id, member_id, instance, generation)
        return self.manager.classic_group_heartbeat(CONTEXT, request).response

    def leave(self, *members, group_id="g") -> CoordinatorResult:
        return self.manager.classic_group_leave(CONTEXT, LeaveGroupRequest(group_id, list(members)))

    def advance(self, ms: int) -> list[CoordinatorResult]:
        self.time.advance(ms)
        return self.timer.poll()

    def group(self, group_id="g") -> ClassicGroup:
        return self.groups[group_id]

    def stable_member(self, group_id="g", **join) -> str:
        """One member joined and synced: the group Stable at generation 1."""
        answers, result = self.join(group_id, **join)
        commit(result)
        self.advance(0)  # the initial delay (0 here) passes
        member_id = answers[0].member_id
        synced, stored = self.sync(1, member_id, {member_id: b"a1"}, group_id=group_id,
                                   instance=join.get("instance"))
        commit(stored)
        assert synced == [SyncGroupResult(Errors.NONE, "consumer", "range", b"a1")]
        return member_id


# ---------------------------------------------------------------------- JoinGroup
def test_one_member_joins_a_new_group_and_becomes_its_leader():
    h = Harness()
    answers, result = h.join()
    # The new group is written at once (an empty GroupMetadata record), not replayed.
    assert [r.key for r in result.records] == [GroupMetadataKey("g")]
    assert result.records[0].value["members"] == [] and result.replay_records is False
    commit(result)
    assert answers == [] and h.group().is_state(PREPARING)
    assert h.timer.is_scheduled("join-g")
    h.advance(0)
    [joined] = answers
    assert joined.error == Errors.NONE and joined.generation_id == 1
    assert joined.leader_id == joined.member_id and joined.member_id.startswith("client-")
    assert joined.members == [dict(member_id=joined.member_id, group_instance_id=None, metadata=SUBSCRIPTION)]
    assert h.group().is_state(COMPLETING) and h.group().protocol_name == "range"
    assert h.timer.is_scheduled(f"heartbeat-g-{joined.member_id}") and h.timer.is_scheduled("sync-g")


def test_kip_394_a_member_must_join_again_with_the_id_it_was_given():
    h = Harness()
    answers, result = h.join(require_known=True, session=5000)
    commit(result)
    [required] = answers
    assert required.error == Errors.MEMBER_ID_REQUIRED and required.member_id
    assert h.group().is_pending_member(required.member_id) and h.group().is_state(EMPTY)
    assert h.timer.is_scheduled(f"heartbeat-g-{required.member_id}")
    again, _ = h.join(member_id=required.member_id, require_known=True)
    h.advance(0)
    assert again[0].error == Errors.NONE and again[0].member_id == required.member_id


def test_kip_394_a_pending_member_that_never_returns_is_dropped_after_its_session():
    h = Harness()
    answers, result = h.join(require_known=True, session=5000)
    commit(result)
    member_id = answers[0].member_id
    h.advance(4999)
    assert h.group().is_pending_member(member_id)
    h.advance(1)
    assert not h.group().is_pending_member(member_id)


def test_a_second_member_waits_until_the_first_rejoins():
    h = Harness()
    first = h.stable_member()
    second, result = h.join()
    assert second == [] and not result.records  # the group exists: nothing to write yet
    group = h.group()
    assert group.is_state(PREPARING) and h.timer.is_scheduled("join-g")
    assert h.heartbeat(first, 1) == Errors.REBALANCE_IN_PROGRESS  # how the first learns to rejoin
    rejoined, _ = h.join(member_id=first)
    # Everyone is back: the rebalance completes in this event, not when the timer fires.
    assert group.is_state(COMPLETING) and group.generation_id == 2 and not h.timer.is_scheduled("join-g")
    assert rejoined[0].leader_id == first and len(rejoined[0].members) == 2
    assert second[0].error == Errors.NONE and second[0].members == [] and second[0].generation_id == 2


def test_a_member_that_does_not_rejoin_in_the_rebalance_timeout_is_dropped():
    h = Harness()
    first = h.stable_member(rebalance=5000)
    second, _ = h.join(rebalance=5000)
    h.advance(5000)  # the rebalance timeout: complete with whoever came back
    group = h.group()
    assert not group.has(first) and group.is_state(COMPLETING) and group.generation_id == 2
    assert second[0].leader_id == second[0].member_id


def test_the_initial_rebalance_waits_one_more_delay_for_each_newcomer():
    h = Harness(Config(classic_group_initial_rebalance_delay_ms=3000))
    first, result = h.join(rebalance=10_000)
    commit(result)
    h.advance(2000)
    second, _ = h.join(rebalance=10_000)
    h.advance(1000)  # the first delay ends, but someone came during it: one more delay
    assert first == [] and second == [] and h.group().is_state(PREPARING)
    third, _ = h.join(rebalance=10_000)
    h.advance(2999)
    # All three are in, but an initial rebalance never completes early.
    assert third == [] and h.group().has_all_members_joined()
    h.advance(3001)
    assert first == [] and h.group().is_state(PREPARING)  # the third extended it too
    h.advance(3000)
    assert [a[0].generation_id for a in (first, second, third)] == [1, 1, 1]


def test_join_errors():
    h = Harness()
    answers, _ = h.join(session=50)
    assert answers[0].error == Errors.INVALID_SESSION_TIMEOUT and "g" not in h.groups
    answers, _ = h.join(member_id="ghost")
    assert answers[0].error == Errors.UNKNOWN_MEMBER_ID and "g" not in h.groups
    h.stable_member()
    answers, _ = h.join(protocols=[("roundrobin", b"")])
    assert answers[0].error == Errors.INCONSISTENT_GROUP_PROTOCOL


def test_group_max_size():
    h = Harness(Config(classic_group_max_size=1))
    h.stable_member()
    answers, _ = h.join()
    assert answers[0].error == Errors.GROUP_MAX_SIZE_REACHED


def test_a_failed_write_of_a_new_group_answers_the_parked_join_once():
    h = Harness(Config(classic_group_initial_rebalance_delay_ms=3000))
    answers, result = h.join()
    fail(result, Errors.REQUEST_TIMED_OUT)
    assert answers == [JoinGroupResult(Errors.COORDINATOR_NOT_AVAILABLE)]
    h.advance(3000)  # the group would answer it too: the client already has its one answer
    assert len(answers) == 1

    answers, result = h.join("g2", require_known=True)
    fail(result, Errors.NOT_LEADER_OR_FOLLOWER)  # answered MEMBER_ID_REQUIRED already: nothing more
    assert [a.error for a in answers] == [Errors.MEMBER_ID_REQUIRED]


# ---------------------------------------------------------------------- SyncGroup
def two_members_completing(h: Harness) -> tuple[str, str]:
    leader = h.stable_member()
    follower, _ = h.join()
    h.join(member_id=leader)
    return leader, follower[0].member_id


def test_sync_hands_out_the_leaders_assignment_once_it_is_written():
    h = Harness()
    leader, follower = two_members_completing(h)
    follower_answers, result = h.sync(2, follower)
    assert follower_answers == [] and not result.records
    leader_answers, stored = h.sync(2, leader, {leader: b"L", follower: b"F"})
    assert stored.replay_records is False and stored.records[0].key == GroupMetadataKey("g")
    value = stored.records[0].value
    assert value["generation"] == 2 and value["leader"] == leader and value["protocol"] == "range"
    assert {m["member_id"]: m["assignment"] for m in value["members"]} == {leader: b"L", follower: b"F"}
    assert leader_answers == [] and h.group().is_state(COMPLETING)  # not until it commits
    commit(stored)
    assert h.group().is_state(STABLE) and not h.timer.is_scheduled("sync-g")
    assert leader_answers == [SyncGroupResult(Errors.NONE, "consumer", "range", b"L")]
    assert follower_answers == [SyncGroupResult(Errors.NONE, "consumer", "range", b"F")]
    again, _ = h.sync(2, follower)  # a Stable group answers from memory
    assert again == follower_answers


def test_a_failed_write_of_the_assignment_sends_everyone_back_to_join():
    h = Harness()
    leader, follower = two_members_completing(h)
    follower_answers, _ = h.sync(2, follower)
    leader_answers, stored = h.sync(2, leader, {leader: b"L", follower: b"F"})
    fail(stored, Errors.NOT_LEADER_OR_FOLLOWER)
    assert leader_answers == follower_answers == [SyncGroupResult(Errors.NOT_COORDINATOR, "consumer",
                                                                  "range")]
    group = h.group()
    assert group.is_state(PREPARING) and all(m.assignment == b"" for m in group.members.values())


def test_an_assignment_written_after_the_group_moved_on_answers_nobody():
    h = Harness()
    leader, follower = two_members_completing(h)
    leader_answers, stored = h.sync(2, leader, {leader: b"L", follower: b"F"})
    h.join()  # a third member: a new rebalance; the parked sync hears REBALANCE_IN_PROGRESS
    assert leader_answers == [SyncGroupResult(Errors.REBALANCE_IN_PROGRESS, "consumer", "range")]
    commit(stored)
    assert len(leader_answers) == 1 and h.group().is_state(PREPARING)


def test_sync_errors():
    h = Harness()
    answers, _ = h.sync(1, "m")
    assert answers == [SyncGroupResult(Errors.UNKNOWN_MEMBER_ID)]
    leader, follower = two_members_completing(h)
    assert h.sync(1, follower)[0] == [SyncGroupResult(Errors.ILLEGAL_GENERATION)]
    assert h.sync(2, "ghost")[0] == [SyncGroupResult(Errors.UNKNOWN_MEMBER_ID)]
    answers = []
    h.manager.classic_group_sync(CONTEXT, SyncGroupRequest("g", 2, follower, None, "connect", None, {}),
                                 answers.append)
    assert answers == [SyncGroupResult(Errors.INCONSISTENT_GROUP_PROTOCOL)]
    h.join()
    assert h.sync(2, follower)[0] == [SyncGroupResult(Errors.REBALANCE_IN_PROGRESS)]


def test_a_member_that_never_syncs_is_removed_after_the_rebalance_timeout():
    h = Harness()
    leader = h.stable_member(rebalance=5000)
    follower, _ = h.join(rebalance=5000)
    h.join(member_id=leader, rebalance=5000)
    _, stored = h.sync(2, leader, {leader: b"L"})
    commit(stored)
    h.advance(5000)
    group = h.group()
    assert not group.has(follower[0].member_id) and group.is_state(PREPARING)


# ---------------------------------------------------------------------- Heartbeat and sessions
def test_heartbeat_errors():
    h = Harness()
    assert h.heartbeat("m", 1) == Errors.UNKNOWN_MEMBER_ID  # no such group
    member = h.stable_member(instance="i1")
    assert h.heartbeat(member, 1) == Errors.NONE
    assert h.heartbeat(member, 0) == Errors.ILLEGAL_GENERATION
    assert h.heartbeat("ghost", 1) == Errors.UNKNOWN_MEMBER_ID
    assert h.heartbeat("ghost", 1, instance="i1") == Errors.FENCED_INSTANCE_ID
    h.join()
    assert h.heartbeat(member, 1, instance="i1") == Errors.REBALANCE_IN_PROGRESS


def test_a_silent_member_is_removed_when_its_session_times_out():
    """Ported from the old GroupCoordinator's test: the heartbeat restarts the clock; 600 ms after the
    last one (session 500 ms) the member is gone and the group, now Empty, writes generation 2."""
    h = Harness()
    member = h.stable_member(session=500)
    group = h.group()
    h.advance(400)
    assert h.heartbeat(member, 1) == Errors.NONE
    assert h.advance(400) == [] and group.has(member)
    [result] = h.advance(200)
    assert not group.has(member) and group.is_state(EMPTY) and group.generation_id == 2
    assert result.records[0].value["members"] == [] and result.records[0].value["generation"] == 2
    commit(result)


def test_a_member_parked_in_a_rebalance_is_not_expired():
    h = Harness()
    first = h.stable_member(session=500, rebalance=60_000)
    second = h.join(session=500, rebalance=60_000)[0]
    h.join(member_id=first, session=500, rebalance=60_000)  # both wait for the leader's sync now
    h.advance(0)
    h.sync(2, second[0].member_id)
    h.advance(1000)  # the follower parked in SyncGroup is excused; the leader, silent, is not
    assert h.group().has(second[0].member_id) and not h.group().has(first)


def test_a_new_member_is_held_to_the_new_member_join_timeout():
    h = Harness(Config(classic_group_new_member_join_timeout_ms=1000))
    first = h.stable_member(session=60_000, rebalance=60_000)
    newcomer, _ = h.join(session=60_000, rebalance=60_000)
    h.advance(1000)
    assert newcomer == [JoinGroupResult(Errors.UNKNOWN_MEMBER_ID)]
    group = h.group()
    assert group.size() == 1 and group.has(first)


# ---------------------------------------------------------------------- static membership (KIP-345)
def test_a_static_member_rejoining_a_stable_group_takes_over_without_a_rebalance():
    h = Harness()
    old = h.stable_member(instance="i1")
    answers, stored = h.join(instance="i1", version=8)  # v9 (KIP-814): test_classic_group_join_versions.py
    assert answers == [] and stored.records[0].value["members"][0]["assignment"] == b"a1"
    commit(stored)
    [joined] = answers
    assert joined.error == Errors.NONE and joined.member_id != old and joined.generation_id == 1
    assert joined.leader_id == old  # the old leader id: the rejoined leader must not assign again
    group = h.group()
    assert group.is_state(STABLE) and group.get(joined.member_id).assignment == b"a1"
    assert h.heartbeat(old, 1, instance="i1") == Errors.FENCED_INSTANCE_ID
    assert h.heartbeat(joined.member_id, 1, instance="i1") == Errors.NONE


def test_a_static_member_whose_takeover_is_not_written_gets_its_old_id_back():
    h = Harness()
    old = h.stable_member(instance="i1")
    answers, stored = h.join(instance="i1")
    fail(stored, Errors.REQUEST_TIMED_OUT)
    assert answers == [JoinGroupResult(Errors.COORDINATOR_NOT_AVAILABLE, "", 1)]
    assert h.group().get_static_member_id("i1") == old and h.heartbeat(old, 1, instance="i1") == Errors.NONE


def test_a_static_member_is_kept_through_a_rebalance_it_misses():
    h = Harness()
    static = h.stable_member(instance="i1", rebalance=5000)
    h.join(rebalance=5000)
    h.advance(5000)
    group = h.group()
    assert group.has(static) and group.generation_id == 2


# ---------------------------------------------------------------------- LeaveGroup
def test_leave():
    h = Harness()
    member = h.stable_member(instance="i1")
    result = h.leave(LeavingMember("ghost", None), LeavingMember("", "i1"))
    assert result.response == (Errors.NONE, [(LeavingMember("ghost", None), Errors.UNKNOWN_MEMBER_ID),
                                             (LeavingMember("", "i1"), Errors.NONE)])
    group = h.group()
    assert not group.has(member) and group.is_state(EMPTY) and group.generation_id == 2
    assert result.records[0].value["members"] == [] and not h.timer.is_scheduled(f"heartbeat-g-{member}")
    assert h.leave(LeavingMember("m", None), group_id="nope").response == (
        Errors.NONE, [(LeavingMember("m", None), Errors.UNKNOWN_MEMBER_ID)])


def test_the_leave_of_the_last_missing_member_completes_the_rebalance():
    h = Harness()
    leader, follower = two_members_completing(h)
    h.join(member_id=leader, protocols=PROTOCOLS + [("roundrobin", b"")])  # new metadata: a new rebalance
    assert h.group().is_state(PREPARING)
    h.leave(LeavingMember(follower, None))
    assert h.group().is_state(COMPLETING) and h.group().generation_id == 3


# ---------------------------------------------------------------------- load and unload
def test_unload_answers_every_parked_request_not_coordinator():
    h = Harness()
    leader, follower = two_members_completing(h)
    synced, _ = h.sync(2, follower)
    joining, _ = h.join("other")
    h.manager.on_unloaded()
    assert synced == [SyncGroupResult(Errors.NOT_COORDINATOR)]
    assert joining[0].error == Errors.NOT_COORDINATOR
    assert h.group().is_state(DEAD)


def test_replay_of_the_group_metadata_record_rebuilds_the_group():
    h = Harness()
    leader, follower = two_members_completing(h)
    _, stored = h.sync(2, leader, {leader: b"L", follower: b"F"})
    commit(stored)
    fresh = Harness()
    fresh.manager.replay(stored.records[0].key, stored.records[0].value)
    fresh.manager.on_loaded()
    group = fresh.group()
    assert group.is_state(STABLE) and group.generation_id == 2 and group.leader_id == leader
    assert group.protocol_type() == "consumer" and group.protocol_name == "range"
    assert {m: group.get(m).assignment for m in group.members} == {leader: b"L", follower: b"F"}
    assert group.subscribed_topics == {"t"}
    assert fresh.heartbeat(follower, 2) == Errors.NONE
    fresh.advance(10_000)  # members found in the log must show up again within a session
    assert not group.has(leader) and not group.has(follower)

    fresh.manager.replay(GroupMetadataKey("g"), None)
    assert "g" not in fresh.groups


def test_describe():
    h = Harness()
    member = h.stable_member()
    described = h.manager.describe(h.group())
    assert described == dict(group_state="Stable", protocol_type="consumer", protocol_data="range", members=[
        dict(member_id=member, group_instance_id=None, client_id="client", client_host="/127.0.0.1",
             member_metadata=SUBSCRIPTION, member_assignment=b"a1")])
    h.join()
    described = h.manager.describe(h.group())
    assert described["group_state"] == "PreparingRebalance" and described["protocol_data"] == ""
    assert [m["member_metadata"] for m in described["members"]] == [b"", b""]


def test_a_group_created_by_a_write_not_yet_committed_is_not_in_committed_state():
    h = Harness()
    h.registry.get_or_create_snapshot(0)
    h.join()
    assert "g" in h.groups and h.groups.get_at("g", 0) is None


# ---------------------------------------------------------------------- the Group protocol
def test_a_simple_consumer_commits_to_an_empty_group_of_its_own():
    h = Harness()
    with pytest.raises(ApiError) as refused:
        h.manager.get_or_maybe_create_classic_group("simple", False)
    assert refused.value.error == Errors.GROUP_ID_NOT_FOUND
    group = h.manager.get_or_maybe_create_classic_group("simple", True)
    assert group.generation_id == 0 and group.is_empty() and group.protocol_type() == ""
    group.validate_offset_commit("", None, -1, False, 9)
    assert not group.is_subscribed_to_topic("t")
    group.validate_delete_group()
    group.validate_offset_delete()


def offset_commit_error(group, member_id, generation, transactional=False, instance=None):
    try:
        group.validate_offset_commit(member_id, instance, generation, transactional, 9)
    except ApiError as e:
        return e.error
    return None


def test_offset_commit_validation():
    h = Harness()
    leader, follower = two_members_completing(h)
    group = h.group()
    assert offset_commit_error(group, leader, 2) == Errors.REBALANCE_IN_PROGRESS  # no assignment yet
    assert offset_commit_error(group, leader, 2, transactional=True) is None
    assert offset_commit_error(group, leader, 1) == Errors.ILLEGAL_GENERATION
    assert offset_commit_error(group, "ghost", 2) == Errors.UNKNOWN_MEMBER_ID
    assert offset_commit_error(group, "", -1) == Errors.UNKNOWN_MEMBER_ID  # members only, now
    assert offset_commit_error(group, "", -1, transactional=True) is None  # TxnOffsetCommit < v3
    _, stored = h.sync(2, leader, {leader: b"L"})
    commit(stored)
    assert offset_commit_error(group, leader, 2) is None
    with pytest.raises(ApiError) as refused:
        group.validate_delete_group()
    assert refused.value.error == Errors.NON_EMPTY_GROUP
    group.validate_offset_delete()  # a consumer group: per topic, by subscription
    assert group.is_subscribed_to_topic("t") and not group.is_subscribed_to_topic("u")
    assert [r.key for r in group.create_group_tombstone_records()] == [GroupMetadataKey("g")]


def test_an_offset_commit_keeps_a_member_alive():
    h = Harness()
    member = h.stable_member(session=500)
    group = h.group()
    h.advance(400)
    h.manager.reschedule_classic_group_member_heartbeat(group, group.get(member))
    h.advance(400)
    assert group.has(member)


def test_futures_are_plain_concurrent_futures():
    h = Harness()
    _, result = h.join()
    assert isinstance(result.append_future, Future) and not result.append_future.done()


def test_a_static_member_that_left_before_its_takeover_failed_is_not_restored():
    h = Harness()
    h.stable_member(instance="i1")
    answers, stored = h.join(instance="i1")
    h.leave(LeavingMember("", "i1"))
    fail(stored, Errors.REQUEST_TIMED_OUT)
    assert [a.error for a in answers] == [Errors.UNKNOWN_MEMBER_ID]  # the leave answered it first
    assert h.group().get_static_member_id("i1") is None
