"""Share groups through the GroupCoordinatorService, over the coordinator runtime and a real
ReplicaManager and log on a mock clock: ShareGroupHeartbeat answered once its records commit, the
share state initialized through the persister seam (Kafka's NoOpStatePersister answer until the broker
wires one) so the next heartbeat hands the partitions out, ShareGroupDescribe, ListGroups and
DescribeGroups of a share group, JoinGroup to its id, DeleteGroups, and a failover that replays it all
from ``__consumer_offsets``.

Everything runs on the test's thread (DirectEventProcessor; the loader runs at once), so every answer is
a Future whose .done() says whether its records have committed.
"""

from __future__ import annotations

import uuid
from concurrent.futures import Future

import pytest

from kafka.coordinator.common.runtime.coordinator_loader_impl import CoordinatorLoaderImpl
from kafka.coordinator.common.runtime.coordinator_partition_writer import CoordinatorPartitionWriter
from kafka.coordinator.common.runtime.coordinator_runtime import CoordinatorRuntime
from kafka.coordinator.common.runtime.coordinator_runtime_metrics import CoordinatorRuntimeMetrics
from kafka.coordinator.common.runtime.direct_event_processor import DirectEventProcessor
from kafka.coordinator.group import group_coordinator_records as records
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.coordinator.group.group_coordinator_record_serde import GroupCoordinatorRecordSerde
from kafka.coordinator.group.group_coordinator_requests import JoinGroupRequest, RequestContext
from kafka.coordinator.group.group_coordinator_service import GroupCoordinatorService
from kafka.coordinator.group.group_coordinator_shard import GroupCoordinatorShard
from kafka.coordinator.group.share_group_manager import ShareGroupHeartbeatRequest
from kafka.protocol.errors import Errors
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.topic_partition import TopicPartition
from tests.coordinator.runtime.runtime_fixture import QueuedExecutor

pytestmark = pytest.mark.fast

OFFSETS_TP = TopicPartition(records.GROUP_METADATA_TOPIC_NAME, 0)
ORDERS = uuid.UUID(int=7)
TOPICS = {"orders": (ORDERS, 4)}
CONFIG = GroupCoordinatorConfig(offsets_topic_num_partitions=1, share_group_assignment_interval_ms=0)
CONTEXT = RequestContext("share-client", "/10.0.0.1", api_version=1)


class ShareCoordinator:
    """One broker's group coordinator leading __consumer_offsets-0, as share consumers reach it."""

    def __init__(self, replica_manager, time, leader_epoch: int = 0) -> None:
        self.replica_manager, self.time = replica_manager, time
        self.timer = SystemTimer("group-coordinator", time=time)
        serde = GroupCoordinatorRecordSerde()
        self.runtime = CoordinatorRuntime(
            log_prefix="test", time=time, timer=self.timer, processor=DirectEventProcessor(),
            partition_writer=CoordinatorPartitionWriter(replica_manager),
            loader=CoordinatorLoaderImpl(replica_manager.read_partition_log, serde, time,
                                         executor=QueuedExecutor(immediate=True)),
            coordinator_shard_builder=GroupCoordinatorShard.builder(CONFIG, lambda: TOPICS, lambda ms: None),
            serde=serde, metrics=CoordinatorRuntimeMetrics(time), default_write_timeout_ms=5000)
        self.service = GroupCoordinatorService(CONFIG, self.runtime, time)
        self.service.startup()
        self.service.on_election(0, leader_epoch)

    def shard(self) -> GroupCoordinatorShard:
        return self.runtime.context(OFFSETS_TP).coordinator.coordinator

    def advance(self, ms: int) -> None:
        self.time.sleep(ms)
        self.timer.advance_clock(0)

    def heartbeat(self, member_id: str, epoch: int, topics=None, group_id: str = "g") -> dict:
        return done(self.service.share_group_heartbeat(
            ShareGroupHeartbeatRequest(group_id, member_id, epoch, None, topics), CONTEXT))

    def shutdown(self) -> None:
        self.service.shutdown()


@pytest.fixture
def coordinator(replica_manager, time):
    c = ShareCoordinator(replica_manager, time)
    yield c
    c.shutdown()


def done(future: Future):
    assert future.done(), "the answer should be there"
    return future.result()


