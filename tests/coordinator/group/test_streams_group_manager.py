"""KIP-1071 streams groups in a shard (StreamsGroupManager, StreamsGroup, StreamsGroupMember, the topology
configured against the metadata, the StickyTaskAssignor and the CurrentAssignmentBuilder) over a real
SnapshotRegistry and MockTime (shard_harness.py, streams_steps.py): a word count's members joining, its
internal topics reported missing until they exist, the initial rebalance delay, tasks moving between
processes only once released, standby tasks, the errors Kafka 4.4 gives, sessions and rebalance timeouts,
static members, offset commits, StreamsGroupDescribe, and the rule that replaying the records written
(a coordinator failover) gives the same groups."""

from __future__ import annotations

import pytest

from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.streams.streams_group import StreamsGroupState
from kafka.coordinator.group.streams.streams_group_member import MemberState
from kafka.coordinator.group.streams.streams_group_records import (
    StreamsGroupCurrentMemberAssignmentKey,
    StreamsGroupMemberMetadataKey,
    StreamsGroupMetadataKey,
    StreamsGroupTargetAssignmentMemberKey,
    StreamsGroupTargetAssignmentMetadataKey,
    StreamsGroupTopologyKey,
)
from kafka.coordinator.group.streams.topics.topic_configuration_exception import Status
from kafka.protocol.errors import Errors
from tests.coordinator.group.shard_harness import Config
from tests.coordinator.group.streams_steps import (
    APP,
    CHANGELOG,
    REPARTITION,
    REPARTITION_ID,
    StreamsMember,
    create_internal_topics,
    shard_with_words,
    task_ids,
    word_count_topology,
)

pytestmark = pytest.mark.fast

ALL_TASKS = {"0": {0, 1, 2, 3}, "1": {0, 1, 2, 3}}


def written_keys(shard, since: int) -> list[type]:
    return [type(shard.serde.deserialize(entry[2], entry[3]).key) for entry in shard.log[since:]]


def group_of(shard):
    return shard.groups.get(APP)


def assert_replay_gives_the_same_groups(shard):
    fresh = shard.reload()
    assert fresh.groups.get(APP) == shard.groups.get(APP)
    return fresh


def settle(*members: StreamsMember, rounds: int = 6) -> None:
    """Each member heartbeats in turn, owning what it was given, until nothing moves."""
    for _ in range(rounds):
        for member in members:
            member.beat()


def running(shard, *members: StreamsMember) -> None:
    """The first member joins, the broker creates the internal topics, everyone gets tasks."""
    members[0].join()
    create_internal_topics(shard)
    for member in members[1:]:
        member.join()
    settle(*members)


# ---------------------------------------------------------------------- joining and the topology
def test_the_first_member_keeps_the_topology_and_hears_its_internal_topics_are_missing():
    shard = shard_with_words()
    a = StreamsMember(shard, "a")
    r = a.join()
    assert (r["error_code"], r["member_id"], r["member_epoch"], r["heartbeat_interval_ms"]) == (
        Errors.NONE, "a", 2, 5000), "a new group starts at epoch 1: its first member's join moves it to 2"
    assert a.statuses() == {Status.MISSING_INTERNAL_TOPICS: f"Internal topics are missing: {REPARTITION}, "
                                                            f"{CHANGELOG}"}
    created = r["creatable_topics"]
    assert {name: (t.num_partitions, t.replication_factor, t.configs) for name, t in created.items()} == {
        REPARTITION: (4, -1, {}), CHANGELOG: (4, -1, {"cleanup.policy": "compact"})}, (
        "as many partitions as the source topic; the broker's default replication factor")
    assert r["active_tasks"] == [], "nothing to run before the topology is ready"
    assert written_keys(shard, 0) == [StreamsGroupMemberMetadataKey, StreamsGroupTopologyKey,
                                      StreamsGroupMetadataKey, StreamsGroupTargetAssignmentMemberKey,
                                      StreamsGroupTargetAssignmentMetadataKey,
                                      StreamsGroupCurrentMemberAssignmentKey]
    assert group_of(shard).state is StreamsGroupState.NOT_READY
    create_internal_topics(shard)
    r = a.beat()
    assert a.statuses() == {} and a.active == ALL_TASKS, r
    assert group_of(shard).state is StreamsGroupState.STABLE
    assert group_of(shard).validated_topology_epoch == 1
    assert_replay_gives_the_same_groups(shard)


