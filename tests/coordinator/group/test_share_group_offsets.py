"""A share group's offsets as an admin sees them (DescribeShareGroupOffsets, AlterShareGroupOffsets,
DeleteShareGroupOffsets, DeleteGroups of a share group) through the GroupCoordinatorService, with the
persister calls answered by a real share coordinator: its ShareCoordinatorService over its own runtime
and ReplicaManager, sent each call as the DefaultStatePersister would send it (one partition a request,
through the real codec). Both coordinators run on the test's thread on one mock clock, so every answer is
a Future already done.
"""

from __future__ import annotations

import uuid
from concurrent.futures import Future

import pytest

from kafka.coordinator.group.group_coordinator_service import high_watermark
from kafka.coordinator.group.share_group_offsets_service import ShareGroupStateSummary
from kafka.image.features_image import FeaturesImage
from kafka.image.metadata_image import MetadataImage
from kafka.image.topics_image import PartitionRegistration, TopicImage, TopicsImage
from kafka.log.log_config import LogConfig
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from kafka.server.metadata_cache import PartitionState
from kafka.utils.future_utils import handle
from kafka.utils.topic_partition import TopicPartition
from tests.coordinator.group.test_share_group_service import ORDERS, TOPICS, ShareCoordinator, done
from tests.coordinator.share.share_coordinator_harness import STATE_TP, only_partition, request
from tests.coordinator.share.share_coordinator_harness import ShareCoordinator as StateCoordinator
from tests.helpers import replica_manager_leading

pytestmark = pytest.mark.fast

ZERO = uuid.UUID(int=0)
ALL = range(TOPICS["orders"][1])  # orders' partitions


def image_with_orders() -> MetadataImage:
    """The share coordinator's metadata image: the topic the group reads."""
    orders = TopicImage("orders", ORDERS, {p: PartitionRegistration((1,), (1,), 1, 0, 0) for p in ALL})
    return MetadataImage(features=FeaturesImage({}), topics=TopicsImage({ORDERS: orders}, {"orders": orders}))


class ThroughTheShareCoordinator:
    """The group coordinator's persister calls, each sent to the share coordinator as the
    DefaultStatePersister sends it; `fail` makes the next calls fail as a persister that lost its
    coordinator does (the Future raises)."""

    def __init__(self, share: StateCoordinator) -> None:
        self.share = share
        self.fail: Exception | None = None
        self.calls: list[tuple] = []

    def _send(self, future_of, name: str, *key) -> Future:
        self.calls.append((name, *key))
        if self.fail is not None:
            failed: Future = Future()
            failed.set_exception(self.fail)
            return failed
        return future_of()

    def initialize(self, group_id, topic_id, partition, state_epoch, start_offset) -> Future:
        body = dict(group_id=group_id, topics=[dict(topic_id=topic_id, partitions=[dict(
            partition=partition, state_epoch=state_epoch, start_offset=start_offset)])])
        return self._send(lambda: handle(self.share.service.initialize_state(
            request(ApiKey.INITIALIZE_SHARE_GROUP_STATE, body)),
            lambda f: only_partition(f.result())["error_code"]),
            "initialize", group_id, topic_id, partition, start_offset)

    def read_summary(self, group_id, topic_id, partition) -> Future:
        body = dict(group_id=group_id, topics=[dict(topic_id=topic_id, partitions=[dict(partition=partition,
                                                                                        leader_epoch=0)])])

        def summary(f: Future) -> ShareGroupStateSummary:
            p = only_partition(f.result())
            return ShareGroupStateSummary(p["error_code"], p["error_message"], p["state_epoch"],
                                          p["start_offset"],
                                          p["leader_epoch"], p["delivery_complete_count"])
        return self._send(lambda: handle(self.share.service.read_state_summary(
            request(ApiKey.READ_SHARE_GROUP_STATE_SUMMARY, body)), summary), "read_summary", group_id,
            topic_id,
            partition)

    def delete(self, group_id, topic_id, partition) -> Future:
        body = dict(group_id=group_id,
                    topics=[dict(topic_id=topic_id, partitions=[dict(partition=partition)])])
        return self._send(lambda: handle(self.share.service.delete_state(
            request(ApiKey.DELETE_SHARE_GROUP_STATE, body)),
            lambda f: only_partition(f.result())["error_code"]),
            "delete", group_id, topic_id, partition)


