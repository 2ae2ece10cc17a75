"""Acceptance: kill -9 the broker while a producer sends with acks=all, restart, and every record
whose delivery was acknowledged is there, in order, at its acknowledged offset -- twenty times over.

Each round restarts the broker on the same data dir with no clean-shutdown marker, so LogLoader
recovers every segment after the recovery point (CRC-checking each batch, rebuilding indexes)."""

from __future__ import annotations

import signal

from confluent_kafka import Producer

from tests.helpers import wait_until
from tests.integration.test_confluent_kafka import consume_all, create_topic

ROUNDS = 20
OVERRIDES = {"log.segment.bytes": "32768", "num.io.threads": "2", "num.network.threads": "1"}


def produce_until_killed(broker, topic: str, round_number: int) -> list[tuple[int, bytes]]:
    """Send with acks=all until 100 records are acknowledged, then kill -9 the broker mid-stream."""
    producer = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all", "linger.ms": 1,
                         "batch.size": 4096, "message.timeout.ms": 2000, "retries": 0})
    acked: list[tuple[int, bytes]] = []
    sent = 0

    def on_delivery(err, msg):
        if err is None:
            acked.append((msg.offset(), msg.value()))

    def some_acknowledged():
        nonlocal sent
        for _ in range(50):
            producer.produce(topic, value=b"round-%02d-%05d" % (round_number, sent), on_delivery=on_delivery)
            sent += 1
        producer.poll(0.01)
        return len(acked) >= 100

    wait_until(some_acknowledged, 20, "the producer to get acknowledgements")
    broker.stop(signal.SIGKILL)  # more batches are in flight
    producer.purge()
    producer.flush(3)
    return acked


def test_acknowledged_records_survive_kill_minus_nine(broker_process, tmp_path):
    data = tmp_path / "data"
    topic = "crash"
    acked: dict[int, bytes] = {}  # offset -> value, for every acknowledged record
    recovered_rounds = 0
    for round_number in range(ROUNDS):
        broker = broker_process(data, OVERRIDES)
        if round_number == 0:
            create_topic(broker.bootstrap, topic, 1)
        elif "recovered log after an unclean shutdown" in broker.output():
            recovered_rounds += 1
        for offset, value in produce_until_killed(broker, topic, round_number):
            assert offset not in acked, f"offset {offset} was acknowledged twice"
            acked[offset] = value

    assert recovered_rounds == ROUNDS - 1, "every restart after a kill ran crash recovery"
    final = broker_process(data, OVERRIDES)
    records = consume_all(final.bootstrap, topic, 1, max(acked) + 1)
    offsets = [m.offset() for m in records]
    assert offsets == sorted(set(offsets)), "in order, each offset once"
    by_offset = {m.offset(): m.value() for m in records}
    missing = [offset for offset, value in acked.items() if by_offset.get(offset) != value]
    assert not missing, f"acknowledged records lost or changed at offsets {missing[:10]}"
    final.stop()
