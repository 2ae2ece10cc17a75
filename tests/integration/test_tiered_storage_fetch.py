"""Acceptance: tiered storage's read side (KIP-405) on a real broker with a real client (confluent-kafka).

The broker copies a topic's rolled segments to a LocalTieredStorage and local retention deletes them, so
most of the topic is in remote storage only. A consumer reading from offset 0 (a cold read) gets every
record in order, the remote part read by the broker's reader threads while its fetches wait in the
RemoteFetch purgatory; one reading the tail (a hot read) gets it from the local log; a read_committed one
skips the aborted transactions whose records are remote. ListOffsets answers the tiered specs and finds a
timestamp in remote storage; DescribeLogDirs counts the local bytes only.
"""

from __future__ import annotations

import time

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from kafka.metrics.remote_storage_metrics import REMOTE_FETCH_ERRORS, REMOTE_FETCH_REQUESTS
from kafka.protocol.api_keys import ApiKey
from tests.helpers import InProcessBroker, unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.integration.test_tiered_storage_copy import tiered_broker
from tests.integration.test_transactions import transactional_producer
from tests.wire import WireClient

SEGMENT_BYTES = 4096
TIERED_TOPIC = {"remote.storage.enable": "true", "segment.bytes": str(SEGMENT_BYTES),
                "local.retention.bytes": "1"}
EARLIEST_LOCAL, LATEST_TIERED, EARLIEST_PENDING_UPLOAD = -4, -5, -6


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    data = tmp_path_factory.mktemp("tiered")
    server = InProcessBroker(data / "logs", tiered_broker(data / "remote"))
    yield server
    server.stop()


def list_offset(broker, topic: str, timestamp: int, version: int = 11, isolation_level: int = 0):
    client = WireClient(broker.port)
    try:
        response = client.request(ApiKey.LIST_OFFSETS, version, {
            "replica_id": -1, "isolation_level": isolation_level,
            "topics": [{"name": topic, "partitions": [{"partition_index": 0, "timestamp": timestamp}]}]})
    finally:
        client.close()
    return response.topics[0].partitions[0]


def produce(broker, topic: str, count: int, start: int = 0) -> None:
    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5, "batch.size": 1024})
    for n in range(start, start + count):
        producer.produce(topic, value=b"record-%05d-" % n + b"x" * 100)
    assert producer.flush(30) == 0


def tiered_past(broker, topic: str, offset: int) -> int:
    """Wait until the copier and local retention moved the local log start past `offset`; return it."""
    return wait_until(lambda: (local := list_offset(broker, topic, EARLIEST_LOCAL).offset) > offset and local,
                      timeout=60, message=f"{topic}'s local log to start past {offset}")


def consume(broker, topic: str, offset: int, expected: int, isolation: str = "read_uncommitted"):
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": unique_topic("reader"),
                         "enable.auto.commit": False, "isolation.level": isolation,
                         "max.partition.fetch.bytes": 8192})  # many fetches, each a few batches
    consumer.assign([TopicPartition(topic, 0, offset)])
    received = []

    def enough() -> bool:
        for msg in consumer.consume(num_messages=500, timeout=0.2):
            assert msg.error() is None, msg.error()
            received.append((msg.offset(), msg.value()))
        return len(received) >= expected

    try:
        wait_until(enough, 60, f"{expected} records of {topic} from {offset}")
    finally:
        consumer.close()
    return received


def test_a_consumer_reads_every_record_from_remote_and_local_storage(broker):
    topic = unique_topic("tiered")
    create_topic(broker.bootstrap, topic, 1, TIERED_TOPIC)
    produce(broker, topic, 300)
    local_start = tiered_past(broker, topic, 100)
    assert list_offset(broker, topic, -2).offset == 0, "the log still starts at 0: remote storage has it"

    cold = consume(broker, topic, 0, 300)
    assert [offset for offset, _ in cold] == list(range(300))
    assert [value[:13] for _, value in cold] == [b"record-%05d-" % n for n in range(300)]

    hot = consume(broker, topic, 290, 10)
    assert [offset for offset, _ in hot] == list(range(290, 300))
    assert local_start <= 290, "the tail was read locally"
    rlm = broker.server.replica_manager.remote_log_manager
    assert rlm.stats.count(REMOTE_FETCH_REQUESTS, topic) > 0
    assert rlm.stats.count(REMOTE_FETCH_ERRORS, topic) == 0


def test_list_offsets_answers_the_tiered_specs_and_finds_a_remote_timestamp(broker):
    topic = unique_topic("tiered-offsets")
    create_topic(broker.bootstrap, topic, 1, TIERED_TOPIC)
    start_ms = int(time.time() * 1000)
    produce(broker, topic, 200)
    local_start = tiered_past(broker, topic, 50)
    tiered = list_offset(broker, topic, LATEST_TIERED)
    assert local_start - 1 <= tiered.offset < 200 and tiered.leader_epoch == 0
    assert list_offset(broker, topic, EARLIEST_PENDING_UPLOAD).offset == tiered.offset + 1
    assert list_offset(broker, topic, LATEST_TIERED, version=8).error_code == 35  # UNSUPPORTED_VERSION
    found = list_offset(broker, topic, start_ms, version=10)  # on the reader pool, then the purgatory
    assert (found.error_code, found.offset) == (0, 0)


def test_read_committed_skips_the_aborted_transactions_in_remote_storage(broker):
    topic = unique_topic("tiered-txn")
    create_topic(broker.bootstrap, topic, 1, TIERED_TOPIC)
    producer = transactional_producer(broker.bootstrap, unique_topic("tiered-txn-id"))
    committed = []
    for n in range(30):
        producer.begin_transaction()
        for i in range(5):
            value = b"txn-%03d-%d-" % (n, i) + b"x" * 100
            producer.produce(topic, value=value)
            if n % 3:
                committed.append(value)
        if n % 3:
            producer.commit_transaction(30)
        else:
            assert producer.flush(30) == 0  # in the log, then aborted (not purged unsent)
            producer.abort_transaction(30)
    tiered_past(broker, topic, 40)
    read = consume(broker, topic, 0, len(committed), isolation="read_committed")
    assert [value for _, value in read] == committed
    everything = consume(broker, topic, 0, 150)
    assert len({value for _, value in everything}) == 150, "read_uncommitted sees the aborted ones too"


def test_describe_log_dirs_counts_the_local_segments_only(broker):
    topic = unique_topic("tiered-size")
    create_topic(broker.bootstrap, topic, 1, TIERED_TOPIC)
    produce(broker, topic, 200)
    tiered_past(broker, topic, 100)
    log = broker.server.log_manager.get_log(topic, 0)
    client = WireClient(broker.port)
    try:
        described = client.request(ApiKey.DESCRIBE_LOG_DIRS, 4,
                                   {"topics": [{"topic": topic, "partitions": [0]}]})
    finally:
        client.close()
    (size,) = [p.partition_size for d in described.results for t in d.topics for p in t.partitions]
    assert size == sum(segment.size for segment in log.segments) < 200 * 100

