"""Acceptance (seed 004, KIP-98): a producer's retry of a batch the broker already wrote is answered
with the first base offset and written once, also after the broker was killed with -9 in between
(the partition's producer state is rebuilt from its .snapshot files and the log); DescribeProducers,
what `kafka-transactions.sh describe-producers` asks, lists the producer."""

from __future__ import annotations

import signal

from confluent_kafka import Producer

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from tests.helpers import free_port, wait_until
from tests.integration.test_confluent_kafka import consume_all, create_topic
from tests.tcp_proxy import TcpProxy
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
        response = client.request(ApiKey.DESCRIBE_PRODUCERS, 0,
                                  {"topics": [{"name": TOPIC, "partition_indexes": [0, 7]}]})
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
    assert "rebuilding producer state from the log" in broker.output(), (
        "replayed from the last segment's snapshot")
    assert (retry.error_code, retry.base_offset) == (Errors.NONE, 95), (
        "the retry is recognised, not written again")
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



def test_an_idempotent_confluent_kafka_producer_loses_and_duplicates_nothing_across_kill_minus_nine(
        broker_process, tmp_path, request):
    """The issue's acceptance run: librdkafka with enable.idempotence=true writes numbered records to
    three partitions; the broker is killed with -9 mid-stream and restarted on the same port and data.

    Seed 004's case is forced, not hoped for: the producer reaches the broker through a TcpProxy
    that stops passing responses back, so the last batches are written but never answered. After
    the kill librdkafka retries them with their sequences, and the restarted broker, its producer
    state rebuilt from snapshots and the log, answers them with their first offsets. Every
    acknowledged record is there exactly once, in the order it was produced on its partition."""
    data = tmp_path / "data"
    port = free_port()
    proxy = TcpProxy(port)
    request.addfinalizer(proxy.close)
    overrides = {"log.segment.bytes": "65536", "num.io.threads": "2",
                 # every client connection via the proxy
                 "advertised.listeners": f"PLAINTEXT://127.0.0.1:{proxy.port}"}
    broker = broker_process(data, overrides, port=port)
    topic, partitions, total = "numbered", 3, 6000
    create_topic(broker.bootstrap, topic, partitions)
    producer = Producer({"bootstrap.servers": f"127.0.0.1:{proxy.port}", "enable.idempotence": True,
                         "linger.ms": 2, "batch.num.messages": 50, "message.timeout.ms": 60_000,
                         "reconnect.backoff.max.ms": 200})
    acked: dict[bytes, int] = {}  # value -> partition
    errors: list[str] = []

    def on_delivery(err, msg):
        if err is None:
            acked[msg.value()] = msg.partition()
        else:
            errors.append(str(err))

    def send(first: int, last: int) -> None:
        for n in range(first, last):
            producer.produce(topic, key=b"key-%d" % (n % 17), value=b"%06d" % n, on_delivery=on_delivery)
            producer.poll(0)

    def records_in_log() -> int:
        return sum(watermarks(broker.bootstrap, topic, partitions))

    send(0, 2000)
    wait_until(lambda: producer.poll(0.05) is not None and len(acked) >= 1000, 30, "1,000 acknowledgements")
    proxy.drop_responses()  # from here the broker appends batches whose answers never arrive
    send(2000, 3000)
    written = wait_until(lambda: (n := records_in_log()) > len(acked) and n, 30,
                         "unanswered batches in the log")
    broker.stop(signal.SIGKILL)
    unanswered = written - len(acked)
    assert unanswered > 0, "some batches were written before the kill and never acknowledged"
    restarted = broker_process(data, overrides, port=port)
    send(3000, total)
    assert producer.flush(60) == 0, "every record delivered or failed"
    assert not errors, f"delivery errors: {errors[:5]}"
    assert len(acked) == total

    records = consume_all(restarted.bootstrap, topic, partitions, total)
    values = [m.value() for m in records]
    duplicates = sorted({v for v in values if values.count(v) > 1})
    assert not duplicates, f"written twice: {duplicates[:10]}"
    assert set(values) == set(acked), "every acknowledged record, and nothing else"
    for partition in range(partitions):
        in_log = [int(m.value()) for m in records if m.partition() == partition]
        assert in_log == sorted(in_log), f"partition {partition} holds its records in the order produced"
    assert "rebuilding producer state from the log" in restarted.output()
    restarted.stop()


def watermarks(bootstrap: str, topic: str, partitions: int) -> list[int]:
    """Each partition's log end (its high watermark on one node), asked of the broker directly."""
    client = WireClient(int(bootstrap.rsplit(":", 1)[1]))
    try:
        response = client.request(ApiKey.LIST_OFFSETS, 7, {"replica_id": -1, "isolation_level": 0, "topics": [
            {"name": topic,
             "partitions": [{"partition_index": p, "timestamp": -1} for p in range(partitions)]}]})
    finally:
        client.close()
    return [p.offset for p in response.topics[0].partitions]
