"""Records there and back through a secured listener with confluent-kafka: what the TLS and SASL tests
each check a configuration with."""

from __future__ import annotations

import confluent_kafka as ck

from tests.helpers import unique_topic, wait_until


def produce_and_consume(conf: dict, count: int, value_size: int, over: str) -> list[bytes]:
    """`count` records of about `value_size` bytes produced and read back with `conf`; each value's first
    five bytes (v0000, v0001, ...) in the order read."""
    topic = unique_topic(over.lower())
    producer = ck.Producer(conf)
    for i in range(count):
        producer.produce(topic, value=b"v%04d" % i + b"." * value_size)
    assert producer.flush(30) == 0
    consumer = ck.Consumer({**conf, "group.id": topic, "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    values: list[bytes] = []
    try:
        def drained() -> bool:
            message = consumer.poll(0.5)
            if message is not None:
                assert message.error() is None, message.error()
                values.append(message.value()[:5])
            return len(values) >= count
        wait_until(drained, timeout=60, message=f"{count} records back over {over}", interval=0)
    finally:
        consumer.close()
    return values
