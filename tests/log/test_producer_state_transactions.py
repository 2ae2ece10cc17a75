"""Transactions in the log (KIP-98's second half): a real UnifiedLog on a temporary directory, a mock clock.

A transactional batch opens its producer's transaction in the partition and holds the last stable
offset (LSO) at its first offset; a marker written by the coordinator (WriteTxnMarkers, origin
COORDINATOR) completes it; an ABORT goes into the segment's `.txnindex`, which a read_committed
fetch searches. The producer snapshot carries the open transactions, and the replay after kill -9
rebuilds both them and the index."""

from __future__ import annotations

import os

import pytest

from kafka.log.append_origin import AppendOrigin
from kafka.log.errors import (
    InvalidProducerEpochError,
    InvalidTxnStateError,
    TransactionCoordinatorFencedError,
)
from kafka.log.log_config import LogConfig
from kafka.log.producer_state_manager import ProducerStateManagerConfig
from kafka.log.transaction_index import AbortedTxn
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.control_records import end_txn_marker_batch
from kafka.protocol.record_batch import build_batch
from kafka.utils.time import MockTime

A, B = 1000, 2000  # two transactional producers


@pytest.fixture
def time():
    return MockTime()


def open_log(path, time, had_clean_shutdown=True, high_watermark=0, **config) -> UnifiedLog:
    return UnifiedLog(str(path / "t-0"), "t", 0, LogConfig(**config), time,
                      had_clean_shutdown=had_clean_shutdown,
                      high_watermark=high_watermark,
                      producer_state_manager_config=ProducerStateManagerConfig(60_000))


def txn_batch(time, pid: int, seq: int, count: int = 1, epoch: int = 0) -> bytes:
    return build_batch([(None, b"%d-%d" % (pid, seq + i)) for i in range(count)],
                       timestamp=time.milliseconds(),
                       producer_id=pid, producer_epoch=epoch, base_sequence=seq, is_transactional=True)


def end_txn(log: UnifiedLog, time, pid: int, commit: bool, epoch: int = 0, coordinator_epoch: int = 0) -> int:
    """Append a marker as WriteTxnMarkers does; returns its offset."""
    marker = end_txn_marker_batch(pid, epoch, commit, coordinator_epoch, time.milliseconds())
    return log.append_as_leader(marker, origin=AppendOrigin.COORDINATOR).first_offset


def replicate(log: UnifiedLog) -> None:
    log.update_high_watermark(log.log_end_offset)  # one replica: everything written is committed


def test_a_transaction_holds_the_lso_at_its_first_offset_until_its_marker_is_replicated(tmp_path, time):
    log = open_log(tmp_path, time)
    log.append_as_leader(build_batch([(None, b"plain")]))  # offset 0, no producer
    log.append_as_leader(txn_batch(time, A, 0, count=2))  # 1-2
    replicate(log)
    assert (log.first_unstable_offset, log.high_watermark, log.last_stable_offset) == (1, 3, 1)
    assert log.active_producers()[0].current_txn_first_offset == 1
    log.append_as_leader(txn_batch(time, A, 2))  # 3: the same transaction goes on
    assert log.first_unstable_offset == 1
    marker = end_txn(log, time, A, commit=True)
    assert marker == 4
    assert log.last_stable_offset == 1, "a leader elected now might not have the marker"
    replicate(log)
    assert (log.first_unstable_offset, log.last_stable_offset) == (None, 5)
    assert log.active_producers()[0].current_txn_first_offset is None
    assert log.collect_aborted_transactions(0, 5) == [], "a commit is not indexed"
    assert not os.path.exists(os.path.join(log.dir, f"{0:020d}.txnindex"))


def test_an_abort_is_indexed_with_the_lso_of_the_moment(tmp_path, time):
    log = open_log(tmp_path, time)
    log.append_as_leader(txn_batch(time, A, 0))  # 0
    log.append_as_leader(txn_batch(time, B, 0))  # 1
    log.append_as_leader(txn_batch(time, A, 1))  # 2
    assert end_txn(log, time, A, commit=False) == 3
    replicate(log)
    assert log.last_stable_offset == 1, "B's transaction is still open"
    # The entry's LSO is B's first offset: a search up to 1 is complete here, one beyond is not.
    assert log.collect_aborted_transactions(0, 4) == [AbortedTxn(A, 0, 3, 1)]
    assert end_txn(log, time, B, commit=True) == 4
    replicate(log)
    assert log.last_stable_offset == 5
    assert log.collect_aborted_transactions(4, 5) == [], "the abort ended before offset 4"
    with open(os.path.join(log.dir, f"{0:020d}.txnindex"), "rb") as file:
        assert len(file.read()) == 34


def test_marker_checks_epochs_and_coordinator_epochs(tmp_path, time):
    log = open_log(tmp_path, time)
    log.append_as_leader(txn_batch(time, A, 0, epoch=3))
    with pytest.raises(InvalidProducerEpochError):
        end_txn(log, time, A, commit=True, epoch=2)  # a zombie producer's abort
    end_txn(log, time, A, commit=True, epoch=3, coordinator_epoch=7)
    log.append_as_leader(txn_batch(time, A, 1, epoch=3))
    with pytest.raises(TransactionCoordinatorFencedError, match="5 \\(zombie\\), 7 \\(current\\)"):
        end_txn(log, time, A, commit=False, epoch=3, coordinator_epoch=5)
    assert log.log_end_offset == 3, "nothing of a refused marker is written"
    replicate(log)
    assert log.first_unstable_offset == 2
    end_txn(log, time, A, commit=False, epoch=3, coordinator_epoch=8)
    assert log.active_producers()[0].coordinator_epoch == 8