@pytest.fixture
def state_replica_manager(tmp_path, time):
    with replica_manager_leading(tmp_path / "share", time, STATE_TP) as manager:
        manager.make_leader(TopicPartition("orders", 0),
                            PartitionState(0, leader=1, leader_epoch=0, replicas=(1,),
                                           isr=(1,)), LogConfig())
        yield manager


@pytest.fixture
def coordinators(replica_manager, state_replica_manager, time):
    group = ShareCoordinator(replica_manager, time)
    share = StateCoordinator(state_replica_manager, time, image=image_with_orders())
    persister = ThroughTheShareCoordinator(share)
    group.service.share_group_state_initializer = persister.initialize
    offsets = group.service.share_group_offsets
    offsets.share_group_state_summary_reader = persister.read_summary
    offsets.share_group_state_deleter = persister.delete
    offsets.topics_image = lambda: TOPICS
    group.persister, group.share = persister, share
    yield group
    share.shutdown()
    group.shutdown()


def describe(group: ShareCoordinator, topics=None, group_id: str = "g") -> dict:
    return done(group.service.share_group_offsets.describe_share_group_offsets(group_id, topics))


def partitions_of(described: dict) -> dict[tuple[str, int], tuple[int, int, int]]:
    """(topic, partition) -> (start offset, leader epoch, lag)."""
    assert described["error_code"] == Errors.NONE, described
    return {(t["topic_name"], p["partition_index"]): (p["start_offset"], p["leader_epoch"], p["lag"])
            for t in described["topics"] for p in t["partitions"]}


def summary(group: ShareCoordinator, partition: int, group_id: str = "g") -> dict:
    """What the share coordinator holds for the group's partition of orders."""
    return group.share.summary(partition=partition, group=group_id, topic_id=ORDERS)


def join_and_leave(group: ShareCoordinator, group_id: str = "g") -> None:
    """A member reads t once (its share state initialized at start -1) and leaves: the group is Empty."""
    group.heartbeat("a", 0, ["orders"], group_id=group_id)
    group.heartbeat("a", -1, group_id=group_id)


def test_describe_shows_the_start_offsets_the_share_partitions_wrote_and_their_lag(coordinators,
                                                                                   state_replica_manager):
    coordinators.heartbeat("a", 0, ["orders"])
    assert partitions_of(describe(coordinators)) == {("orders", p): (-1, 0, -1) for p in ALL}, \
        "initialized, never read: no start offset yet (share.auto.offset.reset decides), no lag"
    coordinators.share.read(partition=0, leader_epoch=3, topic_id=ORDERS)  # a leader of orders-0 took it over
    coordinators.share.write([dict(first_offset=5, last_offset=6, delivery_state=2, delivery_count=1)],
                             partition=0, state_epoch=2, leader_epoch=3, start_offset=5,
                             delivery_complete_count=2,
                             topic_id=ORDERS)
    t0 = TopicPartition("orders", 0)
    state_replica_manager.get_partition(t0).append_records_to_leader(build_batch([(b"k", b"v")] * 10), 1)
    offsets = coordinators.service.share_group_offsets
    offsets.partition_end_offset = lambda tp: high_watermark(state_replica_manager, tp)
    assert partitions_of(describe(coordinators))[("orders", 0)] == (5, 3, 10 - 5 - 2), \
        "lag: the partition's end (10) less the start offset less the records delivered for good past it"
    assert partitions_of(describe(coordinators, [("orders", [0]), ("gone", [1])])) == {
        ("orders", 0): (5, 3, 3), ("gone", 1): (-1, 0, -1)}
    gone = describe(coordinators, [("gone", [1])])["topics"][0]
    assert gone["topic_id"] == ZERO, "a topic nobody knows: Kafka's zero id, and nobody is asked"


def test_describe_of_a_group_without_share_state_is_empty_and_of_a_stopped_coordinator_an_error(coordinators):
    assert describe(coordinators, group_id="nobody") == dict(group_id="nobody", topics=[],
                                                             error_code=Errors.NONE,
                                                            error_message=None)
    coordinators.service.is_active.clear()
    assert describe(coordinators)["error_code"] == Errors.COORDINATOR_NOT_AVAILABLE


def test_a_failed_summary_read_fails_the_group(coordinators):
    coordinators.heartbeat("a", 0, ["orders"])
    coordinators.persister.fail = RuntimeError("no share coordinator")
    described = describe(coordinators)
    assert (described["error_code"], described["topics"]) == (Errors.UNKNOWN_SERVER_ERROR, [])


