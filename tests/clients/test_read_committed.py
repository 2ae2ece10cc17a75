"""The consumer's isolation.level (KIP-98) on hand-made fetch answers: read_committed drops the
batches of aborted transactions named in the FetchResponse, both levels hide the markers, and the
position moves past everything skipped (Java's CompletedFetch)."""

from __future__ import annotations

from types import SimpleNamespace

from kafka.clients.consumer.fetcher import READ_COMMITTED, CompletedFetch
from kafka.protocol.control_records import end_txn_marker_batch
from kafka.protocol.record_batch import (
    TRANSACTIONAL_MASK,
    DefaultRecord,
    build_batch,
    encode_records,
    seal_batch,
)
from kafka.utils.topic_partition import TopicPartition

TP = TopicPartition("t", 0)
ABORTED_PID, COMMITTED_PID = 5, 6


def txn_batch(base_offset: int, producer_id: int, values: list[bytes]) -> bytes:
    records = [DefaultRecord(base_offset + i, 0, None, v) for i, v in enumerate(values)]
    return seal_batch(base_offset=base_offset, attributes=TRANSACTIONAL_MASK,
                      last_offset_delta=len(values) - 1,
                      base_timestamp=0, max_timestamp=0, producer_id=producer_id, producer_epoch=0,
                      base_sequence=0, records_count=len(values),
                      payload=encode_records(records, base_offset, 0))


def marker(base_offset: int, producer_id: int, committed: bool) -> bytes:
    return end_txn_marker_batch(producer_id, 0, committed, 0, 0, base_offset=base_offset)


# offsets: 0-1 aborted txn, 2 committed txn, 3 ABORT marker, 4 COMMIT marker, 5 plain, 6 aborted again, 7
# ABORT
LOG = (txn_batch(0, ABORTED_PID, [b"a0", b"a1"]) + txn_batch(2, COMMITTED_PID, [b"c2"])
       + marker(3, ABORTED_PID, False) + marker(4, COMMITTED_PID, True) + build_batch([(None, b"p5")],
                                                                                      base_offset=5)
       + txn_batch(6, ABORTED_PID, [b"a6"]) + marker(7, ABORTED_PID, False))


def fetch(isolation_level: int, aborted=()):
    data = SimpleNamespace(error_code=0, high_watermark=8, records=LOG,
                           aborted_transactions=[SimpleNamespace(producer_id=p, first_offset=o)
                                                 for p, o in aborted])
    data.get = lambda name, default=None: getattr(data, name, default)
    completed = CompletedFetch(TP, 0, data, check_crcs=True, isolation_level=isolation_level)
    records = completed.take(100)
    return [r.value for r in records], completed.next_fetch_offset


def test_read_committed_drops_aborted_transactions_and_markers():
    values, position = fetch(READ_COMMITTED, aborted=[(ABORTED_PID, 0), (ABORTED_PID, 6)])
    assert values == [b"c2", b"p5"]
    assert position == 8  # past the last marker


def test_read_uncommitted_sees_every_record_but_no_marker():
    values, position = fetch(0, aborted=[(ABORTED_PID, 0)])
    assert values == [b"a0", b"a1", b"c2", b"p5", b"a6"]
    assert position == 8


def test_an_aborted_transaction_counts_only_from_its_first_offset():
    """Only the second transaction of the producer is listed: its first one was committed."""
    values, _ = fetch(READ_COMMITTED, aborted=[(ABORTED_PID, 6)])
    assert values == [b"a0", b"a1", b"c2", b"p5"]
