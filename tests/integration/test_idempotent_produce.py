"""Acceptance (seed 004, KIP-98): a producer's retry of a batch the broker already wrote is answered
with the first base offset and written once, also after the broker was killed with -9 in between
(the partition's producer state is rebuilt from its .snapshot files and the log); DescribeProducers,
what `kafka-transactions.sh describe-producers` asks, lists the producer."""

from __future__ import annotations

import signal

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from tests.helpers import wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.wire import WireClient

TOPIC = "idempotent"


def produce(port: int, records: bytes):
    client = WireClient(port)
    try:
        response = client.request(ApiKey.PRODUCE, 9, {"acks": -1, "timeout_ms": 5000, "topic_data": [
            {"name": TOPIC, "partition_data": [{"index": 0, "records": records}]}]})
    finally:
        client.close()
    return response.responses[0].partition_responses[0]


def describe_producers(port: int):
    client = WireClient(port)
    try:
        response = client.request(ApiKey.DESCRIBE_PRODUCERS, 0, {"topics": [{"name": TOPIC, "partition_indexes": [0, 7]}]})
    finally:
        client.close()
    return {p.partition_index: p for p in response.topics[0].partitions}


def init_producer_id(port: int) -> tuple[int, int]:
    client = WireClient(port)
    try:
        response = client.request(ApiKey.INIT_PRODUCER_ID, 4, {"transactional_id": None,
                                                               "transaction_timeout_ms": 60_000})
    finally:
        client.close()
    assert response.error_code == Errors.NONE
    return response.producer_id, response.producer_epoch


def test_a_retry_after_kill_minus_nine_is_answered_with_its_first_offset(broker_process, tmp_path):
    data = tmp_path / "data"
    broker = broker_process(data, {"log.segment.bytes": "1024"})
    create_topic(broker.bootstrap, TOPIC, 1)
    producer_id, epoch = init_producer_id(broker.port)
    batches = [build_batch([(None, b"record-%03d" % (seq + i)) for i in range(5)], producer_id=producer_id,
                           producer_epoch=epoch, base_sequence=seq) for seq in range(0, 100, 5)]
    first_offsets = [produce(broker.port, records).base_offset for records in batches]
    assert first_offsets == list(range(0, 100, 5))
    retry = produce(broker.port, batches[-1])
    assert (retry.error_code, retry.base_offset) == (Errors.NONE, 95)

    broker.stop(signal.SIGKILL)  # no clean shutdown: no snapshot at the log end
    broker = broker_process(data, {"log.segment.bytes": "1024"})

    def answered():
        response = produce(broker.port, batches[-1])
        return response if response.error_code != Errors.NOT_LEADER_OR_FOLLOWER else None

    retry = wait_until(answered, message="the restarted broker to lead the partition again")
    assert "rebuilding producer state from the log" in broker.output(), "replayed from the last segment's snapshot"
    assert (retry.error_code, retry.base_offset) == (Errors.NONE, 95), "the retry is recognised, not written again"
    gap = produce(broker.port, build_batch([(None, b"late")], producer_id=producer_id, producer_epoch=epoch,
                                           base_sequence=101))
    assert gap.error_code == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER
    after = produce(broker.port, build_batch([(None, b"next")], producer_id=producer_id, producer_epoch=epoch,
                                             base_sequence=100))
    assert (after.error_code, after.base_offset) == (Errors.NONE, 100)

    described = describe_producers(broker.port)
    (state,) = described[0].active_producers
    assert (state.producer_id, state.producer_epoch, state.last_sequence) == (producer_id, epoch, 100)
    assert described[7].error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
    broker.stop()