def test_alter_starts_an_empty_groups_share_partitions_afresh(coordinators):
    join_and_leave(coordinators)
    epoch = coordinators.shard().group_metadata_manager.share.share_group("g").group_epoch
    answer = done(coordinators.service.share_group_offsets.alter_share_group_offsets(
        "g", {"orders": {0: 42, 7: 1}, "nope": {0: 1}}))
    assert answer == dict(error_code=Errors.NONE, error_message=None, responses=[
        dict(topic_name="orders", topic_id=ORDERS, partitions=[
            dict(partition_index=0, error_code=Errors.NONE, error_message=None),
            dict(partition_index=7, error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION,
                 error_message=Errors.UNKNOWN_TOPIC_OR_PARTITION.message)]),
        dict(topic_name="nope", topic_id=ZERO, partitions=[
            dict(partition_index=0, error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION,
                 error_message=Errors.UNKNOWN_TOPIC_OR_PARTITION.message)])])
    held = summary(coordinators, 0)
    assert (held["start_offset"], held["state_epoch"]) == (42, epoch), \
        "the share coordinator holds the new start offset, at the group's epoch"
    assert partitions_of(describe(coordinators, [("orders", [0])])) == {("orders", 0): (42, 0, -1)}
    info = coordinators.shard().group_metadata_manager.share.state.get("g")
    assert (info.initializing_topics, set(info.initialized_topics[ORDERS].partitions)) == ({}, {0, 1, 2, 3})


def test_alter_of_a_group_nobody_ran_yet_creates_it_empty(coordinators):
    answer = done(coordinators.service.share_group_offsets.alter_share_group_offsets("new",
                                                                                     {"orders": {1: 7}}))
    assert answer["error_code"] == Errors.NONE
    assert summary(coordinators, 1, "new")["start_offset"] == 7
    error, listed = done(coordinators.service.list_groups(set(), {"share"}))
    assert listed == [dict(group_id="new", protocol_type="share", group_state="Empty", group_type="share")]


def test_alter_is_refused_while_the_group_has_members_and_for_a_bad_id(coordinators):
    coordinators.heartbeat("a", 0, ["orders"])
    offsets = coordinators.service.share_group_offsets
    assert done(offsets.alter_share_group_offsets("g", {"orders": {0: 1}})) == dict(
        error_code=Errors.NON_EMPTY_GROUP, error_message="The group is not empty.", responses=[])
    invalid = done(offsets.alter_share_group_offsets("", {"orders": {0: 1}}))
    assert invalid["error_code"] == Errors.INVALID_GROUP_ID


def test_alter_answers_the_persisters_refusals_partition_by_partition(coordinators):
    join_and_leave(coordinators)
    coordinators.service.share_group_state_initializer = lambda g, t, p, epoch, start: completed_with(
        Errors.FENCED_STATE_EPOCH if p == 1 else Errors.NONE)
    answer = done(coordinators.service.share_group_offsets.alter_share_group_offsets("g",
                                                                                     {"orders": {0: 3,
                                                                                                 1: 3}}))
    assert [(p["partition_index"], p["error_code"]) for p in answer["responses"][0]["partitions"]] == [
        (0, Errors.NONE), (1, Errors.FENCED_STATE_EPOCH)]
    coordinators.service.share_group_state_initializer = coordinators.persister.initialize
    coordinators.persister.fail = RuntimeError("persister down")
    failed = done(coordinators.service.share_group_offsets.alter_share_group_offsets("g", {"orders": {0: 3}}))
    assert (failed["error_code"], failed["responses"][0]["partitions"][0]["error_code"]) == (
        Errors.UNKNOWN_SERVER_ERROR, Errors.UNKNOWN_SERVER_ERROR)


def completed_with(value) -> Future:
    future: Future = Future()
    future.set_result(value)
    return future


def test_delete_offsets_forgets_a_topics_share_state(coordinators):
    join_and_leave(coordinators)
    offsets = coordinators.service.share_group_offsets
    done(offsets.alter_share_group_offsets("g", {"orders": {0: 42}}))
    answer = done(offsets.delete_share_group_offsets("g", ["orders", "nope"]))
    assert answer == dict(error_code=Errors.NONE, error_message=None, responses=[
        dict(topic_name="orders", topic_id=ORDERS, error_code=Errors.NONE, error_message=None),
        dict(topic_name="nope", topic_id=ZERO, error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION,
             error_message=Errors.UNKNOWN_TOPIC_OR_PARTITION.message)])
    assert coordinators.persister.calls[-len(ALL):] == [("delete", "g", ORDERS, p) for p in ALL]
    assert summary(coordinators, 0)["start_offset"] == -1, "the share coordinator forgot it"
    info = coordinators.shard().group_metadata_manager.share.state.get("g")
    assert (info.initialized_topics, info.deleting_topics) == ({}, frozenset())
    again = done(offsets.delete_share_group_offsets("g", ["orders"]))
    assert again["responses"] == [dict(topic_name="orders", topic_id=ZERO,
                                       error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                       error_message="There is no offset information to delete.")]