def test_a_member_joins_and_reads_once_the_persister_initialized_the_share_state(coordinator):
    joined = coordinator.heartbeat("a", 0, ["orders"])
    assert (joined["error_code"], joined["member_epoch"], joined["assignment"]) == (
        Errors.NONE, 2, {"topic_partitions": []})
    shard = coordinator.shard().group_metadata_manager.share
    assert shard.initialized_share_group_partitions("g") == {ORDERS: {0, 1, 2, 3}}, \
        "the persister answered (no error) and the service wrote the partitions down as initialized"
    assert done(coordinator.service.initialized_share_group_partitions("g")) == {ORDERS: {0, 1, 2, 3}}
    beat = coordinator.heartbeat("a", 2)
    assert beat["member_epoch"] == 3
    assert beat["assignment"] == {"topic_partitions": [{"topic_id": ORDERS, "partitions": [0, 1, 2, 3]}]}


def test_a_failed_initialization_leaves_the_partitions_uninitialized(coordinator):
    """The persister answers an error (what the share coordinator's persister answers while
    __share_group_state has no leader): the partitions are no longer initializing, and the next
    heartbeat asks again."""
    shard = coordinator.shard().group_metadata_manager.share
    service = coordinator.service
    service.share_group_state_initializer = lambda *partition: answered(Errors.COORDINATOR_NOT_AVAILABLE)
    coordinator.heartbeat("a", 0, ["orders"])
    assert shard.state.get("g").initializing_topics == {}
    assert shard.initialized_share_group_partitions("g") == {}
    service.share_group_state_initializer = lambda *partition: answered(Errors.NONE)
    coordinator.heartbeat("a", 2)  # not initializing any more: asked again at once
    assert shard.initialized_share_group_partitions("g") == {ORDERS: {0, 1, 2, 3}}


def answered(value) -> Future:
    future: Future = Future()
    future.set_result(value)
    return future


def test_bad_requests_and_an_inactive_coordinator_are_answered_without_a_write(coordinator, replica_manager):
    before = replica_manager.get_partition(OFFSETS_TP).log.log_end_offset
    bad = coordinator.heartbeat("", 0, ["orders"])
    assert (bad["error_code"], bad["error_message"], bad["member_epoch"]) == (
        Errors.INVALID_REQUEST, "MemberId can't be empty.", 0)
    assert coordinator.heartbeat("a", 0, None)["error_code"] == Errors.INVALID_REQUEST
    assert replica_manager.get_partition(OFFSETS_TP).log.log_end_offset == before
    coordinator.service.is_active.clear()
    assert coordinator.heartbeat("a", 0, ["orders"])["error_code"] == Errors.COORDINATOR_NOT_AVAILABLE
    (described,) = done(coordinator.service.share_group_describe(["g"]))
    assert described["error_code"] == Errors.COORDINATOR_NOT_AVAILABLE


def test_describe_list_and_describe_groups_of_a_share_group(coordinator):
    coordinator.heartbeat("a", 0, ["orders"])
    coordinator.heartbeat("a", 2)
    invalid, described, unknown = done(coordinator.service.share_group_describe(["g", "", "unknown"]))
    assert (invalid["group_id"], invalid["error_code"], invalid["error_message"]) == ("",
                                                                                      Errors.INVALID_GROUP_ID,
                                                                                      None)
    assert (described["group_id"], described["group_state"], described["group_epoch"],
            described["assignor_name"]) == (
        "g", "Stable", 3, "simple")
    assert described["members"][0]["assignment"]["topic_partitions"][0]["topic_name"] == "orders"
    assert unknown["error_code"] == Errors.GROUP_ID_NOT_FOUND
    error, listed = done(coordinator.service.list_groups(set(), set()))
    assert (error, listed) == (Errors.NONE, [dict(group_id="g", protocol_type="share", group_state="Stable",
                                                  group_type="share")])
    assert done(coordinator.service.list_groups(set(), {"consumer"})) == (Errors.NONE, [])
    assert done(coordinator.service.describe_group("g")) == (Errors.NONE, None), \
        "DescribeGroups knows classic groups only: the handler answers Dead / GROUP_ID_NOT_FOUND"


