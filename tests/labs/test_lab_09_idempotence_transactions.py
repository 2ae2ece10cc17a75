"""Lab 09, idempotence and transactions (docs/labs/09-idempotence-transactions.md):
`LogSegment.update_txn_index` in kafka/log/log_segment.py, the entry an ABORT marker leaves in its
segment's `.txnindex`, on one segment, in a log replayed after kill -9, then on a real broker whose
read_committed fetch names the aborted transaction.

Seed 004: "Duplicate data can be written if replication is done but the Produce Response does not
reach the producer (which retries). This is why using idempotency operations is important." The
idempotent producer makes a retry harmless; a transaction (KIP-98) goes further, all or nothing,
and a read_committed consumer must skip what was aborted. The broker never filters records: each
read_committed FetchResponse lists the aborted transactions among its records, which it finds in
the `.txnindex`, one entry per ABORT marker.
"""

from __future__ import annotations

import os

import pytest
from confluent_kafka import Producer

from kafka.log.completed_txn import CompletedTxn
from kafka.log.log_config import LogConfig
from kafka.log.log_segment import LogSegment
from kafka.log.producer_state_manager import ProducerStateManagerConfig
from kafka.log.transaction_index import AbortedTxn, read_entries
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from kafka.tools import transactions_command
from kafka.utils.time import MockTime
from tests.helpers import wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.integration.test_transactions import last_stable_offset
from tests.log.test_producer_state_transactions import end_txn, open_log, replicate, txn_batch
from tests.wire import WireClient

PID = 4000


@pytest.fixture
def segment(tmp_path):
    """An empty segment based at offset 0, with no .txnindex file yet."""
    segment = LogSegment(str(tmp_path), 0, LogConfig(), MockTime())
    yield segment
    segment.close()


def index_file(directory) -> str:
    return os.path.join(str(directory), f"{0:020d}.txnindex")


def test_a_commit_adds_no_entry(segment, tmp_path):
    """a committed transaction leaves no entry in the .txnindex: read_committed consumers keep its records"""
    segment.update_txn_index(CompletedTxn(PID, first_offset=0, last_offset=3, is_aborted=False), 4)
    assert segment.txn_index.all_aborted_txns() == [], "a COMMIT marker must not be indexed"
    assert not os.path.exists(index_file(tmp_path)), (
        "no abort, no .txnindex file (Kafka creates it on the first entry)")


def test_an_abort_adds_one_entry_with_the_lso(segment, tmp_path):
    """an aborted transaction becomes one entry:
    producer id, first offset, marker offset and the LSO of the moment"""
    segment.update_txn_index(CompletedTxn(PID, first_offset=3, last_offset=4, is_aborted=True), 5)
    assert segment.txn_index.all_aborted_txns() == [AbortedTxn(PID, 3, 4, 5)], \
        "AbortedTxn(producer_id, first_offset, last_offset = the marker's offset, last_stable_offset)"
    segment.txn_index.flush()
    with open(index_file(tmp_path), "rb") as file:
        entries = read_entries(file.read())
        assert entries == [AbortedTxn(PID, 3, 4, 5)], "the entry must reach the file (txn_index.append)"


def test_a_replay_does_not_index_an_abort_twice(segment):
    """a replay over a marker already indexed (a restart after kill -9) adds nothing;
    a later abort is still added"""
    first = CompletedTxn(PID, first_offset=3, last_offset=4, is_aborted=True)
    segment.update_txn_index(first, 5)
    segment.update_txn_index(first, 5)  # the loader replays the same marker
    assert segment.txn_index.all_aborted_txns() == [AbortedTxn(PID, 3, 4, 5)], \
        "the index already reaches offset 4 (txn_index.last_offset): skip the entry"
    segment.update_txn_index(CompletedTxn(PID + 1, first_offset=6, last_offset=9, is_aborted=True), 10)
    assert [entry.last_offset for entry in segment.txn_index.all_aborted_txns()] == [4, 9]


def test_a_log_replayed_after_kill_9_knows_each_abort_once(tmp_path):
    """after kill -9 the log replays its markers over segments it kept, and knows each abort once"""
    clock = MockTime()
    log = open_log(tmp_path, clock)
    log.append_as_leader(txn_batch(clock, PID, 0, count=2))  # offsets 0-1, then aborted
    abort = end_txn(log, clock, PID, commit=False)  # 2
    log.append_as_leader(txn_batch(clock, PID, 2))  # 3, then committed
    end_txn(log, clock, PID, commit=True)  # 4
    replicate(log)
    assert log.collect_aborted_transactions(0, 5) == [AbortedTxn(PID, 0, abort, 3)]
    log.roll()  # a new segment from offset 5: segment 0, with its .txnindex, is complete
    log.flush()  # on disk: recovery-point-offset-checkpoint would say 5
    log.close_handlers()  # kill -9
    for snapshot in (tmp_path / "t-0").glob("*.snapshot"):
        snapshot.unlink()  # and no producer snapshot survived it (a corrupt one is deleted the same way)
    # Segment 0 is below the recovery point: not recovered, its .txnindex kept. With no snapshot the
    # loader replays every batch from offset 0, the ABORT marker at offset 2 included.
    log = UnifiedLog(str(tmp_path / "t-0"), "t", 0, LogConfig(), clock, recovery_point=5,
                     had_clean_shutdown=False,
                     high_watermark=5, producer_state_manager_config=ProducerStateManagerConfig(60_000))
    assert log.collect_aborted_transactions(0, 5) == [AbortedTxn(PID, 0, abort, 3)], \
        "the replay must neither lose the abort nor index it a second time"
    assert log.last_stable_offset == 5
    log.close()


