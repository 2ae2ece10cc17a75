"""The GroupCoordinator and its GroupMetadataManager over a real ReplicaManager and log, with a mock
clock: session timeouts, offset retention and the reload of __consumer_offsets, without sockets."""

from __future__ import annotations

from kafka.coordinator import coordinator_records as records
from kafka.coordinator.group_coordinator import GroupConfig, GroupCoordinator
from kafka.coordinator.group_metadata import GroupState
from kafka.coordinator.group_metadata_manager import OffsetConfig, java_string_hash, kafka_abs
from kafka.coordinator.group_rebalance import JoinGroupResult
from kafka.coordinator.offset_and_metadata import OffsetAndMetadata
from kafka.log.log_config import LogConfig
from kafka.protocol.errors import Errors
from kafka.server.metadata_cache import PartitionState
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import wait_until

TP = TopicPartition("t", 0)


def test_group_partition_is_java_hash_code_based():
    assert java_string_hash("foo") == 101574  # "foo".hashCode() on a JVM
    assert java_string_hash("polygenelubricants") == -(2**31)  # the famous Integer.MIN_VALUE hash
    assert kafka_abs(java_string_hash("polygenelubricants")) == 0
    assert kafka_abs(java_string_hash("foo")) % 50 == 24


def test_record_schemas_round_trip():
    key = records.read_message_key(records.offset_commit_key("g", "t", 3))
    assert key == records.OffsetKey("g", "t", 3)
    offset = OffsetAndMetadata(42, 7, "meta", 1000)
    assert records.read_offset_message_value(records.offset_commit_value(offset)) == offset
    expiring = OffsetAndMetadata(42, -1, "m", 1000, 5000)  # only value v1 carries an expiry
    assert records.read_offset_message_value(records.offset_commit_value(expiring)) == expiring
    assert records.read_message_key(records.group_metadata_key("g")) == records.GroupMetadataKey("g")
    assert records.read_offset_message_value(None) is None


def start_coordinator(replica_manager, time) -> GroupCoordinator:
    coordinator = GroupCoordinator(1, GroupConfig(group_min_session_timeout_ms=100, group_initial_rebalance_delay_ms=0),
                                   OffsetConfig(offsets_topic_num_partitions=1, offsets_retention_ms=60_000),
                                   replica_manager, time)
    coordinator.startup(offsets_topic_partitions=1)
    wait_until(lambda: coordinator.group_manager.is_group_local("any"), message="the offsets partition to load")
    return coordinator


def join_and_sync(coordinator, group_id: str, session_timeout_ms: int) -> str:
    joined: list[JoinGroupResult] = []
    coordinator.handle_join_group(group_id, "", None, False, "client", "/127.0.0.1", 1000, session_timeout_ms,
                                  "consumer", [("range", b"")], joined.append)
    wait_until(lambda: joined, message="the join to complete")
    assert joined[0].error == Errors.NONE
    member_id = joined[0].member_id
    synced = []
    coordinator.handle_sync_group(group_id, joined[0].generation_id, member_id, None, None, None,
                                  {member_id: b"assignment"}, synced.append)
    assert synced[0].error == Errors.NONE and synced[0].assignment == b"assignment"
    return member_id


def test_a_silent_member_is_removed_when_its_session_times_out(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    try:
        member_id = join_and_sync(coordinator, "g", session_timeout_ms=500)
        group = coordinator.group_manager.get_group("g")
        assert group.is_state(GroupState.STABLE)
        time.advance(400)
        beats = []
        coordinator.handle_heartbeat("g", member_id, None, 1, beats.append)  # alive: the clock restarts
        time.advance(400)
        coordinator.heartbeat_purgatory.advance_clock(0)
        assert beats == [Errors.NONE] and group.has(member_id)
        time.advance(200)  # 600 ms since the last heartbeat
        wait_until(lambda: coordinator.heartbeat_purgatory.advance_clock(0) or not group.has(member_id),
                   message="the member to expire")
        wait_until(lambda: group.is_state(GroupState.EMPTY), message="the group to empty")
        assert group.generation_id == 2
    finally:
        coordinator.shutdown()


def test_commits_reload_from_the_log_and_expire_after_retention(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    statuses = []
    coordinator.offset_metadata_manager.commit_offset(
        "simple", "", None, -1, {TP: OffsetAndMetadata(5, -1, "m", time.milliseconds())}, statuses.append)
    assert statuses == [{TP: Errors.NONE}]
    coordinator.shutdown()

    coordinator = start_coordinator(replica_manager, time)  # a new coordinator replays the partition
    try:
        assert coordinator.offset_metadata_manager.fetch_offsets("simple", False, [TP])[1][TP].offset == 5
        time.advance(60_000)
        coordinator.group_manager.cleanup_group_metadata_expired_offsets()
        assert coordinator.offset_metadata_manager.fetch_offsets("simple", False, [TP])[1][TP].offset == -1
        assert coordinator.group_manager.get_group("simple") is None  # empty and offset-less: dead
    finally:
        coordinator.shutdown()
    coordinator = start_coordinator(replica_manager, time)  # the tombstone was written: still gone
    try:
        assert coordinator.group_manager.get_group("simple") is None
    finally:
        coordinator.shutdown()


def test_groups_outside_owned_partitions_are_not_ours(replica_manager, time):
    coordinator = GroupCoordinator(1, GroupConfig(), OffsetConfig(offsets_topic_num_partitions=1), replica_manager,
                                   time)
    coordinator.startup()  # no __consumer_offsets partition elected yet
    try:
        results = []
        coordinator.handle_join_group("g", "", None, True, "c", "h", 1000, 10_000, "consumer", [("range", b"")],
                                      results.append)
        assert results[0].error == Errors.NOT_COORDINATOR
    finally:
        coordinator.shutdown()


def test_a_load_for_a_partition_lost_meanwhile_claims_nothing(replica_manager, time):
    """Replaying the metadata log at start-up, a broker leads, loses and leads again the same
    __consumer_offsets partition within milliseconds. A load that finishes after the partition was
    lost must neither install groups nor mark the partition owned: the next election loads it."""
    coordinator = start_coordinator(replica_manager, time)
    manager = coordinator.group_manager
    tp = TopicPartition(records.GROUP_METADATA_TOPIC_NAME, 0)
    coordinator.on_resignation([0])
    replica_manager.make_follower(tp, PartitionState(0, leader=2, leader_epoch=1, replicas=(1, 2), isr=(2,)),
                                  LogConfig())
    manager.loading_partitions.add(0)  # a load scheduled by the first election, still running
    coordinator.on_resignation([0])  # ... when the partition is lost
    manager.load_group_and_offsets(0, coordinator.on_group_loaded)
    assert 0 not in manager.owned_partitions and 0 not in manager.loading_partitions

    replica_manager.make_leader(tp, PartitionState(0, leader=1, leader_epoch=2, replicas=(1, 2), isr=(1,)),
                                LogConfig())
    coordinator.on_election([0], load_now=True)
    assert 0 in manager.owned_partitions
    coordinator.shutdown()