def test_delete_offsets_is_refused_for_a_group_with_members_or_none(coordinators):
    coordinators.heartbeat("a", 0, ["orders"])
    offsets = coordinators.service.share_group_offsets
    assert done(offsets.delete_share_group_offsets("g", ["orders"])) == dict(
        error_code=Errors.NON_EMPTY_GROUP, error_message="The group is not empty.", responses=[])
    assert done(offsets.delete_share_group_offsets("x", ["orders"])) == dict(
        error_code=Errors.GROUP_ID_NOT_FOUND, error_message="Group x not found.", responses=[])


def test_a_topic_whose_state_the_persister_kept_stays_deleting_and_is_asked_again(coordinators):
    join_and_leave(coordinators)
    offsets = coordinators.service.share_group_offsets
    offsets.share_group_state_deleter = lambda g, t, p: completed_with(
        Errors.COORDINATOR_LOAD_IN_PROGRESS if p == 3 else Errors.NONE)
    answer = done(offsets.delete_share_group_offsets("g", ["orders"]))
    assert answer["responses"] == [dict(topic_name="orders", topic_id=ORDERS,
                                        error_code=Errors.COORDINATOR_LOAD_IN_PROGRESS,
                                        error_message=Errors.COORDINATOR_LOAD_IN_PROGRESS.message)]
    assert coordinators.shard().group_metadata_manager.share.state.get("g").deleting_topics == {ORDERS}
    offsets.share_group_state_deleter = coordinators.persister.delete
    assert done(offsets.delete_share_group_offsets("g",
                                                   ["orders"]))["responses"][0]["error_code"] == Errors.NONE
    assert coordinators.persister.calls[-len(ALL):] == [("delete", "g", ORDERS, p) for p in ALL], \
        "a topic deleting already: every partition of it is asked again"


def test_deleting_a_share_group_deletes_its_share_state_first(coordinators):
    join_and_leave(coordinators)
    assert summary(coordinators, 3)["state_epoch"] > 0
    assert done(coordinators.service.delete_groups(["g", "not-a-group"])) == {
        "g": Errors.NONE, "not-a-group": Errors.GROUP_ID_NOT_FOUND}
    assert [c for c in coordinators.persister.calls if c[0] == "delete"] == [
        ("delete", "g", ORDERS, p) for p in ALL]
    assert summary(coordinators, 3)["state_epoch"] == 0, "gone from the share coordinator"
    (described,) = done(coordinators.service.share_group_describe(["g"]))
    assert described["error_code"] == Errors.GROUP_ID_NOT_FOUND


def test_a_share_group_whose_state_could_not_be_deleted_stays(coordinators):
    join_and_leave(coordinators)
    coordinators.persister.fail = RuntimeError("persister down")
    assert done(coordinators.service.delete_groups(["g"])) == {"g": Errors.UNKNOWN_SERVER_ERROR}
    share = coordinators.shard().group_metadata_manager.share
    assert share.share_group("g") is not None and share.state.get("g").deleting_topics == {ORDERS}
    coordinators.persister.fail = None
    assert done(coordinators.service.delete_groups(["g"])) == {"g": Errors.NONE}
    assert share.share_group("g") is None


def test_a_share_group_with_members_is_not_deleted_and_its_state_is_untouched(coordinators):
    coordinators.heartbeat("a", 0, ["orders"])
    assert done(coordinators.service.delete_groups(["g"])) == {"g": Errors.NON_EMPTY_GROUP}
    assert not [c for c in coordinators.persister.calls if c[0] == "delete"]


def test_the_high_watermark_is_a_partitions_end(state_replica_manager):
    t0 = TopicPartition("orders", 0)
    state_replica_manager.get_partition(t0).append_records_to_leader(build_batch([(b"k", b"v")] * 4), 1)
    assert high_watermark(state_replica_manager, t0) == 4
    assert high_watermark(state_replica_manager, TopicPartition("orders", 9)) is None

