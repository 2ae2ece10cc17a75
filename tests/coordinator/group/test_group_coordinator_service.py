"""The GroupCoordinatorService over the coordinator runtime and a real ReplicaManager and log on a mock
clock (the cases of the old tests/coordinator/test_txn_offset_commit.py, test_group_coordinator.py and
test_consumer_group_commit.py, brought back against the new service).

Everything runs on the test's thread: the DirectEventProcessor runs each event when it is scheduled,
the loader's executor runs a load at once (or when the test says), and the runtime's SystemTimer
expires its tasks when the test calls advance_clock(0). So every answer is a Future whose .done()
says whether the records it waits for have committed.
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
from kafka.coordinator.common.runtime.partition_writer import CoordinatorWriteError
from kafka.coordinator.group import group_coordinator_records as records
from kafka.coordinator.group.classic.classic_group_results import JoinGroupResult, SyncGroupResult
from kafka.coordinator.group.consumer_group_manager import HeartbeatRequest as ConsumerHeartbeat
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.coordinator.group.group_coordinator_record_serde import GroupCoordinatorRecordSerde
from kafka.coordinator.group.group_coordinator_requests import (
    HeartbeatRequest,
    JoinGroupRequest,
    OffsetCommitRequest,
    RequestContext,
    SyncGroupRequest,
    TxnOffsetCommitRequest,
)
from kafka.coordinator.group.group_coordinator_service import GroupCoordinatorService, normalize_error
from kafka.coordinator.group.group_coordinator_shard import GroupCoordinatorShard
from kafka.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka.log.log_config import LogConfig
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import iter_batches
from kafka.server.fetch_partition_data import FetchPartitionInfo
from kafka.server.metadata_cache import PartitionState
from kafka.server.replica_manager import FetchParams
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.topic_partition import TopicPartition
from tests.coordinator.runtime.runtime_fixture import QueuedExecutor

pytestmark = pytest.mark.fast

TP = TopicPartition("t", 0)
OFFSETS_TP = TopicPartition(records.GROUP_METADATA_TOPIC_NAME, 0)
TOPIC_ID = uuid.UUID(int=1)
PRODUCER_ID, EPOCH = 7, 0
COMMIT_TIMEOUT_MS = 5000
FOLLOWER = 2
CONFIG = GroupCoordinatorConfig(offsets_topic_num_partitions=1, offset_commit_timeout_ms=COMMIT_TIMEOUT_MS,
                                classic_group_min_session_timeout_ms=100,
                                classic_group_initial_rebalance_delay_ms=0, offsets_retention_ms=60_000,
                                offsets_retention_check_interval_ms=1000)
CONTEXT = RequestContext("client", "/127.0.0.1", api_version=5)


class Coordinator:
    """One broker's group coordinator: the service over a runtime that appends through, and loads
    from, the ReplicaManager that leads __consumer_offsets-0."""

    def __init__(self, replica_manager, time, config: GroupCoordinatorConfig = CONFIG, load_now: bool = True,
                 leader_epoch: int = 0) -> None:
        self.replica_manager = replica_manager
        self.time = time
        self.timer = SystemTimer("group-coordinator", time=time)
        self.loader_executor = QueuedExecutor(immediate=load_now)
        self.writer = CoordinatorPartitionWriter(replica_manager)
        self.assignment_times: list[float] = []
        serde = GroupCoordinatorRecordSerde()
        self.runtime = CoordinatorRuntime(
            log_prefix="test", time=time, timer=self.timer, processor=DirectEventProcessor(),
            partition_writer=self.writer,
            loader=CoordinatorLoaderImpl(replica_manager.read_partition_log, serde, time,
                                         executor=self.loader_executor),
            coordinator_shard_builder=GroupCoordinatorShard.builder(
                config, lambda: {TP.topic: (TOPIC_ID, 1)}, self.assignment_times.append),
            serde=serde, metrics=CoordinatorRuntimeMetrics(time), default_write_timeout_ms=COMMIT_TIMEOUT_MS)
        self.service = GroupCoordinatorService(config, self.runtime, time)
        self.service.startup()
        self.service.on_election(0, leader_epoch)

    def shard(self) -> GroupCoordinatorShard:
        return self.runtime.context(OFFSETS_TP).coordinator.coordinator

    def advance(self, ms: int) -> None:
        self.time.sleep(ms)
        self.timer.advance_clock(0)

    def shutdown(self) -> None:
        self.service.shutdown()

    # ------------------------------------------------------------------ requests
    def commit(self, group_id: str, offset: int, member_id: str = "", generation_id: int = -1,
               group_instance_id: str | None = None, api_version: int = 5) -> Future:
        return self.service.commit_offsets(OffsetCommitRequest(
            group_id, member_id, group_instance_id, generation_id,
            {TP: OffsetAndMetadata(offset, -1, "", self.time.milliseconds())}, api_version),
            RequestContext("client", "/127.0.0.1", api_version))

    def txn_commit(self, group_id: str, offset: int, producer_id: int = PRODUCER_ID, epoch: int = EPOCH,
                   member_id: str = "", generation_id: int = -1,
                   group_instance_id: str | None = None) -> Future:
        return self.service.commit_transactional_offsets(TxnOffsetCommitRequest(
            "txn-1", group_id, producer_id, epoch, member_id, group_instance_id, generation_id,
            {TP: OffsetAndMetadata(offset, -1, "", self.time.milliseconds())}, 3), CONTEXT)

    def marker(self, committed: bool, producer_id: int = PRODUCER_ID, epoch: int = EPOCH) -> Future:
        """What a WriteTxnMarkers for __consumer_offsets-0 asks of the group coordinator."""
        return self.service.complete_transaction(0, producer_id, epoch, 0, committed, COMMIT_TIMEOUT_MS)

    def fetch(self, group_id: str, require_stable: bool = False):
        """The partition's PartitionOffset, once the answer is there."""
        future = self.service.fetch_offsets(group_id, [TP], require_stable)
        assert future.done()
        error, offsets = future.result()
        assert error == Errors.NONE, error
        return offsets[TP]

    def join_and_sync(self, group_id: str, session_timeout_ms: int = 10_000,
                      group_instance_id: str | None = None) -> tuple[str, int]:
        """A classic member joins and syncs alone; its member id and generation."""
        joined = self.service.join_group(JoinGroupRequest(
            group_id, "", group_instance_id, False, 1000, session_timeout_ms, "consumer", [("range", b"")]),
            CONTEXT)
        self.advance(0)  # the initial rebalance delay (0 ms) is a timer of the shard
        assert joined.done()
        result: JoinGroupResult = joined.result()
        assert result.error == Errors.NONE, result
        synced = self.service.sync_group(SyncGroupRequest(
            group_id, result.generation_id, result.member_id, group_instance_id, "consumer", "range",
            {result.member_id: b"assignment"}), CONTEXT)
        assert synced.done()
        sync: SyncGroupResult = synced.result()
        assert sync.error == Errors.NONE and sync.assignment == b"assignment"
        return result.member_id, result.generation_id

    def consumer_heartbeat(self, group_id: str, member_id: str, epoch: int, owned=None,
                           joining: bool = False) -> Future:
        if joining:
            request = ConsumerHeartbeat(group_id, member_id, 0, rebalance_timeout_ms=30_000,
                                        subscribed_topic_names=[TP.topic], topic_partitions={})
        else:
            request = ConsumerHeartbeat(group_id, member_id, epoch, topic_partitions=owned)
        return self.service.consumer_group_heartbeat(request, CONTEXT)

    def join_consumer_group(self, group_id: str, member_id: str) -> int:
        """A KIP-848 member joins through ConsumerGroupHeartbeat; its member epoch."""
        answer = self.consumer_heartbeat(group_id, member_id, 0, joining=True)
        assert answer.done() and answer.result()["error_code"] == Errors.NONE, answer.result()
        return answer.result()["member_epoch"]