def test_a_marker_for_a_producer_with_nothing_open_is_written_and_completes_nothing(tmp_path, time):
    log = open_log(tmp_path, time)
    assert end_txn(log, time, A, commit=False) == 0
    replicate(log)
    assert log.log_end_offset == 1 and log.first_unstable_offset is None
    assert log.collect_aborted_transactions(0, 1) == []
    assert [(e.producer_id, e.coordinator_epoch) for e in log.active_producers()] == [(A, 0)]


def test_a_plain_write_inside_an_open_transaction_is_refused(tmp_path, time):
    log = open_log(tmp_path, time)
    log.append_as_leader(txn_batch(time, A, 0))
    plain = build_batch([(None, b"x")], producer_id=A, producer_epoch=0, base_sequence=1)
    with pytest.raises(InvalidTxnStateError):
        log.append_as_leader(plain)
    assert log.log_end_offset == 1


def test_a_clean_restart_brings_back_open_transactions_and_the_index(tmp_path, time):
    log = open_log(tmp_path, time)
    log.append_as_leader(txn_batch(time, A, 0))
    log.append_as_leader(txn_batch(time, B, 0))
    end_txn(log, time, A, commit=False)
    replicate(log)
    log.close()
    log = open_log(tmp_path, time, high_watermark=3)
    assert log.first_unstable_offset == 1 and log.last_stable_offset == 1
    assert log.collect_aborted_transactions(0, 3) == [AbortedTxn(A, 0, 2, 1)]
    end_txn(log, time, B, commit=True)
    replicate(log)
    assert log.last_stable_offset == 4


def test_after_kill_9_the_replay_rebuilds_open_transactions_and_the_aborted_index(tmp_path, time):
    one = len(txn_batch(time, A, 0))
    log = open_log(tmp_path, time, segment_bytes=one * 3)
    expected = []
    for round in range(4):
        base = log.log_end_offset
        log.append_as_leader(txn_batch(time, A, round))
        log.append_as_leader(txn_batch(time, B, round))
        marker = end_txn(log, time, A, commit=round % 2 == 1)
        if round % 2 == 0:
            expected.append(AbortedTxn(A, base, marker, base + 1))
        end_txn(log, time, B, commit=True)
    base = log.log_end_offset
    log.append_as_leader(txn_batch(time, A, 4))
    log.append_as_leader(txn_batch(time, B, 4))  # left open
    open_at = base + 1
    marker = end_txn(log, time, A, commit=False)
    expected.append(AbortedTxn(A, base, marker, open_at))
    replicate(log)
    assert log.collect_aborted_transactions(0, log.log_end_offset) == expected
    high_watermark = log.high_watermark  # as replication-offset-checkpoint would have it
    log.close_handlers()  # kill -9: no snapshot at the log end
    # The last abort's entry never reached the disk (the crash came between the marker and its entry).
    os.unlink(os.path.join(log.dir, f"{log.active_segment.base_offset:020d}.txnindex"))
    log = open_log(tmp_path, time, had_clean_shutdown=False, high_watermark=high_watermark)
    assert log.first_unstable_offset == open_at and log.last_stable_offset == open_at
    assert log.collect_aborted_transactions(0, log.log_end_offset) == expected
    assert log.num_segments > 2


def test_truncation_reopens_a_transaction_whose_marker_is_cut_off(tmp_path, time):
    log = open_log(tmp_path, time)
    log.append_as_leader(txn_batch(time, A, 0))
    marker = end_txn(log, time, A, commit=False)
    log.truncate_to(marker)  # a follower whose leader never had the marker
    assert log.first_unstable_offset == 0
    assert log.collect_aborted_transactions(0, 10) == []


def test_a_follower_indexes_its_leaders_aborts(tmp_path, time):
    leader = open_log(tmp_path / "leader", time)
    follower = open_log(tmp_path / "follower", time)
    leader.append_as_leader(txn_batch(time, A, 0))
    leader.append_as_leader(txn_batch(time, B, 0))
    end_txn(leader, time, A, commit=False)
    follower.append_as_follower(leader.read(0, 1 << 20).records)
    follower.update_high_watermark(3)
    assert follower.collect_aborted_transactions(0, 3) == [AbortedTxn(A, 0, 2, 1)]
    assert follower.first_unstable_offset == 1


def test_the_index_goes_with_its_segment(tmp_path, time):
    one = len(txn_batch(time, A, 0))
    log = open_log(tmp_path, time, segment_bytes=one * 3)
    log.append_as_leader(txn_batch(time, A, 0))
    end_txn(log, time, A, commit=False)  # the marker is in the first segment: so is the entry
    log.roll()
    log.append_as_leader(build_batch([(None, b"x")]))
    replicate(log)
    index = os.path.join(log.dir, f"{0:020d}.txnindex")
    assert os.path.exists(index)
    log.maybe_increment_log_start_offset(2)
    assert log.delete_old_segments() == 1
    assert not os.path.exists(index)
