"""Share groups' dead-letter queue (KIP-1191, share.version 2) over real collaborators: a
SharePartitionManager and its share partitions on a real ReplicaManager (temporary directory, MockTime),
the broker's DefaultShareGroupDLQManager whose Produce and CreateTopics requests a LocalBroker answers
as this broker's KafkaApis would (appending through the same ReplicaManager), and the DLQ topic read
back from its log.

A rejected record, or one released or timed out on its last delivery, goes ARCHIVING, then to the DLQ
topic with Kafka's headers, then ARCHIVED; below share.version 2, or when the DLQ cannot be used, it is
archived as before and nothing is written."""

from __future__ import annotations

import uuid

import pytest

from kafka.log.log_config import LogConfig
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import iter_batches
from kafka.server.kafka_config import KafkaConfig
from kafka.server.metadata_cache import PartitionState, TopicMetadata
from kafka.server.replica_manager import FetchParams
from kafka.server.share.dlq.default_share_group_dlq_manager import DefaultShareGroupDLQManager
from kafka.server.share.dlq.share_group_dlq_metadata_cache_helper import ShareGroupDLQMetadataCacheHelper
from kafka.server.share.log_reader import ReplicaManagerLogReader
from kafka.server.share.persister.persister import PartitionStateKey, PersisterStateBatch
from kafka.server.share.record_state import RecordState
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.topic_id_partition import TopicIdPartition
from kafka.utils.topic_partition import TopicPartition
from tests.server.share.conftest import GROUP, TIP, Env
from tests.server.share.helpers import ACCEPT, REJECT, RELEASE, acknowledge, acquired, states, window

GAP = 0  # AcknowledgeType.GAP, the protocol's 0

DLQ = "dlq.orders"
DLQ_ID = uuid.UUID("99999999-2222-3333-4444-555555555555")


class LocalBroker:
    """The inter-broker channel of the DLQ manager, answered by this broker: Produce appends through the
    ReplicaManager (as KafkaApis does), CreateTopics creates the topic here, led by this broker (as the
    controller and the metadata publisher would). Answers come back on the caller's thread."""

    def __init__(self, env: DlqEnv) -> None:
        self.env = env
        self.requests: list[tuple[ApiKey, dict]] = []
        self.started = False

    def start(self) -> None:
        self.started = True

    def shutdown(self) -> None:
        self.started = False

    def send(self, destination, api_key, body, callback) -> None:
        self.requests.append((api_key, body))
        if api_key == ApiKey.CREATE_TOPICS:
            topic = body["topics"][0]
            self.env.add_dlq_topic(topic["name"], {c["name"]: c["value"] for c in topic["configs"]})
            callback({"topics": [{"name": topic["name"], "error_code": 0}]}, Errors.NONE)
            return
        assert api_key == ApiKey.PRODUCE
        topic = body["topic_data"][0]
        partition = topic["partition_data"][0]
        tp = TopicPartition(topic["name"], partition["index"])
        answers = []
        self.env.replica_manager.append_records(1000, body["acks"], False, {tp: partition["records"]},
                                                answers.append)
        error = answers[0][tp].error
        callback({"responses": [{"name": tp.topic, "partition_responses": [
            {"index": tp.partition, "error_code": int(error), "base_offset": answers[0][tp].base_offset}]}]},
            Errors.NONE)


