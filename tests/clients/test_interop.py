"""Acceptance: our producer to a confluent-kafka (librdkafka) consumer and back, every codec, and
partitioning parity with librdkafka's murmur2_random partitioner.

``KAFKA_INTEROP_RECORDS`` sets the records per codec (default 20,000: 100,000 keyed records with
headers over the five codecs, each way); set it to 100000 for the full run per codec.
"""

from __future__ import annotations

import os

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer
from confluent_kafka import TopicPartition as CkTopicPartition

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.consumer import KafkaConsumer
from kafka.clients.producer import KafkaProducer
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import unique_topic, wait_until

PER_CODEC = int(os.environ.get("KAFKA_INTEROP_RECORDS", "20000"))
CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]
PARTITIONS = 3


def _create(bootstrap: str, topic: str, partitions: int) -> None:
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        assert admin.create_topics([NewTopic(topic, partitions, 1)]) == {topic: None}


def _expected(codec: str, i: int) -> tuple[bytes, bytes, list[tuple[str, bytes]]]:
    return (f"key-{i % 101}".encode(), f"{codec}-value-{i}".encode(),
            [("codec", codec.encode()), ("seq", str(i).encode())])


def _check_in_order(received: list[tuple[str, int, bytes, bytes, list]]) -> None:
    """Per partition and producer (codec), sequence numbers only go up, and none is missing."""
    last: dict[tuple[str, int], int] = {}
    seen: dict[str, set[int]] = {c: set() for c in CODECS}
    for codec, partition, key, value, headers in received:
        seq = int(dict(headers)["seq"])
        assert (key, value, headers) == _expected(codec, seq)
        assert last.get((codec, partition),
                        -1) < seq, f"{codec} record {seq} out of order on partition {partition}"
        last[(codec, partition)] = seq
        seen[codec].add(seq)
    assert all(seen[c] == set(range(PER_CODEC)) for c in CODECS), "records were lost"


def test_our_producer_to_a_librdkafka_consumer(broker):
    topic = unique_topic("ours-to-ck")
    _create(broker.bootstrap, topic, PARTITIONS)
    for codec in CODECS:
        with KafkaProducer({"bootstrap.servers": broker.bootstrap, "compression.type": codec,
                            "linger.ms": 5}) as p:
            futures = [p.send(topic, v, key=k, headers=h)
                       for k, v, h in (_expected(codec, i) for i in range(PER_CODEC))]
            p.flush(60)
        assert all(f.exception() is None for f in futures)
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "unused",
                         "enable.auto.commit": False})
    consumer.assign([CkTopicPartition(topic, p, OFFSET_BEGINNING) for p in range(PARTITIONS)])
    received = []

    def drained():
        for m in consumer.consume(num_messages=10000, timeout=0.2):
            assert m.error() is None, m.error()
            headers = [(k, v) for k, v in m.headers()]
            received.append((headers[0][1].decode(), m.partition(), m.key(), m.value(), headers))
        return len(received) >= PER_CODEC * len(CODECS)

    try:
        wait_until(drained, timeout=120, message="every record at the librdkafka consumer")
    finally:
        consumer.close()
    assert len(received) == PER_CODEC * len(CODECS)
    _check_in_order(received)


def test_librdkafka_producer_to_our_consumer(broker):
    topic = unique_topic("ck-to-ours")
    _create(broker.bootstrap, topic, PARTITIONS)
    for codec in CODECS:
        producer = Producer({"bootstrap.servers": broker.bootstrap, "compression.type": codec, "linger.ms": 5,
                             "enable.idempotence": False})
        for i in range(PER_CODEC):
            key, value, headers = _expected(codec, i)
            producer.produce(topic, value, key, headers=headers)
            producer.poll(0)
        assert producer.flush(60) == 0
    received = []
    with KafkaConsumer({"bootstrap.servers": broker.bootstrap, "auto.offset.reset": "earliest"}) as consumer:
        consumer.assign([TopicPartition(topic, p) for p in range(PARTITIONS)])

        def drained():
            for r in consumer.poll(200):
                received.append((dict(r.headers)["codec"].decode(), r.partition, r.key, r.value, r.headers))
            return len(received) >= PER_CODEC * len(CODECS)

        wait_until(drained, timeout=120, message="every record at our consumer")
    assert len(received) == PER_CODEC * len(CODECS)
    _check_in_order(received)


@pytest.mark.parametrize("partitions", [1, 3, 7])
def test_keys_land_where_librdkafka_murmur2_random_puts_them(broker, partitions):
    topic = unique_topic(f"parity{partitions}")
    _create(broker.bootstrap, topic, partitions)
    keys = [f"parity-key-{i}".encode() for i in range(10_000)]
    theirs: dict[bytes, int] = {}
    producer = Producer({"bootstrap.servers": broker.bootstrap, "partitioner": "murmur2_random",
                         "linger.ms": 5})
    for key in keys:
        producer.produce(topic, b"", key, on_delivery=lambda err,
                         msg: theirs.__setitem__(msg.key(), msg.partition()))
        producer.poll(0)
    assert producer.flush(60) == 0
    with KafkaProducer({"bootstrap.servers": broker.bootstrap}) as ours:
        futures = {key: ours.send(topic, b"", key=key) for key in keys}
        ours.flush(60)
    mismatched = [k for k in keys if futures[k].get(10).partition != theirs[k]]
    assert len(theirs) == len(keys) and mismatched == []