@pytest.fixture
def coordinator(replica_manager, time):
    c = Coordinator(replica_manager, time)
    yield c
    c.shutdown()


def reload(c: Coordinator, epoch: int) -> Coordinator:
    """A failover: this shard goes (unload), a new runtime loads the partition from the log."""
    c.service.on_resignation(0, epoch)
    c.shutdown()
    return Coordinator(c.replica_manager, c.time, leader_epoch=epoch)


def done(future: Future):
    assert future.done(), "the answer should be there"
    return future.result()


# ---------------------------------------------------------------------- transactional offsets (KIP-98)
def test_transactional_offsets_are_pending_until_the_commit_marker(coordinator):
    assert done(coordinator.txn_commit("g", 10)) == {TP: Errors.NONE}
    assert coordinator.fetch("g").offset == -1  # invisible while the transaction is open
    assert coordinator.fetch("g", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT
    assert done(coordinator.marker(committed=True)) == Errors.NONE
    assert coordinator.fetch("g").offset == 10
    stable = coordinator.fetch("g", require_stable=True)
    assert (stable.error, stable.offset) == (Errors.NONE, 10)


def test_the_batch_is_transactional_and_carries_the_producer_and_the_marker_follows(coordinator,
                                                                                    replica_manager):
    done(coordinator.txn_commit("g", 10))
    done(coordinator.marker(committed=True))
    batches = list(iter_batches(replica_manager.read_partition_log(OFFSETS_TP, 0, 1 << 20).records))
    assert [(b.is_transactional, b.is_control_batch) for b in batches] == [(True, False), (True, True)]
    assert {(b.producer_id, b.producer_epoch) for b in batches} == {(PRODUCER_ID, EPOCH)}


def test_an_abort_drops_the_pending_offsets_and_keeps_the_committed_one(coordinator):
    assert done(coordinator.commit("g", 3)) == {TP: Errors.NONE}
    done(coordinator.txn_commit("g", 10))
    assert done(coordinator.marker(committed=False)) == Errors.NONE
    stable = coordinator.fetch("g", require_stable=True)
    assert (stable.error, stable.offset) == (Errors.NONE, 3)


def test_a_commit_written_after_the_transactional_one_wins(coordinator):
    """The transaction commits after a plain commit written later in the log: the log order decides."""
    done(coordinator.txn_commit("g", 10))
    assert done(coordinator.commit("g", 20)) == {TP: Errors.NONE}
    done(coordinator.marker(committed=True))
    assert coordinator.fetch("g").offset == 20


def test_a_marker_for_another_producer_leaves_the_offsets_pending(coordinator):
    done(coordinator.txn_commit("g", 10))
    assert done(coordinator.marker(committed=True, producer_id=99)) == Errors.NONE
    assert coordinator.fetch("g", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT
    assert coordinator.fetch("g").offset == -1


def test_a_reload_replays_committed_aborted_and_open_transactions(coordinator):
    done(coordinator.txn_commit("committed", 10, producer_id=1))
    done(coordinator.txn_commit("aborted", 11, producer_id=2))
    done(coordinator.txn_commit("open", 12, producer_id=3))
    done(coordinator.marker(committed=True, producer_id=1))
    done(coordinator.marker(committed=False, producer_id=2))

    again = reload(coordinator, epoch=1)
    try:
        assert again.fetch("committed").offset == 10
        assert again.fetch("aborted").offset == -1
        assert again.fetch("open").offset == -1
        assert again.fetch("open", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT
        # The open transaction's marker arrives at the new leader, which completes it.
        assert done(again.marker(committed=True, producer_id=3)) == Errors.NONE
        stable = again.fetch("open", require_stable=True)
        assert (stable.error, stable.offset) == (Errors.NONE, 12)
    finally:
        again.shutdown()


def test_a_reload_reads_past_a_lagging_high_watermark_to_the_log_end(coordinator, replica_manager):
    """The old leader appended TxnOffsetCommit and went before its followers moved the HW past it. The
    new leader, HW below those offsets, must load them as pending, or the COMMIT marker that follows
    completes nothing."""
    done(coordinator.txn_commit("g", 12))
    coordinator.service.on_resignation(0, 1)
    coordinator.shutdown()
    replica_manager.get_partition(OFFSETS_TP).log.update_high_watermark(0)  # the new leader's view
    again = Coordinator(replica_manager, coordinator.time, leader_epoch=1)
    try:
        stable = again.service.fetch_offsets("g", [TP], True)
        assert not stable.done(), "a stable fetch runs as a write: it waits for the uncommitted tail"
        assert done(again.marker(committed=True)) == Errors.NONE  # the HW moves past both
        assert done(stable)[1][TP].error == Errors.UNSTABLE_OFFSET_COMMIT, "it ran before the marker"
        assert again.fetch("g", require_stable=True).offset == 12
    finally:
        again.shutdown()


def test_a_reload_keeps_a_plain_commit_written_after_a_committed_transaction(coordinator):
    done(coordinator.txn_commit("g", 10))
    done(coordinator.commit("g", 20))
    done(coordinator.marker(committed=True))
    again = reload(coordinator, epoch=1)
    try:
        assert again.fetch("g").offset == 20
    finally:
        again.shutdown()


def test_the_transaction_verifier_refuses_a_group_not_in_the_transaction(coordinator, replica_manager):
    asked = []

    def verifier(transactional_id, producer_id, producer_epoch, partition, _api_version, callback):
        asked.append((transactional_id, producer_id, producer_epoch, partition))
        callback(Errors.INVALID_TXN_STATE)  # the AddPartitionsToTxnManager answers through a callback

    coordinator.service.transaction_verifier = verifier
    assert done(coordinator.txn_commit("g", 1)) == {TP: Errors.INVALID_TXN_STATE}
    assert asked == [("txn-1", PRODUCER_ID, EPOCH, 0)]
    assert not replica_manager.read_partition_log(OFFSETS_TP, 0, 1 << 20).records, "nothing was written"


# ---------------------------------------------------------------------- who may commit (KIP-447, KIP-848)
def test_kip_447_member_and_generation_are_checked(coordinator):
    member_id, generation = coordinator.join_and_sync("g")
    assert done(coordinator.txn_commit("g", 1, member_id="ghost", generation_id=generation)) == {
        TP: Errors.UNKNOWN_MEMBER_ID}
    assert done(coordinator.txn_commit("g", 1, member_id=member_id, generation_id=generation - 1)) == {
        TP: Errors.ILLEGAL_GENERATION}
    # Before v3 the request names no member: accepted for a group with members.
    assert done(coordinator.txn_commit("g", 1)) == {TP: Errors.NONE}
    assert done(coordinator.txn_commit("g", 2, member_id=member_id,
                                       generation_id=generation)) == {TP: Errors.NONE}
    assert coordinator.fetch("g").offset == -1


def test_a_static_member_replaced_by_a_newer_instance_is_fenced(coordinator):
    coordinator.join_and_sync("s", group_instance_id="instance-1")
    assert done(coordinator.txn_commit("s", 1, member_id="an-old-member-id", generation_id=1,
                                       group_instance_id="instance-1")) == {TP: Errors.FENCED_INSTANCE_ID}


def test_a_group_nobody_knows_named_with_a_generation_is_an_illegal_generation(coordinator):
    assert done(coordinator.txn_commit("g", 1, member_id="m",
                                       generation_id=1)) == {TP: Errors.ILLEGAL_GENERATION}
    assert coordinator.shard().group_metadata_manager.group_lookup("g") is None, "no group made of it"
    assert done(coordinator.txn_commit("g", 1,
                                       member_id="m")) == {TP: Errors.NONE}, "-1: a simple group's commit"


def test_a_consumer_group_member_commits_with_its_member_epoch(coordinator):
    """A KIP-848 member's TxnOffsetCommit is checked against the consumer group (Kafka's
    ConsumerGroup.validateOffsetCommit with isTransactional): a stale epoch is ILLEGAL_GENERATION."""
    epoch = coordinator.join_consumer_group("cg", "m")
    assert done(coordinator.txn_commit("cg", 1, member_id="ghost", generation_id=epoch)) == {
        TP: Errors.UNKNOWN_MEMBER_ID}
    assert done(coordinator.txn_commit("cg", 1, member_id="",
                                       generation_id=epoch)) == {TP: Errors.UNKNOWN_MEMBER_ID}
    for stale in (epoch + 1, epoch - 1, -1):
        assert done(coordinator.txn_commit("cg", 1, member_id="m", generation_id=stale)) == {
            TP: Errors.ILLEGAL_GENERATION}, stale
    assert done(coordinator.txn_commit("cg", 5)) == {TP: Errors.NONE}, "no member named at all: accepted"
    assert done(coordinator.txn_commit("cg", 10, member_id="m", generation_id=epoch)) == {TP: Errors.NONE}
    assert coordinator.fetch("cg").offset == -1
    assert coordinator.fetch("cg", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT
    done(coordinator.marker(committed=True))
    assert coordinator.fetch("cg",
                             require_stable=True).offset == 10, "the marker commits them, as for classic"
    described = done(coordinator.service.consumer_group_describe("cg"))
    assert described["error_code"] == Errors.NONE and [m["member_id"] for m in described["members"]] == ["m"]


def test_a_consumer_group_member_commits_with_offset_commit_v9(coordinator):
    """OffsetCommit v9 (KIP-848): the member epoch must be the member's; ahead of it or behind it is
    STALE_MEMBER_EPOCH, as Apache Kafka 4.4 answers (tests/differential/test_groups.py)."""
    epoch = coordinator.join_consumer_group("cg", "m")
    assert done(coordinator.commit("cg", 7, member_id="m", generation_id=epoch, api_version=9)) == {
        TP: Errors.NONE}
    assert done(coordinator.commit("cg", 8, member_id="m", generation_id=epoch + 1, api_version=9)) == {
        TP: Errors.STALE_MEMBER_EPOCH}, "an epoch ahead of the member's: stale"
    assert done(coordinator.commit("cg", 8, member_id="m", generation_id=epoch - 1, api_version=9)) == {
        TP: Errors.STALE_MEMBER_EPOCH}, "one behind: stale"
    assert done(coordinator.commit("cg", 8, member_id="ghost", generation_id=epoch, api_version=9)) == {
        TP: Errors.UNKNOWN_MEMBER_ID}
    assert coordinator.fetch("cg").offset == 7


def test_a_consumer_group_members_aborted_offsets_go_and_a_reload_replays_the_committed(coordinator):
    epoch = coordinator.join_consumer_group("cg", "m")
    assert done(coordinator.txn_commit("cg", 10, member_id="m", generation_id=epoch)) == {TP: Errors.NONE}
    done(coordinator.marker(committed=True))
    assert done(coordinator.txn_commit("cg", 20, producer_id=8, member_id="m", generation_id=epoch)) == {
        TP: Errors.NONE}
    done(coordinator.marker(committed=False, producer_id=8))
    assert coordinator.fetch("cg", require_stable=True).offset == 10

    again = reload(coordinator, epoch=1)
    try:
        assert again.fetch("cg", require_stable=True).offset == 10
        assert done(again.txn_commit("cg", 30, member_id="m", generation_id=epoch)) == {TP: Errors.NONE}, \
            "the member and its epoch came back with the group's records"
    finally:
        again.shutdown()


# ---------------------------------------------------------------------- where the group lives
def test_a_group_this_broker_does_not_coordinate(replica_manager, time):
    two = GroupCoordinatorConfig(offsets_topic_num_partitions=2)
    c = Coordinator(replica_manager, time, config=two)  # leads partition 0 only
    try:
        other = next(g for g in (f"g{i}" for i in range(100)) if c.service.partition_for(g) == 1)
        assert done(c.txn_commit(other, 1)) == {TP: Errors.NOT_COORDINATOR}
        assert done(c.commit(other, 1)) == {TP: Errors.NOT_COORDINATOR}
        assert done(c.service.fetch_offsets(other, [TP], False)) == (Errors.NOT_COORDINATOR, {})
    finally:
        c.shutdown()


def test_after_a_resignation_the_group_is_not_coordinated_here(coordinator):
    done(coordinator.commit("g", 1))
    coordinator.service.on_resignation(0, 1)
    assert done(coordinator.txn_commit("g", 2)) == {TP: Errors.NOT_COORDINATOR}
    assert done(coordinator.service.fetch_offsets("g", [TP], False)) == (Errors.NOT_COORDINATOR, {})


def test_coordinator_load_in_progress_until_the_loader_has_run(replica_manager, time):
    first = Coordinator(replica_manager, time)
    done(first.commit("g", 4))
    first.service.on_resignation(0, 1)
    first.shutdown()

    c = Coordinator(replica_manager, time, load_now=False, leader_epoch=1)
    try:
        assert done(c.commit("g", 5)) == {TP: Errors.COORDINATOR_LOAD_IN_PROGRESS}
        assert done(c.service.fetch_offsets("g", [TP], False)) == (Errors.COORDINATOR_LOAD_IN_PROGRESS, {})
        assert done(c.txn_commit("g", 5)) == {TP: Errors.COORDINATOR_LOAD_IN_PROGRESS}
        joined = done(c.service.join_group(JoinGroupRequest(
            "g", "", None, False, 1000, 10_000, "consumer", [("range", b"")]), CONTEXT))
        assert joined.error == Errors.COORDINATOR_LOAD_IN_PROGRESS
        beat = c.service.heartbeat(HeartbeatRequest("g", "m", None, 1), CONTEXT)
        assert done(beat) == Errors.NONE, (
            "a classic heartbeat during a load: NONE, not a rejoin (Kafka's rule)")
        c.loader_executor.run_all()  # the load finishes
        assert c.fetch("g").offset == 4
        assert done(c.commit("g", 5)) == {TP: Errors.NONE}
        assert c.fetch("g").offset == 5
    finally:
        c.shutdown()


def test_describe_groups_v6_says_group_id_not_found_where_older_versions_say_dead(coordinator):
    """KIP-1043: from DescribeGroups v6 a group that is not there, or not a classic group, is Dead with
    GROUP_ID_NOT_FOUND and Kafka's message; before v6 it is None here, which KafkaApis answers as Dead."""
    coordinator.join_consumer_group("modern", "m1")
    assert done(coordinator.service.describe_group("nobody", 5)) == (Errors.NONE, None)
    for group_id, message in (("nobody", "Group nobody not found."),
                              ("modern", "Group modern is not a classic group.")):
        error, described = done(coordinator.service.describe_group(group_id, 6))
        assert error == Errors.NONE and described["group_state"] == "Dead", described
        assert (described["error_code"], described["error_message"]) == (Errors.GROUP_ID_NOT_FOUND, message)
    coordinator.join_and_sync("classic")
    assert "error_code" not in done(coordinator.service.describe_group("classic", 6))[1]


# ---------------------------------------------------------------------- sessions and retention
def test_a_silent_member_is_removed_when_its_session_times_out(coordinator):
    member_id, generation = coordinator.join_and_sync("g", session_timeout_ms=500)
    coordinator.advance(400)
    beat = coordinator.service.heartbeat(HeartbeatRequest("g", member_id, None, generation), CONTEXT)
    assert done(beat) == Errors.NONE  # alive: the session starts again
    coordinator.advance(400)
    group = coordinator.shard().group_metadata_manager.group_lookup("g")
    assert group.has(member_id)
    coordinator.advance(150)  # 550 ms since the last heartbeat (and before the cleanup timer, at 1 s)
    assert not group.has(member_id)
    described = done(coordinator.service.describe_group("g"))
    assert described[0] == Errors.NONE and described[1]["group_state"] == "Empty", described
    assert group.generation_id == generation + 1
    late = coordinator.service.heartbeat(HeartbeatRequest("g", member_id, None, generation), CONTEXT)
    assert done(late) == Errors.UNKNOWN_MEMBER_ID


def test_commits_reload_from_the_log_and_expire_after_retention(coordinator):
    assert done(coordinator.commit("simple", 5)) == {TP: Errors.NONE}
    again = reload(coordinator, epoch=1)  # a new coordinator replays the partition
    try:
        assert again.fetch("simple").offset == 5
        again.advance(59_000)
        assert again.fetch("simple").offset == 5, "not yet past offsets.retention"
        again.advance(1000)  # 60 s after the commit: the cleanup timer (every 1 s) expires it
        assert again.fetch("simple").offset == -1
        groups = again.shard().group_metadata_manager
        assert groups.group_lookup("simple") is None, "empty and offset-less: gone"
    except BaseException:
        again.shutdown()
        raise
    third = reload(again, epoch=2)  # the tombstones were written: still gone
    try:
        assert third.fetch("simple").offset == -1
        assert third.shard().group_metadata_manager.group_lookup("simple") is None
    finally:
        third.shutdown()


# ---------------------------------------------------------------------- answered on commit (HW lags)
class Follower:
    """One follower in the ISR of __consumer_offsets-0: the high watermark moves when it fetches."""

    def __init__(self, replica_manager) -> None:
        self.replica_manager = replica_manager
        replica_manager.make_leader(OFFSETS_TP,
                                    PartitionState(0, leader=1, leader_epoch=1, replicas=(1, FOLLOWER),
                                                   isr=(1, FOLLOWER)), LogConfig())

    def log_end(self) -> int:
        return self.replica_manager.get_partition(OFFSETS_TP).log.log_end_offset

    def catches_up(self) -> None:
        params = FetchParams(replica_id=FOLLOWER, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20)
        self.replica_manager.fetch_messages(
            params, [(OFFSETS_TP, FetchPartitionInfo(self.log_end(), 1 << 20, current_leader_epoch=1))],
            lambda result: None)


@pytest.fixture
def lagging(replica_manager, time):
    follower = Follower(replica_manager)
    c = Coordinator(replica_manager, time, leader_epoch=1)
    yield c, follower
    c.shutdown()


def test_a_consumer_group_heartbeat_is_answered_once_its_records_commit(lagging):
    c, follower = lagging
    joined = c.consumer_heartbeat("g", "a", 0, joining=True)
    assert not joined.done(), "the records are in the leader's log, but the follower does not have them yet"
    described = done(c.service.consumer_group_describe("g"))
    assert described["error_code"] == Errors.GROUP_ID_NOT_FOUND, "reads see committed state only"
    follower.catches_up()
    answer = done(joined)
    assert (answer["error_code"], answer["member_epoch"]) == (Errors.NONE, 1)
    assert answer["assignment"]["topic_partitions"][0]["partitions"] == [0]
    assert done(c.service.consumer_group_describe("g"))["error_code"] == Errors.NONE


def test_a_heartbeat_that_writes_nothing_waits_for_the_writes_before_it(lagging):
    c, follower = lagging
    joined = c.consumer_heartbeat("g", "a", 0, joining=True)
    held = {TOPIC_ID: frozenset([0])}
    waiting = c.consumer_heartbeat("g", "a", 1, held)
    assert not joined.done() and not waiting.done(), "no records of its own, but it saw the uncommitted join"
    follower.catches_up()
    assert [done(f)["member_epoch"] for f in (joined, waiting)] == [1, 1]
    assert done(c.consumer_heartbeat("g", "a", 1,
                                     held))["error_code"] == Errors.NONE, "nothing pending: at once"


def test_a_commit_is_answered_once_it_commits_and_a_timed_out_one_is_coordinator_not_available(lagging):
    c, follower = lagging
    first = c.commit("g", 1)
    assert not first.done()
    follower.catches_up()
    assert done(first) == {TP: Errors.NONE}
    second = c.commit("g", 2)
    c.advance(COMMIT_TIMEOUT_MS + 1)
    assert done(second) == {TP: Errors.COORDINATOR_NOT_AVAILABLE}, "Kafka: REQUEST_TIMED_OUT -> this"
    follower.catches_up()
    assert c.fetch("g").offset == 2, "the records were in the log: once committed, they count"


def test_a_leave_is_answered_once_its_tombstones_commit(lagging):
    c, follower = lagging
    c.consumer_heartbeat("g", "a", 0, joining=True)
    follower.catches_up()
    left = c.consumer_heartbeat("g", "a", -1, {})
    assert not left.done()
    follower.catches_up()
    assert (done(left)["error_code"], done(left)["member_epoch"]) == (Errors.NONE, -1)
    assert done(c.service.consumer_group_describe("g"))["members"] == []


def test_an_unload_fails_the_writes_waiting_to_commit_with_not_coordinator(lagging):
    c, follower = lagging
    waiting = c.commit("g", 1)
    joining = c.consumer_heartbeat("cg", "a", 0, joining=True)
    assert not waiting.done() and not joining.done()
    c.service.on_resignation(0, 2)
    assert done(waiting) == {TP: Errors.NOT_COORDINATOR}
    assert done(joining)["error_code"] == Errors.NOT_COORDINATOR


# ---------------------------------------------------------------------- a failed append reverts the shard
class FailingAppends:
    """The partition writer's appends fail while ``failing`` is set, as a lost leadership makes them."""

    def __init__(self, writer: CoordinatorPartitionWriter) -> None:
        self.failing = False
        self.append = writer.append

        def append(*args):
            if self.failing:
                raise CoordinatorWriteError(Errors.NOT_LEADER_OR_FOLLOWER, "the leader stepped down")
            return self.append(*args)
        writer.append = append


def test_a_failed_commit_is_reverted_and_the_retry_succeeds(coordinator, replica_manager):
    appends = FailingAppends(coordinator.writer)
    done(coordinator.commit("g", 1))
    appends.failing = True
    assert done(coordinator.commit("g", 2)) == {TP: Errors.NOT_COORDINATOR}
    appends.failing = False
    assert coordinator.fetch("g").offset == 1
    assert coordinator.fetch("g", require_stable=True).offset == 1, "the latest state does not hold it either"
    assert done(coordinator.commit("g", 2)) == {TP: Errors.NONE}
    assert coordinator.fetch("g").offset == 2
    again = reload(coordinator, epoch=1)
    try:
        assert again.fetch("g").offset == 2
    finally:
        again.shutdown()


def test_a_failed_consumer_group_join_is_reverted_and_the_retry_succeeds(coordinator):
    appends = FailingAppends(coordinator.writer)
    appends.failing = True
    failed = done(coordinator.consumer_heartbeat("g", "a", 0, joining=True))
    assert failed["error_code"] == Errors.NOT_COORDINATOR and failed["member_id"] is None
    assert coordinator.shard().group_metadata_manager.group_lookup("g") is None, "nothing of it is left"
    appends.failing = False
    assert done(coordinator.service.consumer_group_describe("g"))["error_code"] == Errors.GROUP_ID_NOT_FOUND
    answer = done(coordinator.consumer_heartbeat("g", "a", 0, joining=True))
    assert (answer["error_code"], answer["member_epoch"]) == (Errors.NONE, 1)


def test_a_failed_transactional_commit_leaves_nothing_pending(coordinator):
    appends = FailingAppends(coordinator.writer)
    appends.failing = True
    assert done(coordinator.txn_commit("g", 10)) == {TP: Errors.NOT_COORDINATOR}
    appends.failing = False
    stable = coordinator.fetch("g", require_stable=True)
    assert (stable.error, stable.offset) == (Errors.NONE, -1), "no pending offsets left behind"


@pytest.mark.parametrize("append_error, client_error", [
    (Errors.NOT_LEADER_OR_FOLLOWER, Errors.NOT_COORDINATOR),
    (Errors.KAFKA_STORAGE_ERROR, Errors.NOT_COORDINATOR),
    (Errors.NOT_ENOUGH_REPLICAS, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.REQUEST_TIMED_OUT, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.MESSAGE_TOO_LARGE, Errors.UNKNOWN_SERVER_ERROR),
    (Errors.RECORD_LIST_TOO_LARGE, Errors.UNKNOWN_SERVER_ERROR),
    (Errors.INVALID_PRODUCER_EPOCH, Errors.INVALID_PRODUCER_EPOCH),
])
def test_append_errors_map_as_kafkas_normalize_exception(append_error, client_error):
    assert normalize_error(append_error) == client_error


def test_a_failed_sync_is_answered_with_an_error_and_the_group_rebalances_again(coordinator):
    """The leader's SyncGroup writes the group's assignment; its append fails: the members hear an error
    (Kafka: NOT_COORDINATOR), and after a rejoin and a sync the group is Stable again."""
    appends = FailingAppends(coordinator.writer)
    joined = coordinator.service.join_group(JoinGroupRequest(
        "g", "", None, False, 1000, 10_000, "consumer", [("range", b"")]), CONTEXT)
    coordinator.advance(0)
    result = done(joined)
    appends.failing = True
    synced = coordinator.service.sync_group(SyncGroupRequest(
        "g", result.generation_id, result.member_id, None, "consumer", "range", {result.member_id: b"a"}),
        CONTEXT)
    assert done(synced).error == Errors.NOT_COORDINATOR
    appends.failing = False
    rejoined = coordinator.service.join_group(JoinGroupRequest(
        "g", result.member_id, None, False, 1000, 10_000, "consumer", [("range", b"")]), CONTEXT)
    coordinator.advance(0)
    again = done(rejoined)
    assert again.error == Errors.NONE, again
    synced = coordinator.service.sync_group(SyncGroupRequest(
        "g", again.generation_id, again.member_id, None, "consumer", "range", {again.member_id: b"b"}),
        CONTEXT)
    assert done(synced).error == Errors.NONE and done(synced).assignment == b"b"
    described = done(coordinator.service.describe_group("g"))[1]
    assert described["group_state"] == "Stable" and described["members"][0]["member_assignment"] == b"b"


def test_the_retention_cleanup_keeps_a_group_whose_only_offsets_are_in_an_open_transaction(coordinator):
    assert done(coordinator.txn_commit("open", 11)) == {TP: Errors.NONE}
    coordinator.advance(CONFIG.offsets_retention_ms + CONFIG.offsets_retention_check_interval_ms)
    assert coordinator.shard().group_metadata_manager.group_lookup("open") is not None, \
        "the transaction is still open: the group must stay"
    assert coordinator.fetch("open", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT
    assert done(coordinator.marker(committed=True)) == Errors.NONE
    assert coordinator.fetch("open").offset == 11, "the COMMIT makes the transaction's offsets visible"


def test_the_retention_cleanup_keeps_a_committed_offset_while_a_transaction_holds_its_partition(coordinator):
    done(coordinator.commit("g", 3))
    done(coordinator.txn_commit("g", 10))
    coordinator.advance(CONFIG.offsets_retention_ms + CONFIG.offsets_retention_check_interval_ms)
    assert coordinator.fetch("g").offset == 3, "not expired: a transaction holds the partition"
    done(coordinator.marker(committed=True))
    assert coordinator.fetch("g").offset == 10
    coordinator.advance(CONFIG.offsets_retention_ms + CONFIG.offsets_retention_check_interval_ms)
    assert coordinator.fetch("g").offset == -1, "once committed, it expires as any other"