class DlqEnv(Env):
    def __init__(self, tmp_path, share_version: int = 2, broker_configs: dict | None = None) -> None:
        self.share_version = share_version
        self.broker_configs = {"node.id": "1", "log.dirs": str(tmp_path), **(broker_configs or {})}
        super().__init__(tmp_path, {"share.auto.offset.reset": "earliest",
                                    "errors.deadletterqueue.topic.name": DLQ})

    def new_manager(self):
        self.metadata_cache.finalized_features = {"share.version": self.share_version}
        self.channel = LocalBroker(self)
        self.dlq_timer = SystemTimer("share-group-dlq", time=self.time)
        helper = ShareGroupDLQMetadataCacheHelper(self.metadata_cache, lambda group_id: self.group_configs,
                                                  KafkaConfig(self.broker_configs), "PLAINTEXT")
        self.dlq_manager = DefaultShareGroupDLQManager.instance(
            self.channel, helper, self.time, self.dlq_timer, ReplicaManagerLogReader(self.replica_manager))
        manager = super().new_manager()
        manager.dlq_manager = self.dlq_manager
        manager.dlq_enabled = lambda: self.metadata_cache.finalized_features.get("share.version", 0) >= 2
        return manager

    def add_dlq_topic(self, name: str, configs: dict[str, str], partitions: int = 1) -> None:
        snapshot = self.metadata_cache._snapshot
        topics = dict(snapshot.topics)
        states = tuple(PartitionState(p, leader=1, leader_epoch=0, replicas=(1,), isr=(1,))
                       for p in range(partitions))
        topics[name] = TopicMetadata(name, DLQ_ID, partitions, configs, partitions=states)
        self.metadata_cache.set_snapshot(topics, None, snapshot.metadata_offset + 1)
        for state in states:
            self.replica_manager.make_leader(TopicPartition(name, state.partition), state, LogConfig())

    def dlq_records(self, name: str = DLQ, partition: int = 0) -> list:
        tip = TopicIdPartition(DLQ_ID, name, partition)
        params = FetchParams(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20)
        data = ReplicaManagerLogReader(self.replica_manager).read(params, {tip: (0, 1 << 20)})[tip]
        return [r for batch in iter_batches(bytes(data.records)) for r in batch] if data.records else []

    def advance(self, ms: int) -> None:
        super().advance(ms)
        self.dlq_timer.advance_clock(0)

    def close(self) -> None:
        self.dlq_manager.stop()
        self.dlq_timer.shutdown()
        super().close()


@pytest.fixture
def dlq_env(tmp_path):
    environment = DlqEnv(tmp_path)
    environment.add_dlq_topic(DLQ, {"errors.deadletterqueue.group.enable": "true"})
    yield environment
    environment.close()


def headers(record) -> dict[str, str]:
    return {h.key: h.value.decode() for h in record.headers}


def persisted_states(env) -> list[int]:
    """Each write's delivery states, in order."""
    return [b.delivery_state for _, _, batches in env.persister.writes for b in batches]


def test_a_rejected_record_goes_to_the_dlq_with_kafkas_headers_then_is_archived(dlq_env):
    dlq_env.produce(b"poison", b"fine")
    assert acquired(dlq_env, "m1") == [(0, 1, 1)]
    assert acknowledge(dlq_env, "m1", 0, 0, REJECT)[0] == Errors.NONE
    [record] = dlq_env.dlq_records()
    assert headers(record) == {"__dlq.errors.topic": "orders", "__dlq.errors.partition": "0",
                               "__dlq.errors.offset": "0", "__dlq.errors.group": GROUP,
                               "__dlq.errors.delivery.count": "1",
                               "__dlq.errors.message": "Offset rejected by client."}
    assert record.key is None and record.value is None, "only the context headers unless copy is enabled"
    assert RecordState.ARCHIVING in persisted_states(dlq_env), "written ARCHIVING before the DLQ write"
    assert persisted_states(dlq_env)[-1] == RecordState.ARCHIVED
    assert states(dlq_env)[0] == (0, 0, "ARCHIVED", 1)


def test_the_last_delivery_released_goes_to_the_dlq_as_delivery_count_exceeded(dlq_env):
    dlq_env.group_configs["share.delivery.count.limit"] = "2"
    dlq_env.produce(b"poison")
    for delivery in (1, 2):
        assert acquired(dlq_env, "m1") == [(0, 0, delivery)]
        acknowledge(dlq_env, "m1", 0, 0, RELEASE)
    [record] = dlq_env.dlq_records()
    assert headers(record)["__dlq.errors.delivery.count"] == "2"
    assert headers(record)["__dlq.errors.message"] == "Offset delivery count exceeded the threshold."
    assert window(dlq_env) == (1, 1), "archived: the start offset moved past it"


def test_a_lock_timeout_on_the_last_delivery_goes_to_the_dlq(dlq_env):
    dlq_env.group_configs["share.delivery.count.limit"] = "2"
    dlq_env.produce(b"poison")
    acquired(dlq_env, "m1")
    dlq_env.advance(30_000)
    acquired(dlq_env, "m1")
    dlq_env.advance(30_000)
    [record] = dlq_env.dlq_records()
    assert headers(record)["__dlq.errors.message"] == "Offset delivery count exceeded the threshold."
    assert window(dlq_env) == (1, 1)


