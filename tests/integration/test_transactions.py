"""Acceptance: transactions (KIP-98) with real clients, as docs/transactions.md tells them.

A transactional producer's records reach the partitions at once, but a read_committed consumer sees
them only after the COMMIT marker, never after an ABORT; a transaction still open holds back the
last stable offset, and with it everything after it; offsets sent with the transaction are committed
with it; and a second producer with the same transactional.id fences the first.
"""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka import TopicPartition as AioTopicPartition
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition

from kafka.protocol.api_keys import ApiKey
from tests.helpers import unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.wire import WireClient

READ_COMMITTED, READ_UNCOMMITTED = "read_committed", "read_uncommitted"


def transactional_producer(bootstrap: str, transactional_id: str, **extra) -> Producer:
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id,
                         "linger.ms": 1, **extra})
    producer.init_transactions(30)
    return producer


def read_all(bootstrap: str, topic: str, isolation: str, expected: int, partitions: int = 1) -> list[bytes]:
    """Every record value from the beginning, in offset order per partition, once `expected` arrived."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": unique_topic("reader"),
                         "enable.auto.commit": False, "isolation.level": isolation})
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    values: list[bytes] = []

    def enough() -> bool:
        for msg in consumer.consume(num_messages=1000, timeout=0.2):
            if msg.error() is None:
                values.append(msg.value())
        return len(values) >= expected

    try:
        wait_until(enough, 30, f"{expected} records as {isolation}")
    finally:
        consumer.close()
    return values


def last_stable_offset(port: int, topic: str, partition: int = 0) -> int:
    """ListOffsets latest with isolation_level read_committed: the partition's last stable offset."""
    client = WireClient(port)
    try:
        response = client.request(ApiKey.LIST_OFFSETS, 7, {"replica_id": -1, "isolation_level": 1, "topics": [
            {"name": topic, "partitions": [{"partition_index": partition, "timestamp": -1}]}]})
    finally:
        client.close()
    return response.topics[0].partitions[0].offset


def test_read_committed_sees_committed_transactions_only(broker):
    topic = unique_topic("txn")
    create_topic(broker.bootstrap, topic, 1)
    producer = transactional_producer(broker.bootstrap, unique_topic("txn-id"))
    for outcome, values in (("commit", [b"c1", b"c2", b"c3"]), ("abort", [b"a1", b"a2"]),
                            ("commit", [b"c4"])):
        producer.begin_transaction()
        for value in values:
            producer.produce(topic, value=value)
        producer.flush(10)
        getattr(producer, f"{outcome}_transaction")(30)

    assert read_all(broker.bootstrap, topic, READ_COMMITTED, 4) == [b"c1", b"c2", b"c3", b"c4"]
    # read_uncommitted sees the aborted records too, but never the three markers (control records)
    assert read_all(broker.bootstrap, topic, READ_UNCOMMITTED, 6) == [b"c1", b"c2", b"c3", b"a1", b"a2",
                                                                      b"c4"]
    assert last_stable_offset(broker.port, topic) == 6 + 3, "six records and three markers, all stable"


def test_an_open_transaction_holds_back_read_committed_until_it_commits(broker):
    topic = unique_topic("open")
    create_topic(broker.bootstrap, topic, 1)
    producer = transactional_producer(broker.bootstrap, unique_topic("open-id"))
    producer.begin_transaction()
    producer.produce(topic, value=b"pending")
    producer.flush(10)
    plain = Producer({"bootstrap.servers": broker.bootstrap})
    plain.produce(topic, value=b"after")  # committed at once, but behind the open transaction
    plain.flush(10)

    assert last_stable_offset(broker.port, topic) == 0, "the LSO stops at the open transaction's first offset"
    producer.commit_transaction(30)
    wait_until(lambda: last_stable_offset(broker.port, topic) == 3, 10, "the LSO past the COMMIT marker")
    assert read_all(broker.bootstrap, topic, READ_COMMITTED, 2) == [b"pending", b"after"]


