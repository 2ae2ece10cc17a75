"""A KIP-848 heartbeat is answered once its records are committed (Kafka's CoordinatorRuntime write
path): over a real ReplicaManager and log on a mock clock, leading __consumer_offsets-0 with one
follower in the ISR and no reaper thread, so the test decides when the follower catches up and when
time passes. A failed append answers with Kafka's mapped error and the next write rewrites the group."""

from __future__ import annotations

import uuid

import pytest

from kafka.coordinator import coordinator_records as records
from kafka.coordinator.consumer_group_manager import (
    ConsumerGroupConfig,
    ConsumerGroupManager,
    HeartbeatRequest,
)
from kafka.coordinator.consumer_group_records import decode_key, group_records
from kafka.coordinator.consumer_group_writes import coordinator_operation_error
from kafka.coordinator.group_metadata_manager import GroupMetadataManager, OffsetConfig
from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import iter_batches
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory
from kafka.server.fetch_partition_data import FetchPartitionInfo
from kafka.server.kafka_config import KafkaConfig
from kafka.server.metadata_cache import PartitionState
from kafka.server.replica_manager import FetchParams, ReplicaManager
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition
from tests.coordinator.test_consumer_group import Groups, beat, join

pytestmark = pytest.mark.fast

OFFSETS_TP = TopicPartition(records.GROUP_METADATA_TOPIC_NAME, 0)
FOLLOWER, COMMIT_TIMEOUT_MS = 2, 5000
ORDERS = uuid.UUID(int=1)


class Broker:
    """One broker's ReplicaManager leading __consumer_offsets-0, its GroupMetadataManager and the
    KIP-848 ConsumerGroupManager over it."""

    def __init__(self, data_dir, isr=(1, FOLLOWER), min_insync_replicas=1) -> None:
        self.time = MockTime()
        self.log_manager = LogManager([str(data_dir)], LogConfig(), self.time, node_id=1)
        self.log_manager.startup()
        self.replica_manager = ReplicaManager(
            KafkaConfig({"node.id": "1", "log.dirs": str(data_dir)}), self.log_manager, metadata_cache=None,
            time=self.time,
            produce_purgatory=DelayedOperationPurgatory("Produce", reaper_enabled=False, time=self.time),
            fetch_purgatory=DelayedOperationPurgatory("Fetch", reaper_enabled=False, time=self.time))
        self.replica_manager.make_leader(OFFSETS_TP, PartitionState(0, leader=1, leader_epoch=0,
                                                                    replicas=(1, FOLLOWER), isr=isr),
                                         LogConfig(min_insync_replicas=min_insync_replicas))
        self.group_manager = GroupMetadataManager(1, OffsetConfig(offsets_topic_num_partitions=1,
                                                                  offsets_commit_timeout_ms=COMMIT_TIMEOUT_MS),
                                                  self.replica_manager, self.time)
        self.group_manager.is_active.set()  # this broker coordinates partition 0, loaded
        self.group_manager.owned_partitions.add(0)
        self.manager = ConsumerGroupManager(ConsumerGroupConfig(), self.group_manager, self.time)
        self.manager.topics_image = lambda: {"orders": (ORDERS, 4)}

    def close(self) -> None:
        self.replica_manager.shutdown()
        self.log_manager.shutdown()

    def log_end(self) -> int:
        return self.replica_manager.get_partition(OFFSETS_TP).log.log_end_offset

    def follower_catches_up(self) -> None:
        """The follower fetches from the log end: it has everything, so the high watermark moves there."""
        params = FetchParams(replica_id=FOLLOWER, max_wait_ms=0, min_bytes=1, max_bytes=1 << 20)
        self.replica_manager.fetch_messages(
            params, [(OFFSETS_TP, FetchPartitionInfo(self.log_end(), 1 << 20, current_leader_epoch=0))],
            lambda result: None)

    def time_passes(self, ms: int) -> None:
        self.time.advance(ms)
        self.replica_manager.delayed_produce_purgatory.advance_clock(0)

    def batches(self) -> list[list]:
        """Each batch in __consumer_offsets-0, as the consumer-group record keys it holds."""
        data = self.replica_manager.read_partition_log(OFFSETS_TP, 0, 1 << 20)
        return [[decode_key(r.key) for r in batch] for batch in iter_batches(data.records)]

    def heartbeat(self, member_id: str, epoch: int, owned=None, joining=False) -> list[dict]:
        """Send one heartbeat; the list it returns fills when the answer comes."""
        answers: list[dict] = []
        request = HeartbeatRequest("g", member_id, epoch, topic_partitions=owned)
        if joining:
            request = HeartbeatRequest("g", member_id, 0, rebalance_timeout_ms=30000,
                                       subscribed_topic_names=["orders"], topic_partitions={})
        self.manager.consumer_group_heartbeat(request, "client", "/127.0.0.1", answers.append)
        return answers


@pytest.fixture
def broker(tmp_path):
    b = Broker(tmp_path)
    yield b
    b.close()


def test_the_answer_waits_for_the_records_to_commit(broker):
    answers = broker.heartbeat("a", 0, joining=True)
    assert answers == [], "the records are in the leader's log, but the follower does not have them yet"
    assert len(broker.batches()) == 1
    broker.follower_catches_up()
    assert len(answers) == 1
    assert (answers[0]["error_code"], answers[0]["member_epoch"]) == (Errors.NONE, 1)
    assert sorted(answers[0]["assignment"]["topic_partitions"][0]["partitions"]) == [0, 1, 2, 3]


