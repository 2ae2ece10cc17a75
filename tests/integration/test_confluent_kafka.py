"""Acceptance: confluent-kafka (a current librdkafka) against the broker on loopback."""

from __future__ import annotations

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.helpers import unique_topic, wait_until

N_RECORDS = 10_000


def create_topic(bootstrap: str, name: str, partitions: int, config: dict | None = None) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1,
                                            config=config or {})])
    futures[name].result(15)


def consume_all(bootstrap: str, topic: str, partitions: int, expected: int, timeout: float = 60.0):
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused-with-assign",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    received = []

    def drained():
        for msg in consumer.consume(num_messages=5000, timeout=0.2):
            assert msg.error() is None, msg.error()
            received.append(msg)
        return len(received) >= expected

    try:
        wait_until(drained, timeout=timeout, message=f"{expected} records from {topic}")
    finally:
        consumer.close()
    return received


@pytest.mark.parametrize("compression", ["none", "lz4"])
def test_round_trip_keyed_records_with_headers(broker, compression):
    topic = unique_topic("ck")
    create_topic(broker.bootstrap, topic, 3)
    producer = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all", "linger.ms": 5,
                         "compression.type": compression})
    failures = []
    sent: dict[int, list[tuple[bytes, bytes, int]]] = {}

    def on_delivery(err, msg):
        if err is not None:
            failures.append(err)
        else:
            sent.setdefault(msg.partition(), []).append((msg.key(), msg.value(), msg.offset()))

    for i in range(N_RECORDS):
        producer.produce(topic, key=f"key-{i % 97}".encode(), value=f"value-{i}".encode(),
                         headers=[("seq", str(i).encode()), ("origin", b"test")], on_delivery=on_delivery)
        producer.poll(0)
    assert producer.flush(30) == 0
    assert failures == []
    assert sorted(sent) == [0, 1, 2], "a keyed producer spreads 97 keys over all three partitions"

    received = consume_all(broker.bootstrap, topic, 3, N_RECORDS)
    assert len(received) == N_RECORDS
    by_partition: dict[int, list] = {}
    for msg in received:
        by_partition.setdefault(msg.partition(), []).append(msg)
    for partition, msgs in by_partition.items():
        offsets = [m.offset() for m in msgs]
        assert offsets == list(range(len(msgs))), f"partition {partition}: offsets dense and in order"
        assert [(m.key(), m.value(), m.offset()) for m in msgs] == sent[partition]
        for m in msgs:
            seq = dict(m.headers())["seq"]
            assert m.value() == b"value-" + seq
            assert dict(m.headers())["origin"] == b"test"


def test_admin_client_lists_topics_and_broker(broker):
    topic = unique_topic("meta")
    create_topic(broker.bootstrap, topic, 3)
    metadata = AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(timeout=10)
    assert list(metadata.brokers) == [1]
    assert metadata.brokers[1].port == broker.port
    assert sorted(metadata.topics[topic].partitions) == [0, 1, 2]
    assert all(p.leader == 1 for p in metadata.topics[topic].partitions.values())


def test_create_existing_topic_fails_with_topic_already_exists(broker):
    topic = unique_topic("dup")
    create_topic(broker.bootstrap, topic, 1)
    with pytest.raises(Exception) as info:
        create_topic(broker.bootstrap, topic, 1)
    assert "TOPIC_ALREADY_EXISTS" in str(info.value) or "already exists" in str(info.value)


def test_delete_topic_removes_its_files(broker):
    topic = unique_topic("del")
    create_topic(broker.bootstrap, topic, 2)
    assert (broker.data_dir / f"{topic}-0").is_dir()
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.delete_topics([topic])[topic].result(15)
    assert not (broker.data_dir / f"{topic}-0").exists()
    assert not (broker.data_dir / f"{topic}-1").exists()
    assert topic not in admin.list_topics(timeout=10).topics


def test_list_offsets_earliest_and_latest(broker):
    topic = unique_topic("lo")
    create_topic(broker.bootstrap, topic, 1)
    producer = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all"})
    for i in range(25):
        producer.produce(topic, value=b"x%d" % i)
    assert producer.flush(15) == 0
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "wm"})
    try:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10, cached=False)
    finally:
        consumer.close()
    assert (low, high) == (0, 25)


def test_a_producer_auto_creates_its_topic_through_metadata(broker):
    """librdkafka asks for the topic's metadata before producing: that request creates it (the broker
    answers LEADER_NOT_AVAILABLE until it leads the partitions), never the produce itself."""
    topic = unique_topic("auto")
    producer = Producer({"bootstrap.servers": broker.bootstrap, "acks": "1"})
    producer.produce(topic, key=b"k", value=b"v")
    assert producer.flush(15) == 0
    received = consume_all(broker.bootstrap, topic, 1, 1)
    assert [(m.key(), m.value(), m.offset()) for m in received] == [(b"k", b"v", 0)]


def test_acks_zero_records_arrive(broker):
    topic = unique_topic("acks0")
    create_topic(broker.bootstrap, topic, 1)
    producer = Producer({"bootstrap.servers": broker.bootstrap, "acks": "0"})
    for i in range(100):
        producer.produce(topic, value=b"%d" % i)
    assert producer.flush(15) == 0
    received = consume_all(broker.bootstrap, topic, 1, 100)
    assert [m.value() for m in received] == [b"%d" % i for i in range(100)]