def test_a_broker_names_the_aborted_transaction_to_read_committed_fetches(broker):
    """a real broker: after a commit and an abort, a read_committed fetch names the aborted transaction"""
    create_topic(broker.bootstrap, "lab09", 1)
    producer = Producer({"bootstrap.servers": broker.bootstrap, "transactional.id": "lab09-check",
                         "linger.ms": 1})
    try:
        producer.init_transactions(30)
        for outcome, values in (("commit", [b"pay-1", b"pay-2"]), ("abort", [b"oops"])):
            producer.begin_transaction()
            for value in values:
                producer.produce("lab09", value=value)
            producer.flush(10)
            getattr(producer, f"{outcome}_transaction")(30)
        # pay-1, pay-2, COMMIT, oops, ABORT: the LSO reaches 5 once both markers are written (a few ms)
        wait_until(lambda: last_stable_offset(broker.port, "lab09") == 5, timeout=5,
                   message="both markers to be written (the last stable offset to reach 5)")
    finally:
        producer.close()  # before the broker stops, or librdkafka complains of refused connections
    client = WireClient(broker.port)
    response = client.request(ApiKey.FETCH, 12, {
        "replica_id": -1, "max_wait_ms": 0, "min_bytes": 1, "max_bytes": 1 << 20, "isolation_level": 1,
        "session_id": 0, "session_epoch": -1, "topics": [{"topic": "lab09", "partitions": [
            {"partition": 0, "fetch_offset": 0, "partition_max_bytes": 1 << 20}]}]})
    client.close()
    partition = response.responses[0].partitions[0]
    answered = Errors.for_code(partition.error_code).name
    assert partition.error_code == Errors.NONE, f"the fetch was answered {answered}"
    aborted = [(txn.producer_id, txn.first_offset) for txn in partition.aborted_transactions or []]
    assert len(aborted) == 1 and aborted[0][1] == 3, \
        f"the fetch should name one aborted transaction from offset 3 (oops), named {aborted}"
    entries = read_entries((broker.data_dir / "lab09-0" / f"{0:020d}.txnindex").read_bytes())
    assert [(e.first_offset, e.last_offset, e.last_stable_offset) for e in entries] == [(3, 4, 5)]


def test_step_7_each_commit_moves_the_epoch_kafka_transactions_describe_shows_it(broker, capsys):
    """step 7: a transaction.version 2 producer by hand (Produce v12, EndTxn v5): each commit answers the next
    epoch, `kafka-transactions describe` shows it, and a zombie at the epoch that committed is fenced"""
    create_topic(broker.bootstrap, "lab09-tv2", 1)
    client = WireClient(broker.port)
    try:
        def initialized():  # the first time, __transaction_state is created and loaded meanwhile
            client.request(ApiKey.FIND_COORDINATOR, 4, {"key_type": 1, "coordinator_keys": ["lab09-tv2"]})
            init = client.request(ApiKey.INIT_PRODUCER_ID, 4, {"transactional_id": "lab09-tv2",
                                                                "transaction_timeout_ms": 60000,
                                                                "producer_id": -1, "producer_epoch": -1})
            return init if init.error_code == Errors.NONE else None
        init = wait_until(initialized, timeout=30, message="InitProducerId to succeed", interval=0.1)
        pid, epoch = init.producer_id, init.producer_epoch

        def produce(epoch: int, sequence: int) -> int:
            batch = build_batch([(None, b"tv2")], producer_id=pid, producer_epoch=epoch,
                                base_sequence=sequence, is_transactional=True)
            response = client.request(ApiKey.PRODUCE, 12, {
                "transactional_id": "lab09-tv2", "acks": -1, "timeout_ms": 5000, "topic_data": [
                    {"name": "lab09-tv2", "partition_data": [{"index": 0, "records": batch}]}]})
            return response.responses[0].partition_responses[0].error_code

        answered = []
        for _ in range(3):
            assert produce(epoch, 0) == Errors.NONE, "Produce v12 adds the partition: no AddPartitionsToTxn"
            end = client.request(ApiKey.END_TXN, 5, {"transactional_id": "lab09-tv2", "producer_id": pid,
                                                     "producer_epoch": epoch, "committed": True})
            assert end.error_code == Errors.NONE
            answered.append(end.producer_epoch)
            old, epoch = epoch, end.producer_epoch
            wait_until(lambda: client.request(ApiKey.DESCRIBE_TRANSACTIONS, 0, {"transactional_ids": [
                "lab09-tv2"]}).transaction_states[0].transaction_state == "CompleteCommit",
                timeout=10, message="the markers to be written")
        assert answered == [init.producer_epoch + 1, init.producer_epoch + 2, init.producer_epoch + 3]
        assert produce(old, 1) == Errors.INVALID_PRODUCER_EPOCH, "the zombie after the commit"
    finally:
        client.close()
    capsys.readouterr()
    assert transactions_command.main(["--bootstrap-server", broker.bootstrap, "describe",
                                      "--transactional-id", "lab09-tv2"]) == 0
    header, row = capsys.readouterr().out.splitlines()[:2]
    described = dict(zip(header.split("\t"), (cell.strip() for cell in row.split("\t")), strict=False))
    assert (described["ProducerEpoch"], described["TransactionState"]) == (str(epoch), "CompleteCommit")