def test_a_heartbeat_that_writes_nothing_answers_at_once_unless_a_write_is_pending(broker):
    joined = broker.heartbeat("a", 0, joining=True)
    held = {ORDERS: frozenset(range(4))}
    waiting = broker.heartbeat("a", 1, held)
    assert (joined, waiting) == ([], []), "no records of its own, but it would show the uncommitted join"
    assert len(broker.batches()) == 1, "the second heartbeat wrote nothing"
    broker.follower_catches_up()
    assert [a["member_epoch"] for a in joined + waiting] == [1, 1]
    quiet = broker.heartbeat("a", 1, held)
    assert len(quiet) == 1 and quiet[0]["error_code"] == Errors.NONE, "nothing written, nothing pending: at once"


def test_a_leave_is_answered_once_its_tombstones_commit(broker):
    broker.heartbeat("a", 0, joining=True)
    broker.follower_catches_up()
    left = broker.heartbeat("a", -1, {})
    assert left == []
    broker.follower_catches_up()
    assert (left[0]["error_code"], left[0]["member_epoch"]) == (Errors.NONE, -1)
    assert broker.manager.consumer_group("g").members == {}


def test_a_timed_out_append_answers_coordinator_not_available_and_the_next_write_rewrites_the_group(broker):
    joined = broker.heartbeat("a", 0, joining=True)
    broker.time_passes(COMMIT_TIMEOUT_MS + 1)
    assert len(joined) == 1
    assert joined[0]["error_code"] == Errors.COORDINATOR_NOT_AVAILABLE, "Kafka: REQUEST_TIMED_OUT -> this"
    # The client never heard of epoch 1: it joins again with its id; that write carries every record
    # of the group again, since what the log holds after the failure is not known.
    again = broker.heartbeat("a", 0, joining=True)
    assert again == []
    rewritten = broker.batches()[-1]
    group = broker.manager.consumer_group("g")
    assert set(rewritten) == set(group_records(group)), "the whole group, not only what the join changed"
    broker.follower_catches_up()
    assert (again[0]["error_code"], again[0]["member_epoch"]) == (Errors.NONE, 1)


def test_not_enough_replicas_answers_coordinator_not_available_at_once(tmp_path):
    broker = Broker(tmp_path, isr=(1,), min_insync_replicas=2)
    try:
        answers = broker.heartbeat("a", 0, joining=True)
        assert len(answers) == 1 and answers[0]["error_code"] == Errors.COORDINATOR_NOT_AVAILABLE
        assert answers[0]["member_id"] is None and answers[0]["assignment"] is None, "nothing of the change shows"
        assert broker.batches() == [], "acks=-1 below min.insync.replicas appends nothing"
    finally:
        broker.close()


@pytest.mark.parametrize("append_error, client_error", [
    (Errors.NOT_LEADER_OR_FOLLOWER, Errors.NOT_COORDINATOR),
    (Errors.KAFKA_STORAGE_ERROR, Errors.NOT_COORDINATOR),
    (Errors.NOT_ENOUGH_REPLICAS, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.REQUEST_TIMED_OUT, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.MESSAGE_TOO_LARGE, Errors.UNKNOWN_SERVER_ERROR),
    (Errors.RECORD_LIST_TOO_LARGE, Errors.UNKNOWN_SERVER_ERROR),
    (Errors.NETWORK_EXCEPTION, Errors.COORDINATOR_LOAD_IN_PROGRESS),
    (Errors.INVALID_PRODUCER_EPOCH, Errors.INVALID_PRODUCER_EPOCH),
])
def test_append_errors_map_as_kafkas_handle_operation_exception(append_error, client_error):
    assert coordinator_operation_error(append_error) == client_error


class FailingGroups(Groups):
    """The fake log, failing the appends while ``failing`` is set, as a lost leadership would."""

    failing = False

    def append_group_records(self, group_id, entries, callback):
        if self.failing:
            callback(Errors.NOT_LEADER_OR_FOLLOWER)
        else:
            super().append_group_records(group_id, entries, callback)


def test_after_a_failed_write_the_client_carries_on_from_its_previous_epoch():
    """a's heartbeat that moved it to epoch 2 failed: a heard NOT_COORDINATOR, keeps epoch 1, and its
    next heartbeat is accepted at that previous epoch; the write that follows carries a's records whole"""
    groups = FailingGroups()
    m = ConsumerGroupManager(ConsumerGroupConfig(), groups, MockTime())
    m.topics_image = lambda: {"orders": (ORDERS, 4)}
    a = join(m, "a")
    held = {ORDERS: frozenset(a["assignment"]["topic_partitions"][0]["partitions"])}
    groups.failing = True
    b = join(m, "b")
    assert b["error_code"] == Errors.NOT_COORDINATOR and b["member_id"] is None
    groups.failing = False
    logged = len(groups.log)
    r = beat(m, "a", 1, held)
    assert r["error_code"] == Errors.NONE
    written = {decode_key(k) for k, _ in groups.log[logged:]}
    assert set(group_records(m.consumer_group("g"))) <= written, "the records b's failed join touched, again"