def test_a_classic_member_cannot_join_a_share_groups_id(coordinator):
    coordinator.heartbeat("a", 0, ["orders"])
    joined = done(coordinator.service.join_group(JoinGroupRequest(
        "g", "", None, False, 30_000, 10_000, "consumer", [("range", b"")]), CONTEXT))
    assert (joined.error, joined.member_id) == (Errors.INCONSISTENT_GROUP_PROTOCOL, "")


def test_a_share_group_is_deleted_only_once_empty(coordinator):
    coordinator.heartbeat("a", 0, ["orders"])
    assert done(coordinator.service.delete_groups(["g"])) == {"g": Errors.NON_EMPTY_GROUP}
    assert coordinator.heartbeat("a", -1)["member_epoch"] == -1
    assert done(coordinator.service.delete_groups(["g"])) == {"g": Errors.NONE}
    assert done(coordinator.service.share_group_describe(["g"]))[0]["error_code"] == Errors.GROUP_ID_NOT_FOUND
    assert coordinator.shard().group_metadata_manager.share.state.get("g") is None


def test_deleting_a_share_group_deletes_its_share_state_through_the_persister_first(coordinator):
    """Kafka's deleteShareGroups: every partition whose share state exists is deleted through the
    persister before the group's tombstones are written; a persister error keeps the group."""
    deleted: list[tuple[str, uuid.UUID, int]] = []
    answers = {"code": Errors.COORDINATOR_NOT_AVAILABLE}

    def delete_state(group_id: str, topic_id: uuid.UUID, partition: int) -> Future:
        deleted.append((group_id, topic_id, partition))
        return answered(answers["code"])
    coordinator.service.share_group_offsets.share_group_state_deleter = delete_state
    coordinator.heartbeat("a", 0, ["orders"])
    assert done(coordinator.service.delete_groups(["g"])) == {"g": Errors.NON_EMPTY_GROUP}
    assert deleted == [], "a group with members keeps its state"
    coordinator.heartbeat("a", -1)

    assert done(coordinator.service.delete_groups(["g"])) == {"g": Errors.COORDINATOR_NOT_AVAILABLE}
    assert done(coordinator.service.share_group_describe(["g"]))[0]["error_code"] == Errors.NONE, "kept"
    deleted.clear()
    answers["code"] = Errors.NONE
    assert done(coordinator.service.delete_groups(["g"])) == {"g": Errors.NONE}
    assert deleted == [("g", ORDERS, p) for p in range(4)]
    assert done(coordinator.service.share_group_describe(["g"]))[0]["error_code"] == Errors.GROUP_ID_NOT_FOUND


def test_an_empty_share_group_outlives_the_offsets_retention(replica_manager, time):
    c = ShareCoordinator(replica_manager, time)
    try:
        c.heartbeat("a", 0, ["orders"])
        c.heartbeat("a", -1)
        c.advance(CONFIG.offsets_retention_ms + CONFIG.offsets_retention_check_interval_ms)
        described, = done(c.service.share_group_describe(["g"]))
        assert (described["error_code"], described["group_state"]) == (Errors.NONE, "Empty")
    finally:
        c.shutdown()


def test_a_failover_replays_the_share_group_and_its_sessions(coordinator):
    epochs = {m: coordinator.heartbeat(m, 0, ["orders"])["member_epoch"] for m in ("a", "b")}
    for member in ("a", "b"):
        epochs[member] = coordinator.heartbeat(member, epochs[member])["member_epoch"]
    before = done(coordinator.service.share_group_describe(["g"]))
    assert sorted(len(m["assignment"]["topic_partitions"][0]["partitions"])
                  for m in before[0]["members"]) == [2, 2]
    coordinator.service.on_resignation(0, 1)
    coordinator.shutdown()

    again = ShareCoordinator(coordinator.replica_manager, coordinator.time, leader_epoch=1)
    try:
        assert done(again.service.share_group_describe(["g"])) == before
        share = again.shard().group_metadata_manager.share
        assert share.initialized_share_group_partitions("g") == {ORDERS: {0, 1, 2, 3}}
        again.advance(30_000)
        assert again.heartbeat("a", epochs["a"])["error_code"] == Errors.NONE
        again.advance(15_000)  # b has not been heard of since the load, 45 s ago
        assert list(share.share_group("g").members) == ["a"]
    finally:
        again.shutdown()