def test_copy_record_enable_copies_the_key_and_value(dlq_env):
    dlq_env.group_configs["errors.deadletterqueue.copy.record.enable"] = "true"
    dlq_env.produce(b"a", b"poison", b"c")
    acquired(dlq_env, "m1")
    acknowledge(dlq_env, "m1", 1, 2, REJECT)
    records = dlq_env.dlq_records()
    assert [(r.value, headers(r)["__dlq.errors.offset"]) for r in records] == [(b"poison", "1"), (b"c", "2")]


def test_below_share_version_2_a_reject_archives_and_nothing_is_written(tmp_path):
    env = DlqEnv(tmp_path, share_version=1)
    env.add_dlq_topic(DLQ, {"errors.deadletterqueue.group.enable": "true"})
    try:
        env.produce(b"poison")
        acquired(env, "m1")
        acknowledge(env, "m1", 0, 0, REJECT)
        assert env.dlq_records() == [] and env.channel.requests == []
        assert RecordState.ARCHIVING not in persisted_states(env) and window(env) == (1, 1)
    finally:
        env.close()


@pytest.mark.parametrize("configs, group_topic", [
    ({}, DLQ),  # the topic does not allow itself to be a DLQ (errors.deadletterqueue.group.enable)
    ({"errors.deadletterqueue.group.enable": "true"}, "orders-dlq"),  # not under the prefix "dlq."
])
def test_a_dlq_that_cannot_be_used_still_archives_the_record(tmp_path, configs, group_topic):
    env = DlqEnv(tmp_path)
    env.add_dlq_topic(group_topic, configs)
    env.group_configs["errors.deadletterqueue.topic.name"] = group_topic
    try:
        env.produce(b"poison")
        acquired(env, "m1")
        acknowledge(env, "m1", 0, 0, REJECT)
        assert env.dlq_records(group_topic) == [] and env.channel.requests == []
        assert persisted_states(env)[-1] == RecordState.ARCHIVED and window(env) == (1, 1)
    finally:
        env.close()


def test_a_missing_dlq_topic_is_created_when_auto_create_is_enabled(tmp_path):
    env = DlqEnv(tmp_path, broker_configs={"errors.deadletterqueue.auto.create.topics.enable": "true"})
    try:
        env.produce(b"poison")
        acquired(env, "m1")
        acknowledge(env, "m1", 0, 0, REJECT)
        [(api_key, body)] = env.channel.requests
        assert api_key == ApiKey.CREATE_TOPICS
        topic = body["topics"][0]
        assert (topic["name"], topic["num_partitions"], topic["replication_factor"]) == (DLQ, -1, -1)
        assert {"name": "errors.deadletterqueue.group.enable", "value": "true"} in topic["configs"]
        assert states(env)[0][2] == "ARCHIVING", "waiting for the topic's metadata"
        env.advance(5_000)  # the backoff (2 s, jitter 20%) passes; the topic is known now
        assert [headers(r)["__dlq.errors.offset"] for r in env.dlq_records()] == ["0"]
        assert window(env) == (1, 1)
    finally:
        env.close()


def test_a_new_leader_sends_the_archiving_records_it_reads_back_to_the_dlq(dlq_env):
    """The last leader wrote ARCHIVING and lost its partition before the DLQ write finished."""
    dlq_env.produce(b"poison", b"fine")
    key = PartitionStateKey(GROUP, TIP.topic_id, TIP.partition)
    dlq_env.persister.initialize_state(key, 0, 0)
    dlq_env.persister.write_state(key, 0, 0, 0, [PersisterStateBatch(0, 0, RecordState.ARCHIVING, 3)])
    assert acquired(dlq_env, "m1") == [(1, 1, 1)], "the new leader loads the state and delivers the rest"
    [record] = dlq_env.dlq_records()
    assert headers(record)["__dlq.errors.offset"] == "0"
    assert headers(record)["__dlq.errors.message"] == "Offset rejected by client.", "3 < the limit of 5"
    assert window(dlq_env)[0] == 1, "ARCHIVED now: the start offset moved past it"


def test_a_gap_is_archived_without_going_to_the_dlq(dlq_env):
    """GAP: no record at that offset, nothing to copy (Kafka's recordStateWithDlq: REJECT only)."""
    dlq_env.produce(b"a", b"b")
    acquired(dlq_env, "m1")
    assert acknowledge(dlq_env, "m1", 0, 1, ACCEPT, GAP)[0] == Errors.NONE
    assert dlq_env.dlq_records() == [] and dlq_env.channel.requests == []
    assert window(dlq_env) == (2, 2)
