"""The nemesis's transactional job (tests/nemesis/transactional_job.py) on one broker on loopback, with
real librdkafka clients and the faults of nemesis seed 12 injected at the client's edge.

Seed 12 lost 200 inputs: their transaction's TxnOffsetCommit went to a paused group coordinator,
failed, and the transaction was aborted (ABORT marker after its output); the group's committed
offset was still before those inputs (no record of the aborted offsets ever reached
__consumer_offsets), yet the next transaction's output began right after the aborted batch and its
offsets committed past it. The rewind to the committed offsets had failed, and the job went on from
the consumer's in-memory positions. Here: the second transaction's send_offsets_to_transaction
fails as it did (_DESTROY_BROKER), and the first OffsetFetch of the rewind fails too.
"""

from __future__ import annotations

import threading

import confluent_kafka
from confluent_kafka import KafkaError, KafkaException

from tests.helpers import unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.nemesis.transactional_job import (
    GROUP,
    TransactionalJob,
    TransactionHistory,
    exactly_once_anomalies,
)

INPUTS = 1000


def _destroyed(what: str) -> KafkaException:
    return KafkaException(KafkaError(KafkaError._DESTROY_BROKER,
                                     f"injected: {what}: broker handle destroyed"))


class _Delegate:
    def __init__(self, client) -> None:
        self._client = client

    def __getattr__(self, name):
        return getattr(self._client, name)


class _Producer(_Delegate):
    def __init__(self, client, job: FaultyJob) -> None:
        super().__init__(client)
        self._job = job

    def send_offsets_to_transaction(self, *args):
        self._job.offsets_sent += 1
        if self._job.offsets_sent == 2:  # the second transaction's, after its output was produced
            raise _destroyed("TxnOffsetCommit to the group coordinator")
        return self._client.send_offsets_to_transaction(*args)


class _Consumer(_Delegate):
    def __init__(self, client, job: FaultyJob) -> None:
        super().__init__(client)
        self._job = job

    def committed(self, *args):
        self._job.offset_fetches += 1
        if self._job.offset_fetches == 1:  # the rewind's first OffsetFetch
            raise _destroyed("OffsetFetch to the group coordinator")
        return self._client.committed(*args)


class FaultyJob(TransactionalJob):
    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.offsets_sent = self.offset_fetches = 0

    def _consumer(self):
        return _Consumer(super()._consumer(), self)

    def _producer(self):
        return _Producer(super()._producer(), self)


def _committed(bootstrap: str, topic: str) -> int:
    probe = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP})
    try:
        return probe.committed([confluent_kafka.TopicPartition(topic, 0)], 10)[0].offset
    finally:
        probe.close()


def _read_committed(bootstrap: str, topic: str) -> list[str]:
    tp = confluent_kafka.TopicPartition(topic, 0, confluent_kafka.OFFSET_BEGINNING)
    reader = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": unique_topic("reader"),
                                       "isolation.level": "read_committed", "enable.auto.commit": False})
    try:
        end = reader.get_watermark_offsets(tp, 10)[1]
        reader.assign([tp])
        values: list[str] = []

        def at_end() -> bool:
            values.extend(m.value().decode() for m in reader.consume(500, 0.2) if not m.error())
            return reader.position([tp])[0].offset >= end

        wait_until(at_end, 30, f"{topic} read to its end, {end}")
        return values
    finally:
        reader.close()


def test_an_aborted_transaction_whose_rewind_fails_once_loses_no_input(broker):
    source, sink = unique_topic("job-in"), unique_topic("job-out")
    create_topic(broker.bootstrap, source, 1)
    create_topic(broker.bootstrap, sink, 1)
    producer = confluent_kafka.Producer({"bootstrap.servers": broker.bootstrap})
    for i in range(INPUTS):
        producer.produce(source, f"v-{i}".encode(), partition=0)
    assert producer.flush(30) == 0

    history, stop = TransactionHistory(), threading.Event()
    job = FaultyJob(broker.bootstrap, source, sink, history, stop)
    job.start()
    try:
        wait_until(lambda: _committed(broker.bootstrap, source) >= INPUTS, 60,
                   f"the job's offsets committed to {INPUTS}", interval=0.5)
    finally:
        stop.set()
        job.join(90)
    assert not job.is_alive()

    inputs = {0: {i: f"v-{i}" for i in range(INPUTS)}}
    outputs = {0: _read_committed(broker.bootstrap, sink)}
    assert exactly_once_anomalies(inputs, outputs, {0: _committed(broker.bootstrap, source)}) == []
    # the faults did happen: the second transaction failed (aborted; or, when the abort itself failed on
    # a loaded machine, its producer replaced, which fences it), and a rewind failed once and was tried again
    assert job.offsets_sent >= 2 and history.aborted <= 1 and job.offset_fetches == 2, (history,
                                                                                        job.offset_fetches)
    assert any("TxnOffsetCommit" in e for e in history.errors), history.errors
    assert any(e.startswith("rewind: ") and "OffsetFetch" in e for e in history.errors), history.errors
