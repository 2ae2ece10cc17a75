"""Acceptance: aiokafka (a pure-Python asyncio client) produces and consumes with assign(), with its
producer plain and idempotent (enable_idempotence: InitProducerId, then numbered batches)."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from tests.helpers import unique_topic

N_RECORDS = 1_000


async def round_trip(bootstrap: str, topic: str, idempotent: bool) -> list:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5,
                                enable_idempotence=idempotent)
    await producer.start()
    try:
        futures = [await producer.send(topic, key=b"k%d" % (i % 10), value=b"v%d" % i,
                                       headers=[("i", b"%d" % i)], partition=0)
                   for i in range(N_RECORDS)]
        metadata = await asyncio.gather(*futures)
    finally:
        await producer.stop()
    assert [m.offset for m in metadata] == list(range(N_RECORDS))

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        received = []
        async with asyncio.timeout(60):
            while len(received) < N_RECORDS:
                batches = await consumer.getmany(tp, timeout_ms=500)
                received.extend(batches.get(tp, []))
    finally:
        await consumer.stop()
    return received


@pytest.mark.parametrize("idempotent", [False, True], ids=["plain", "idempotent"])
def test_aiokafka_round_trip(broker, idempotent):
    topic = unique_topic("aio")
    received = asyncio.run(round_trip(broker.bootstrap, topic, idempotent))
    assert [(r.offset, r.key, r.value) for r in received] == [
        (i, b"k%d" % (i % 10), b"v%d" % i) for i in range(N_RECORDS)]
    assert all(r.headers == (("i", b"%d" % r.offset),) for r in received)
