"""Acceptance: what the leader checks and stamps in produced batches (LogValidator), as librdkafka's
own integration tests expect of Kafka: keyless records refused by compacted topics (KIP-467
record_errors), LogAppendTime stamped by the broker, and the timestamp bounds."""

from __future__ import annotations

import time

from confluent_kafka import TIMESTAMP_LOG_APPEND_TIME, Consumer, KafkaError, Producer, TopicPartition

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import DefaultRecord, build_batch
from tests.helpers import unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.wire import WireClient


def produce_all(bootstrap: str, topic: str, messages: list[dict]) -> list:
    """Each message in a batch of its own (flush between): [(error, message)] in order."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, "retries": 0})
    reports = []
    for m in messages:
        producer.produce(topic, on_delivery=lambda err, msg: reports.append((err, msg)), **m)
        producer.flush(30)
    return reports


def read(bootstrap: str, topic: str, count: int) -> list:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, 0)])
    got = []
    try:
        def enough():
            m = consumer.poll(0.2)
            if m is not None and m.error() is None:
                got.append(m)
            return len(got) >= count
        wait_until(enough, timeout=30, message=f"{count} records")
    finally:
        consumer.close()
    return got


def test_a_compacted_topic_refuses_keyless_records_with_record_errors(broker):
    topic = unique_topic("compact")
    create_topic(broker.bootstrap, topic, 1, {"cleanup.policy": "compact"})
    reports = produce_all(broker.bootstrap, topic, [{"key": b"k1", "value": b"a"}, {"value": b"keyless"},
                                                    {"key": b"k2", "value": b"b"}])
    assert [r[0].code() if r[0] else None for r in reports] == [None, KafkaError.INVALID_RECORD, None]
    assert [m.value() for m in read(broker.bootstrap, topic, 2)] == [b"a", b"b"]

    client = WireClient(broker.port)  # the ProduceResponse itself: which records, and why
    mixed = build_batch([DefaultRecord(0, 0, b"k", b"v"), DefaultRecord(1, 0, None, b"v"),
                         DefaultRecord(2, 0, None, b"v")])
    response = client.request(ApiKey.PRODUCE, 9, {"acks": -1, "timeout_ms": 5000, "topic_data": [
        {"name": topic, "partition_data": [{"index": 0, "records": mixed}]}]})
    partition = response.responses[0].partition_responses[0]
    assert partition.error_code == Errors.INVALID_RECORD
    assert [e.batch_index for e in partition.record_errors] == [1, 2]
    assert "Compacted topic cannot accept message without key" in partition.error_message
    offsets = client.request(ApiKey.LIST_OFFSETS, 7, {"replica_id": -1, "isolation_level": 0, "topics": [
        {"name": topic, "partitions": [{"partition_index": 0, "timestamp": -1}]}]})
    assert offsets.topics[0].partitions[0].offset == 2  # the whole batch was refused, keyed record too
    client.close()


def test_log_append_time_topics_get_the_brokers_timestamp(broker):
    topic = unique_topic("lat")
    create_topic(broker.bootstrap, topic, 1, {"message.timestamp.type": "LogAppendTime"})
    before = int(time.time() * 1000)
    reports = produce_all(broker.bootstrap, topic, [{"value": b"old", "timestamp": 1000}])
    after = int(time.time() * 1000)
    assert reports[0][0] is None
    (record,) = read(broker.bootstrap, topic, 1)
    kind, timestamp = record.timestamp()
    assert kind == TIMESTAMP_LOG_APPEND_TIME
    assert before - 1000 <= timestamp <= after + 1000  # the broker's clock, not the producer's 1000


def test_timestamps_outside_the_topics_bounds_are_invalid_timestamp(broker):
    topic = unique_topic("bounds")
    create_topic(broker.bootstrap, topic, 1, {"message.timestamp.before.max.ms": "3600000",
                                              "message.timestamp.after.max.ms": "3600000"})
    now = int(time.time() * 1000)
    reports = produce_all(broker.bootstrap, topic, [{"value": b"two days old", "timestamp": now - 2 * 86400_000},
                                                    {"value": b"now", "timestamp": now},
                                                    {"value": b"next week", "timestamp": now + 7 * 86400_000}])
    assert [r[0].code() if r[0] else None for r in reports] == [KafkaError.INVALID_TIMESTAMP, None,
                                                               KafkaError.INVALID_TIMESTAMP]
    legacy = unique_topic("difference")
    create_topic(broker.bootstrap, legacy, 1, {"message.timestamp.difference.max.ms": "60000"})
    reports = produce_all(broker.bootstrap, legacy, [{"value": b"old", "timestamp": now - 3600_000}])
    assert reports[0][0].code() == KafkaError.INVALID_TIMESTAMP
