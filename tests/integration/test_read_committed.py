"""The data plane of transactions (KIP-98) on a real broker, with hand-made requests: transactional
batches from two producers, then the markers a transaction coordinator would send (WriteTxnMarkers,
COMMIT for one, ABORT for the other). A read_committed Fetch stops at the last stable offset (LSO)
while a transaction is open and names the aborted one; librdkafka's read_committed consumer, given
that, returns only the committed records.
"""

from __future__ import annotations

import time
import urllib.request

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.control_records import end_txn_marker_batch
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch, iter_batches
from tests.helpers import unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.wire import WireClient

A, B = 7001, 7002  # producer ids (no coordinator here: the test plays its part)
READ_UNCOMMITTED, READ_COMMITTED = 0, 1


def produce(client: WireClient, topic: str, records: bytes, transactional_id: str | None = "txn"):
    response = client.request(ApiKey.PRODUCE, 9, {
        "transactional_id": transactional_id, "acks": -1, "timeout_ms": 5000,
        "topic_data": [{"name": topic, "partition_data": [{"index": 0, "records": records}]}]})
    return response.responses[0].partition_responses[0]


def now_ms() -> int:
    # Stamped now, as a producer would: a batch from 1970 would make the marker (stamped now) roll
    # the segment (segment.ms), and a zero-copy fetch returns one segment at a time.
    return int(time.time() * 1000)


def txn_batch(producer_id: int, seq: int, values: list[bytes], epoch: int = 0) -> bytes:
    return build_batch([(None, v) for v in values], timestamp=now_ms(), producer_id=producer_id,
                       producer_epoch=epoch, base_sequence=seq, is_transactional=True)


def write_markers(client: WireClient, topic: str, *markers: tuple[int, bool], epoch: int = 0,
                  coordinator_epoch: int = 0) -> dict:
    """{(producer id, partition): error} of one WriteTxnMarkers: (producer id, commit?) per marker."""
    response = client.request(ApiKey.WRITE_TXN_MARKERS, 1, {"markers": [
        {"producer_id": pid, "producer_epoch": epoch, "transaction_result": commit,
         "coordinator_epoch": coordinator_epoch, "topics": [{"name": topic, "partition_indexes": [0]}]}
        for pid, commit in markers]})
    return {(m.producer_id, p.partition_index): p.error_code
            for m in response.markers for t in m.topics for p in t.partitions}


def fetch(client: WireClient, topic: str, isolation_level: int, offset: int = 0):
    response = client.request(ApiKey.FETCH, 12, {
        "replica_id": -1, "max_wait_ms": 0, "min_bytes": 0, "max_bytes": 10_000_000,
        "isolation_level": isolation_level, "session_id": 0, "session_epoch": -1, "rack_id": "",
        "forgotten_topics_data": [], "topics": [{"topic": topic, "partitions": [
            {"partition": 0, "fetch_offset": offset, "partition_max_bytes": 10_000_000}]}]})
    data = response.responses[0].partitions[0]
    assert data.error_code == Errors.NONE
    return data


def batch_offsets(data) -> list[tuple[int, int]]:
    return [(b.base_offset, b.last_offset) for b in iter_batches(bytes(data.records or b""))]


def aborted(data) -> list[tuple[int, int]] | None:
    if data.aborted_transactions is None:
        return None
    return [(t.producer_id, t.first_offset) for t in data.aborted_transactions]


def latest_offset(client: WireClient, topic: str, isolation_level: int) -> int:
    response = client.request(ApiKey.LIST_OFFSETS, 7,
                              {"replica_id": -1, "isolation_level": isolation_level, "topics": [
        {"name": topic,
         "partitions": [{"partition_index": 0, "current_leader_epoch": -1, "timestamp": -1}]}]})
    return response.topics[0].partitions[0].offset


def last_stable_offset_lag(broker, topic: str) -> float:
    """kafka.cluster:type=Partition,name=LastStableOffsetLag of partition 0, from /metrics."""
    text = urllib.request.urlopen(f"{broker.server.metrics_endpoint.url}/metrics", timeout=10).read().decode()
    prefix = "kafka_cluster_partition_laststableoffsetlag{"
    return next(float(line.split()[-1]) for line in text.splitlines()
                if line.startswith(prefix) and f'topic="{topic}"' in line and 'partition="0"' in line)