def test_the_initial_rebalance_delay_holds_the_first_assignment_back():
    shard = shard_with_words(config=Config(streams_group_assignment_interval_ms=0), internal=True)
    a, b = StreamsMember(shard, "a"), StreamsMember(shard, "b", "process-b")
    a.join()
    assert a.statuses() == {Status.ASSIGNMENT_DELAYED: "Assignment delayed due to the configured initial "
                                                       "rebalance delay."}
    b.join()
    assert Status.ASSIGNMENT_DELAYED in b.statuses() and a.active == b.active == {}
    shard.time.sleep(3000)
    shard.fire_timers()  # the delay is over: one target, for both members
    settle(a, b)
    assert a.task_count() + b.task_count() == 8 and a.task_count() == b.task_count() == 4
    assert {(s, p) for m in (a, b) for s, ps in m.active.items() for p in ps} == {
        (s, p) for s, ps in ALL_TASKS.items() for p in ps}, "each task once"


def test_a_member_of_another_process_takes_half_once_the_first_let_go():
    shard = shard_with_words(internal=True)
    a, b = StreamsMember(shard, "a"), StreamsMember(shard, "b", "process-b")
    running(shard, a)
    assert a.active == ALL_TASKS
    b.join()
    assert b.active == {} and group_of(shard).members["b"].state is MemberState.UNRELEASED_TASKS
    revoking = dict(a.active)
    a.beat(active_tasks=task_ids(revoking))  # still owning everything: told to give half up
    member_a = group_of(shard).members["a"]
    assert member_a.state is MemberState.UNREVOKED_TASKS and a.task_count() == 4
    b.beat()
    assert b.active == {}, "the tasks are still a's: b waits"
    a.beat()  # owns only what it kept: the revocation is done
    b.beat()
    assert b.task_count() == 4 and group_of(shard).state is StreamsGroupState.STABLE
    assert a.epoch == b.epoch == group_of(shard).assignment_epoch
    assert_replay_gives_the_same_groups(shard)


def test_a_task_moves_between_two_threads_of_one_process_only_once_released():
    shard = shard_with_words(internal=True)
    a1, a2 = StreamsMember(shard, "a1"), StreamsMember(shard, "a2")
    running(shard, a1)
    a2.join()
    assert group_of(shard).members["a2"].state is MemberState.UNRELEASED_TASKS
    settle(a1, a2)
    assert a1.task_count() == a2.task_count() == 4


def test_standby_tasks_run_on_another_process():
    shard = shard_with_words(internal=True)
    shard.group_configs[APP] = {"streams.num.standby.replicas": "1"}
    a, b = StreamsMember(shard, "a"), StreamsMember(shard, "b", "process-b")
    running(shard, a, b)
    assert a.standby.get("1", set()) | b.standby.get("1", set()) == {0, 1, 2, 3}, "the stateful subtopology"
    assert "0" not in a.standby and "0" not in b.standby, "no standby of a task without state"
    for member in (a, b):
        assert not member.standby.get("1", set()) & member.active.get("1", set()), "never beside its active"
    assert_replay_gives_the_same_groups(shard)


def test_a_change_of_the_standby_replicas_is_a_new_target():
    shard = shard_with_words(internal=True)
    a, b = StreamsMember(shard, "a"), StreamsMember(shard, "b", "process-b")
    running(shard, a, b)
    epoch = group_of(shard).group_epoch
    shard.group_configs[APP] = {"streams.num.standby.replicas": "1"}
    settle(a, b)
    assert group_of(shard).group_epoch == epoch + 1
    assert group_of(shard).last_assignment_configs == {"num.standby.replicas": "1"}
    assert sum(len(p) for m in (a, b) for p in m.standby.values()) == 4


# ---------------------------------------------------------------------- what is refused
def test_the_errors_kafka_gives():
    shard = shard_with_words(internal=True)
    a = StreamsMember(shard, "a")
    running(shard, a)
    stranger = StreamsMember(shard, "nobody")
    assert stranger.heartbeat(5) == dict(error_code=Errors.UNKNOWN_MEMBER_ID,
                                         error_message="Member nobody is not a member of group app.")
    assert a.heartbeat(a.epoch + 1)["error_code"] == Errors.FENCED_MEMBER_EPOCH
    assert a.epoch == 2 and a.heartbeat(1)["error_code"] == Errors.FENCED_MEMBER_EPOCH, "nor its previous one"
    other = StreamsMember(shard, "c", topology=word_count_topology(epoch=1, changelog_partitions=0))
    other.topology["subtopologies"][0]["repartition_sink_topics"] = ["app-other-repartition"]
    assert other.join() == dict(error_code=Errors.INVALID_REQUEST,
                                error_message="Topology updates are not supported yet.")
    counted = StreamsMember(shard, "d", topology=word_count_topology(changelog_partitions=4))
    assert counted.join()["error_code"] == Errors.STREAMS_INVALID_TOPOLOGY
    assert a.beat(active_tasks=task_ids({"7": {0}}))["error_message"] == (
        "Subtopology 7 does not exist in the topology.")
    assert a.beat(active_tasks=task_ids({"0": {4}}))["error_message"] == (
        "Task 4 for subtopology 0 is invalid. Number of tasks for this subtopology: 4")
    assert a.heartbeat(0, topology=None, rebalance_timeout_ms=1000, active_tasks=[], standby_tasks=[],
                       warmup_tasks=[])["error_message"] == "Topology must be non-null when (re-)joining."
    full = shard_with_words(config=Config(streams_group_max_size=1), internal=True)
    StreamsMember(full, "a").join()
    assert StreamsMember(full, "b").join()["error_code"] == Errors.GROUP_MAX_SIZE_REACHED