def test_consume_transform_produce_commits_offsets_with_the_output(broker):
    source, sink, group = unique_topic("in"), unique_topic("out"), unique_topic("ctp")
    create_topic(broker.bootstrap, source, 1)
    create_topic(broker.bootstrap, sink, 1)
    plain = Producer({"bootstrap.servers": broker.bootstrap})
    for n in range(100):
        plain.produce(source, value=b"%d" % n)
    plain.flush(10)

    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group,
                         "enable.auto.commit": False,
                         "auto.offset.reset": "earliest", "isolation.level": READ_COMMITTED})
    consumer.subscribe([source])
    producer = transactional_producer(broker.bootstrap, unique_topic("ctp-id"))
    processed = 0
    aborted_once = False

    def transform_a_batch() -> bool:
        nonlocal processed, aborted_once
        messages = [m for m in consumer.consume(num_messages=30, timeout=0.5) if m.error() is None]
        if not messages:
            return processed >= 100
        producer.begin_transaction()
        for m in messages:
            producer.produce(sink, value=b"x" + m.value())
        producer.send_offsets_to_transaction(consumer.position(consumer.assignment()),
                                             consumer.consumer_group_metadata(), 30)
        # the first batch is aborted: its output vanishes and its offsets stay uncommitted
        if not aborted_once:
            aborted_once = True
            producer.abort_transaction(30)
            for tp in consumer.assignment():
                consumer.seek(TopicPartition(tp.topic, tp.partition, 0))
            return False
        producer.commit_transaction(30)
        processed += len(messages)
        return processed >= 100

    try:
        wait_until(transform_a_batch, 60, "100 records transformed in transactions", interval=0)
        committed = consumer.committed([TopicPartition(source, 0)], 10)[0].offset
    finally:
        consumer.close()
    assert committed == 100, "the offsets committed with the transactions cover exactly the input"
    output = read_all(broker.bootstrap, sink, READ_COMMITTED, 100)
    assert output == [b"x%d" % n for n in range(100)], "each input once in the committed output, in order"


def test_a_second_producer_with_the_same_transactional_id_fences_the_first(broker):
    topic, transactional_id = unique_topic("fence"), unique_topic("fence-id")
    create_topic(broker.bootstrap, topic, 1)
    first = transactional_producer(broker.bootstrap, transactional_id)
    first.begin_transaction()
    first.produce(topic, value=b"zombie")
    first.flush(10)
    second = transactional_producer(broker.bootstrap, transactional_id)  # aborts the zombie's transaction
    with pytest.raises(KafkaException) as fenced:
        first.commit_transaction(10)
    assert fenced.value.args[0].fatal(), f"the old instance is fenced for good: {fenced.value}"
    second.begin_transaction()
    second.produce(topic, value=b"live")
    second.commit_transaction(30)
    assert read_all(broker.bootstrap, topic, READ_COMMITTED, 1) == [b"live"]


async def aiokafka_commit_and_abort(bootstrap: str, topic: str) -> list[bytes]:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, transactional_id=unique_topic("aio-txn"))
    await producer.start()
    try:
        async with producer.transaction():
            await producer.send_and_wait(topic, b"kept")
        await producer.begin_transaction()
        await producer.send_and_wait(topic, b"dropped")
        await producer.abort_transaction()
        async with producer.transaction():
            await producer.send_and_wait(topic, b"kept too")
    finally:
        await producer.stop()
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, isolation_level=READ_COMMITTED,
                                enable_auto_commit=False)
    await consumer.start()
    try:
        tp = AioTopicPartition(topic, 0)
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        values: list[bytes] = []
        async with asyncio.timeout(30):
            while len(values) < 2:
                batches = await consumer.getmany(tp, timeout_ms=500)
                values.extend(r.value for r in batches.get(tp, []))
    finally:
        await consumer.stop()
    return values


def test_aiokafka_transactional_producer(broker):
    topic = unique_topic("aio-txn")
    create_topic(broker.bootstrap, topic, 1)
    assert asyncio.run(aiokafka_commit_and_abort(broker.bootstrap, topic)) == [b"kept", b"kept too"]
