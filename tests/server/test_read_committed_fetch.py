"""A read_committed fetch in a real ReplicaManager, with a mock clock and no reaper thread: it waits
in the fetch purgatory while the only data is a transaction still open (DelayedFetch counts bytes up to
the last stable offset, not the high watermark), and completes once the marker is replicated."""

from __future__ import annotations

import os

from kafka.log.append_origin import AppendOrigin
from kafka.log.file_records import FileRecords
from kafka.protocol.control_records import end_txn_marker_batch
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from kafka.server.fetch_partition_data import FetchPartitionInfo
from kafka.server.log_read_info import next_offset_after
from kafka.server.replica_manager import FetchParams

# The fixtures (replica_manager, time) come with the helpers: a leader with one follower in its ISR.
from tests.server.test_delayed_operations import TP, Callback, follower_fetches, replica_manager, time  # noqa: F401, F811

PID = 42


def fetch(manager, callback, isolation_level: int) -> None:
    params = FetchParams(replica_id=-1, max_wait_ms=500, min_bytes=1, max_bytes=1 << 20,
                         isolation_level=isolation_level)
    manager.fetch_messages(params, [(TP, FetchPartitionInfo(0, 1 << 20))], callback)


def test_a_read_committed_fetch_waits_for_the_marker_not_for_the_high_watermark(replica_manager):  # noqa: F811
    committed, uncommitted = Callback(), Callback()
    fetch(replica_manager, committed, isolation_level=1)
    fetch(replica_manager, uncommitted, isolation_level=0)
    records = build_batch([(None, b"a"), (None, b"b")], producer_id=PID, producer_epoch=0, base_sequence=0,
                          is_transactional=True)
    replica_manager.append_records(1000, 1, False, {TP: records}, Callback())
    follower_fetches(replica_manager, 2)  # the HW moves to 2
    assert len(uncommitted.calls) == 1, "read_uncommitted sees the open transaction"
    assert committed.calls == [], "read_committed waits: the LSO is still 0"

    marker_answer = Callback()
    replica_manager.append_records(1000, -1, True, {TP: end_txn_marker_batch(PID, 0, True, 0, 0)},
                                   marker_answer,
                                   origin=AppendOrigin.COORDINATOR)
    assert committed.calls == [] and marker_answer.calls == [], "the marker is not replicated yet"
    follower_fetches(replica_manager, 3)
    assert marker_answer.calls[0][TP].error == Errors.NONE
    [(_, data)] = committed.calls[0]
    assert (data.high_watermark, data.last_stable_offset, data.aborted_transactions) == (3, 3, [])
    assert len(data.records) > 0


def test_a_client_cannot_write_a_marker(replica_manager):  # noqa: F811
    answer = Callback()
    replica_manager.append_records(1000, 1, False, {TP: end_txn_marker_batch(PID, 0, True, 0, 0)}, answer)
    assert answer.calls[0][TP].error == Errors.INVALID_RECORD


def test_the_aborted_transactions_sent_are_bounded_by_what_was_read(tmp_path):
    """Kafka names only the aborted transactions overlapping the batches a fetch returns: the bound is
    the offset after the last batch read, from bytes or from a zero-copy slice of a segment file."""
    read = build_batch([(None, b"a"), (None, b"b")], base_offset=5) + build_batch([(None, b"c")],
                                                                                  base_offset=7)
    assert next_offset_after(read) == 8
    assert next_offset_after(b"") is None
    path = tmp_path / "segment"
    path.write_bytes(b"\0" * 10 + read)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert next_offset_after(FileRecords(fd, 10, len(read), owned=False)) == 8
    finally:
        os.close(fd)