def test_read_committed_stops_at_the_open_transaction_and_learns_the_aborted_one(broker):
    topic = unique_topic("txn")
    create_topic(broker.bootstrap, topic, 1)
    client = WireClient(broker.port)
    assert produce(client, topic, build_batch([(None, b"plain")], timestamp=now_ms()), None).base_offset == 0
    assert produce(client, topic, txn_batch(A, 0, [b"a0", b"a1"])).base_offset == 1  # 1-2
    assert produce(client, topic, txn_batch(B, 0, [b"b0", b"b1"])).base_offset == 3  # 3-4
    assert produce(client, topic, txn_batch(A, 2, [b"a2"])).base_offset == 5

    committed = fetch(client, topic, READ_COMMITTED)
    assert committed.high_watermark == 6 and committed.last_stable_offset == 1
    assert batch_offsets(committed) == [(0, 0)], "nothing of an open transaction"
    assert aborted(committed) == []
    uncommitted = fetch(client, topic, READ_UNCOMMITTED)
    assert batch_offsets(uncommitted) == [(0, 0), (1, 2), (3, 4), (5, 5)]
    assert uncommitted.last_stable_offset == 1 and aborted(uncommitted) is None
    assert latest_offset(client, topic, READ_COMMITTED) == 1
    assert latest_offset(client, topic, READ_UNCOMMITTED) == 6
    assert last_stable_offset_lag(broker, topic) == 5, "HW 6 - LSO 1"

    assert write_markers(client, topic, (A, True)) == {(A, 0): Errors.NONE}  # COMMIT at 6
    committed = fetch(client, topic, READ_COMMITTED)
    assert committed.last_stable_offset == 3, "B's transaction, begun at 3, is still open"
    assert batch_offsets(committed) == [(0, 0), (1, 2)]

    assert write_markers(client, topic, (B, False)) == {(B, 0): Errors.NONE}  # ABORT at 7
    committed = fetch(client, topic, READ_COMMITTED)
    assert committed.high_watermark == committed.last_stable_offset == 8
    assert batch_offsets(committed) == [(0, 0), (1, 2), (3, 4), (5, 5), (6, 6), (7, 7)]
    assert aborted(committed) == [(B, 3)], "the consumer drops B's records from offset 3 to its marker"
    from_six = fetch(client, topic, READ_COMMITTED, offset=6)
    assert aborted(from_six) == [(B, 3)], "its marker is at 7: still in range"
    assert latest_offset(client, topic, READ_COMMITTED) == 8
    assert last_stable_offset_lag(broker, topic) == 0

    # librdkafka filters with aborted_transactions and hides the control records.
    assert read_all(broker.bootstrap, topic, "read_committed", 4) == [b"plain", b"a0", b"a1", b"a2"]
    assert read_all(broker.bootstrap, topic, "read_uncommitted", 6) == [
        b"plain", b"a0", b"a1", b"b0", b"b1", b"a2"]
    client.close()


def test_bad_markers_and_produces_get_kafkas_error_codes_and_leave_the_partition_unharmed(broker):
    topic = unique_topic("txn-bad")
    create_topic(broker.bootstrap, topic, 1)
    client = WireClient(broker.port)
    produce(client, topic, txn_batch(A, 0, [b"x"], epoch=2))
    assert write_markers(client, topic, (A, True), epoch=2, coordinator_epoch=5) == {(A, 0): Errors.NONE}
    produce(client, topic, txn_batch(A, 1, [b"y"], epoch=2))
    end = fetch(client, topic, READ_UNCOMMITTED).high_watermark
    # A deposed coordinator's marker, a zombie producer's marker and batch, a client's own marker.
    assert write_markers(client, topic, (A, False), epoch=2, coordinator_epoch=4) == {
        (A, 0): Errors.TRANSACTION_COORDINATOR_FENCED}
    assert write_markers(client, topic, (A, False), epoch=1, coordinator_epoch=5) == {
        (A, 0): Errors.INVALID_PRODUCER_EPOCH}
    assert produce(client, topic,
                   txn_batch(A, 0, [b"zombie"], epoch=1)).error_code == Errors.INVALID_PRODUCER_EPOCH
    assert produce(client, topic, end_txn_marker_batch(A, 2, True, 5, 0)).error_code == Errors.INVALID_RECORD
    assert write_markers(client, unique_topic("nowhere"),
                         (A, True)) == {(A, 0): Errors.UNKNOWN_TOPIC_OR_PARTITION}
    data = fetch(client, topic, READ_COMMITTED)
    assert data.high_watermark == end and data.last_stable_offset == end - 1, "nothing written, still open"
    assert write_markers(client, topic, (A, False), epoch=2, coordinator_epoch=5) == {(A, 0): Errors.NONE}
    assert fetch(client, topic, READ_COMMITTED).last_stable_offset == end + 1
    client.close()


def read_all(bootstrap: str, topic: str, isolation: str, expected: int) -> list[bytes]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": unique_topic("reader"),
                         "enable.auto.commit": False, "isolation.level": isolation})
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    values: list[bytes] = []

    def enough() -> bool:
        message = consumer.poll(0.2)
        if message is not None and message.error() is None:
            values.append(message.value())
        return len(values) >= expected

    try:
        wait_until(enough, timeout=30, message=f"{expected} records ({isolation})")
        extra = consumer.poll(0.5)  # nothing more arrives: aborted records and markers stay hidden
        assert extra is None or extra.error() is not None, extra.value()
    finally:
        consumer.close()
    return values