def test_a_member_with_an_older_topology_epoch_is_told_it_is_stale():
    shard = shard_with_words(internal=True)
    running(shard, StreamsMember(shard, "a", topology=word_count_topology(epoch=2)))
    old = StreamsMember(shard, "old", "process-b", topology=word_count_topology(epoch=1))
    old.join()
    assert old.statuses()[Status.STALE_TOPOLOGY] == ("The member's topology epoch 1 is behind the group's "
                                                     "topology epoch 2.")


def test_a_topology_that_cannot_run_yet_says_why_at_each_heartbeat():
    shard = shard_with_words(internal=False)
    shard.topics.pop("words")
    a = StreamsMember(shard, "a")
    a.join()
    assert a.statuses()[Status.MISSING_SOURCE_TOPICS] == "Source topics words are missing."
    shard.commit()
    described = shard.streams_groups.streams_group_describe([APP], shard.last_committed)[0]
    assert described["group_state"] == "NotReady" and described["topology"]["subtopologies"][1][
        "repartition_source_topics"][0]["partitions"] == 0, "the topology as sent, no counts decided"
    shard.topics["words"] = (REPARTITION_ID, 4)
    shard.topics[REPARTITION] = (REPARTITION_ID, 2)  # an internal topic someone made too small
    a.beat()
    assert a.statuses()[Status.INCORRECTLY_PARTITIONED_TOPICS] == (
        f"Existing topic {REPARTITION} has different number of partitions: expected 4, found 2")


# ---------------------------------------------------------------------- leaving and timeouts
def test_a_silent_member_is_fenced_and_its_tasks_go_to_the_others():
    shard = shard_with_words(internal=True)
    a, b = StreamsMember(shard, "a"), StreamsMember(shard, "b", "process-b")
    running(shard, a, b)
    epoch = group_of(shard).group_epoch
    shard.time.sleep(44_000)
    a.beat()
    shard.time.sleep(2_000)
    shard.fire_timers()  # b was silent for 46 s: group.streams.session.timeout.ms is 45 s
    assert "b" not in group_of(shard).members and group_of(shard).group_epoch == epoch + 1
    settle(a)
    assert a.active == ALL_TASKS
    assert_replay_gives_the_same_groups(shard)


def test_a_member_that_does_not_give_up_its_tasks_in_time_is_fenced():
    shard = shard_with_words(internal=True)
    a, b = StreamsMember(shard, "a"), StreamsMember(shard, "b", "process-b")
    running(shard, a)
    b.join()
    a.beat(active_tasks=task_ids(ALL_TASKS))
    assert group_of(shard).members["a"].state is MemberState.UNREVOKED_TASKS
    shard.time.sleep(30_000)
    a.beat(active_tasks=task_ids(ALL_TASKS))  # alive (its session goes on), still holding everything
    b.beat()
    shard.fire_timers()
    assert "a" in group_of(shard).members and b.active == {}
    shard.time.sleep(30_000)  # its rebalance timeout (the join's rebalance_timeout_ms), not its session's
    shard.fire_timers()
    assert "a" not in group_of(shard).members
    settle(b)
    assert b.active == ALL_TASKS


def test_leaving_and_the_empty_group():
    shard = shard_with_words(internal=True)
    a = StreamsMember(shard, "a")
    running(shard, a)
    r = a.leave()
    assert (r["error_code"], r["member_epoch"], r["status"]) == (Errors.NONE, -1, [])
    group = group_of(shard)
    assert group.state is StreamsGroupState.EMPTY and group.members == {} and group.target_assignment == {}
    fresh = assert_replay_gives_the_same_groups(shard)
    group.validate_delete_group()
    records = group.create_group_tombstone_records()
    shard.write(lambda: CoordinatorResult(records))
    assert shard.groups.get(APP) is None
    assert fresh.groups.get(APP) is not None and shard.reload().groups.get(APP) is None


