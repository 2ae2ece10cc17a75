"""confluent-kafka (librdkafka) on both ends of the Spark tests: an independent client writes the input
and reads the output, so the tests check our source and sink against a real Kafka client."""

from __future__ import annotations

from confluent_kafka import Consumer, Producer, TopicPartition

from kafka.clients.admin import AdminClient, NewTopic
from tests.helpers import unique_topic, wait_until


def create_topic(bootstrap: str, prefix: str, partitions: int) -> str:
    topic = unique_topic(prefix)
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        assert admin.create_topics([NewTopic(topic, partitions, 1)]) == {topic: None}
    return topic


def produce(bootstrap: str, topic: str, records: list[dict]) -> None:
    """records: {"value", "key"?, "partition"?, "timestamp"?, "headers"?}; all acknowledged on return."""
    producer = Producer({"bootstrap.servers": bootstrap, "partitioner": "murmur2_random", "linger.ms": 5})
    errors = []
    for r in records:
        producer.produce(topic, r["value"], r.get("key"), partition=r.get("partition", -1),
                         timestamp=r.get("timestamp", 0), headers=r.get("headers"),
                         on_delivery=lambda err, msg: err and errors.append(err))
    assert producer.flush(30) == 0
    assert not errors


def consume(bootstrap: str, topic: str, partitions: int, expected: int, timeout: float = 30) -> list:
    """Every record of ``topic`` from the start, once ``expected`` are there (and no more arrive)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": unique_topic("g"),
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    records = []

    def got_all():
        while (msg := consumer.poll(0.2)) is not None:
            assert msg.error() is None, msg.error()
            records.append(msg)
        return len(records) >= expected

    try:
        wait_until(got_all, timeout=timeout, message=f"{expected} records in {topic}")
        highs = sum(consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
                    for p in range(partitions))
        assert highs == expected, f"{topic} holds {highs} records, expected {expected}"
    finally:
        consumer.close()
    return records