def test_a_static_member_leaves_for_a_while_and_its_successor_takes_its_tasks():
    shard = shard_with_words(internal=True)
    a = StreamsMember(shard, "a", instance_id="instance-1")
    running(shard, a)
    r = a.leave(-2)
    assert (r["member_id"], r["member_epoch"]) == ("a", -2)
    assert group_of(shard).members["a"].member_epoch == -2, "its tasks are kept for it"
    successor = StreamsMember(shard, "a-again", instance_id="instance-1")
    successor.join()
    settle(successor)
    assert "a" not in group_of(shard).members and successor.active == ALL_TASKS
    taken = StreamsMember(shard, "a-third", instance_id="instance-1").join()
    assert taken["error_code"] == Errors.UNRELEASED_INSTANCE_ID
    assert_replay_gives_the_same_groups(shard)


def test_a_shutdown_request_reaches_every_member_until_the_group_empties():
    shard = shard_with_words(internal=True)
    a, b = StreamsMember(shard, "a"), StreamsMember(shard, "b", "process-b")
    running(shard, a, b)
    a.beat(shutdown_application=True)
    b.beat()
    assert b.statuses()[Status.SHUTDOWN_APPLICATION] == (
        "Streams group member a encountered a fatal error and requested a shutdown for the entire "
        "application.")
    a.leave()
    b.leave()
    c = StreamsMember(shard, "c")
    c.join()
    assert Status.SHUTDOWN_APPLICATION not in c.statuses()


# ---------------------------------------------------------------------- failover, offsets, views
def test_a_coordinator_failover_in_the_middle_of_a_rebalance_goes_on_from_the_log():
    shard = shard_with_words(internal=True)
    a, b = StreamsMember(shard, "a"), StreamsMember(shard, "b", "process-b")
    running(shard, a)
    b.join()
    a.beat(active_tasks=task_ids(ALL_TASKS))  # told to revoke
    fresh = assert_replay_gives_the_same_groups(shard)
    assert fresh.groups.get(APP).members["a"].state is MemberState.UNREVOKED_TASKS
    assert any(key.startswith("rebalance-timeout") for key in fresh.timer.pending), "its timeout again"
    a.shard = b.shard = fresh
    settle(a, b)
    assert a.task_count() == b.task_count() == 4


def test_a_failed_append_leaves_the_group_as_it_was():
    shard = shard_with_words(internal=True)
    a = StreamsMember(shard, "a")
    running(shard, a)
    before = group_of(shard)
    StreamsMember(shard, "b", "process-b").join(fail=True)
    assert group_of(shard) == before and "b" not in group_of(shard).members


def test_offset_commits_of_a_member_follow_kafkas_rules():
    shard = shard_with_words(internal=True)
    a = StreamsMember(shard, "a")
    running(shard, a)
    group = group_of(shard)
    with pytest.raises(ApiError) as refused:
        group.validate_offset_commit("a", None, a.epoch, False, 8)
    assert refused.value.error == Errors.UNSUPPORTED_VERSION
    assert group.validate_offset_commit("a", None, a.epoch, False, 9) is None
    with pytest.raises(ApiError) as newer:
        group.validate_offset_commit("a", None, a.epoch + 1, False, 9)
    assert newer.value.error == Errors.STALE_MEMBER_EPOCH
    older = group.validate_offset_commit("a", None, a.epoch - 1, False, 9)
    with pytest.raises(ApiError):
        older("words", 0)  # assigned at a.epoch: a commit from before is a zombie's
    with pytest.raises(ApiError) as unknown:
        group.validate_offset_commit("nobody", None, 3, False, 9)
    assert unknown.value.error == Errors.UNKNOWN_MEMBER_ID
    assert group.is_subscribed_to_topic("words") and group.is_subscribed_to_topic(REPARTITION)
    assert not group.is_subscribed_to_topic("orders")


def test_describe_and_list_read_the_committed_state():
    shard = shard_with_words(internal=True)
    a = StreamsMember(shard, "a")
    running(shard, a)
    shard.commit()
    StreamsMember(shard, "b", "process-b").join()  # not committed yet
    described = shard.streams_groups.streams_group_describe([APP, "nobody"], shard.last_committed)
    assert [m["member_id"] for m in described[0]["members"]] == ["a"]
    assert (described[0]["group_state"], described[0]["assignor_name"]) == ("Stable", "sticky")
    assert described[0]["topology"]["subtopologies"][1]["state_changelog_topics"][0]["partitions"] == 4
    assert described[1] == dict(group_id="nobody", error_code=Errors.GROUP_ID_NOT_FOUND,
                                error_message="Group nobody not found.")
    group = group_of(shard)
    assert group.state is StreamsGroupState.ASSIGNING or group.state is StreamsGroupState.RECONCILING
    assert group.is_in_states({"reconciling", "assigning"}) and not group.is_in_states({"not_ready"})
