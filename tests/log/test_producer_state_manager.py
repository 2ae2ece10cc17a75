"""Idempotent producers in the log (KIP-98): a real UnifiedLog on a temporary directory, a mock clock.

Seed 004: a producer that never heard the answer to its Produce retries; the leader must answer the
retry with the first append's offsets and write nothing twice, even after kill -9. These tests walk
Kafka's rules (ProducerAppendInfo.checkProducerEpoch / checkSequence), the last five batches, expiry,
the `.snapshot` files and the rebuild after a clean or unclean restart and after a truncation."""

from __future__ import annotations

import contextlib
import os
import struct

import crc32c
import pytest

from kafka.log import log_loader
from kafka.log.errors import InvalidProducerEpochError, OutOfOrderSequenceError
from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.log.producer_state_entry import INT32_MAX, ProducerStateEntry
from kafka.log.producer_state_manager import (
    ProducerStateManagerConfig,
    list_snapshot_files,
    producer_snapshot_file,
    read_snapshot,
    write_snapshot,
)
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.record_batch import build_batch
from kafka.utils.kafka_scheduler import KafkaScheduler
from kafka.utils.time import MockTime
from tests.helpers import wait_until

PID = 1000
EXPIRATION_MS = 60_000


@pytest.fixture
def time():
    return MockTime()


def open_log(tmp_path, time, had_clean_shutdown=True, **config) -> UnifiedLog:
    return UnifiedLog(str(tmp_path / "t-0"), "t", 0, LogConfig(**config), time,
                      had_clean_shutdown=had_clean_shutdown,
                      producer_state_manager_config=ProducerStateManagerConfig(EXPIRATION_MS))


def batch(time, seq: int, count: int = 1, epoch: int = 0, pid: int = PID) -> bytes:
    """A producer's batch of `count` records starting at sequence `seq`, stamped with the clock's now."""
    return build_batch([(None, b"v%d" % i) for i in range(count)], timestamp=time.milliseconds(),
                       producer_id=pid, producer_epoch=epoch, base_sequence=seq)


def offsets(info) -> tuple[int, int]:
    return info.first_offset, info.last_offset


def snapshot_offsets(log: UnifiedLog) -> list[int]:
    return sorted(list_snapshot_files(log.dir))


# ---------------------------------------------------------------------------------- the rules

def test_a_batch_without_a_producer_id_is_not_tracked(tmp_path, time):
    log = open_log(tmp_path, time)
    log.append_as_leader(build_batch([(None, b"v")]))
    log.append_as_leader(build_batch([(None, b"v")]))
    assert log.producer_id_count == 0 and log.active_producers() == []


def test_sequences_follow_each_other_and_a_gap_refuses_the_append(tmp_path, time):
    log = open_log(tmp_path, time)
    assert offsets(log.append_as_leader(batch(time, 7, count=3))) == (0,
                                                                      2), "a new producer may start anywhere"
    assert offsets(log.append_as_leader(batch(time, 10))) == (3, 3)
    with pytest.raises(OutOfOrderSequenceError, match="12 \\(incoming seq. number\\), 10"):
        log.append_as_leader(batch(time, 12))  # sequence 11 was lost
    with pytest.raises(OutOfOrderSequenceError):
        log.append_as_leader(batch(time, 9))  # behind, and not one of the remembered batches
    assert log.log_end_offset == 4, "nothing of a refused append is written"
    (entry,) = log.active_producers()
    assert (entry.producer_id, entry.producer_epoch, entry.last_seq, entry.last_data_offset) == (PID, 0, 10,
                                                                                                 3)


def test_an_older_epoch_is_fenced_and_a_new_one_starts_at_zero(tmp_path, time):
    log = open_log(tmp_path, time)
    log.append_as_leader(batch(time, 0, epoch=3))
    with pytest.raises(InvalidProducerEpochError, match="is 2, which is smaller than the last seen epoch 3"):
        log.append_as_leader(batch(time, 1, epoch=2))
    with pytest.raises(OutOfOrderSequenceError, match="new epoch"):
        log.append_as_leader(batch(time, 1, epoch=4))
    assert offsets(log.append_as_leader(batch(time, 0, epoch=4))) == (1, 1)
    assert [(e.producer_epoch, e.last_seq) for e in log.active_producers()] == [(4, 0)]


def test_the_sequence_wraps_from_int32_max_to_zero(tmp_path, time):
    log = open_log(tmp_path, time)
    wrapping = batch(time, INT32_MAX - 1, count=3)  # sequences MAX-1, MAX, 0
    log.append_as_leader(wrapping)
    assert log.active_producers()[0].last_seq == 0
    assert log.append_as_leader(wrapping).is_duplicate, "its first sequence is found across the wrap"
    with pytest.raises(OutOfOrderSequenceError):
        log.append_as_leader(batch(time, 0))
    log.append_as_leader(batch(time, 1))
    log.append_as_leader(batch(time, INT32_MAX, pid=2))
    log.append_as_leader(batch(time, 0, pid=2))  # after MAX comes 0
    assert {e.producer_id: e.last_seq for e in log.active_producers()} == {PID: 1, 2: 0}


def test_one_request_with_two_batches_of_a_producer_is_checked_batch_by_batch(tmp_path, time):
    log = open_log(tmp_path, time)
    log.append_as_leader(batch(time, 0, count=2) + batch(time, 2, count=2))
    assert log.active_producers()[0].last_seq == 3
    with pytest.raises(OutOfOrderSequenceError):
        log.append_as_leader(batch(time, 4) + batch(time, 6))  # the second batch has a gap: all or nothing
    assert log.log_end_offset == 4 and log.active_producers()[0].last_seq == 3
    log.append_as_leader(batch(time, 4))


# ---------------------------------------------------------------------------------- retries

def test_each_of_the_last_five_batches_is_answered_with_its_original_offsets(tmp_path, time):
    log = open_log(tmp_path, time)
    log.append_as_leader(build_batch([(None, b"other")] * 2))  # someone else's records in between
    sizes = [1, 3, 2, 1, 4, 2]
    sent, seq = [], 0
    for size in sizes:
        records = batch(time, seq, count=size)
        sent.append((records, offsets(log.append_as_leader(records))))
        seq += size
    end = log.log_end_offset
    for records, first_answer in sent[1:]:
        retry = log.append_as_leader(records)
        assert retry.is_duplicate and offsets(retry) == first_answer
        assert (retry.num_messages, retry.valid_bytes) == (0, 0)
    assert log.log_end_offset == end, "no retry was written"
    # The sixth-oldest is forgotten, and its sequence is behind: the producer is told it is out of order.
    with pytest.raises(OutOfOrderSequenceError):
        log.append_as_leader(sent[0][0])
    # A retry with another epoch is not the same batch.
    with pytest.raises(InvalidProducerEpochError):
        log.append_as_leader(build_batch([(None, b"v")], producer_id=PID, producer_epoch=-1, base_sequence=0))


def test_a_retry_gets_the_original_log_append_time(tmp_path, time):
    log = open_log(tmp_path, time, message_timestamp_type="LogAppendTime")
    records = batch(time, 0, count=2)
    first = log.append_as_leader(records)
    time.advance(5_000)
    retry = log.append_as_leader(records)
    assert retry.is_duplicate
    assert retry.log_append_time == first.log_append_time == time.milliseconds() - 5_000
    create_time = open_log(tmp_path / "ct", time)
    create_time.append_as_leader(records)
    retry = create_time.append_as_leader(records)
    assert retry.log_append_time == retry.max_timestamp, (
        "Kafka answers the batch's timestamp even under CreateTime")


# ---------------------------------------------------------------------------------- expiry

def test_a_silent_producer_expires_and_may_then_start_anywhere(tmp_path, time):
    log = open_log(tmp_path, time)
    log.append_as_leader(batch(time, 0, pid=1))
    time.advance(EXPIRATION_MS - 1)
    log.append_as_leader(batch(time, 0, pid=2))
    log.remove_expired_producers(time.milliseconds())
    assert sorted(e.producer_id for e in log.active_producers()) == [1, 2]
    time.advance(1)
    log.remove_expired_producers(time.milliseconds())
    assert [e.producer_id for e in log.active_producers()] == [2] and log.producer_id_count == 1
    log.append_as_leader(batch(time, 42, pid=1))  # KIP-360: no state, so any sequence is accepted


def test_the_log_manager_expires_producers_every_check_interval(tmp_path, time):
    manager = LogManager([str(tmp_path)], LogConfig(), time,
                         producer_state_manager_config=ProducerStateManagerConfig(
        EXPIRATION_MS), producer_id_expiration_check_interval_ms=1_000)
    manager.startup()
    scheduler = KafkaScheduler(time, tick_ms=5)
    scheduler.startup()
    try:
        manager.startup_tasks(scheduler, 10**9, 10**9, 10**9, 10**9)
        log = manager.get_or_create_log("t", 0)
        log.append_as_leader(batch(time, 0))
        time.advance(EXPIRATION_MS)
        wait_until(lambda: log.producer_id_count == 0, message="the expiration check ran")
    finally:
        scheduler.shutdown()
        manager.shutdown()


# ---------------------------------------------------------------------------------- snapshots

def test_a_snapshot_is_kafkas_format_and_reads_back(tmp_path):
    entry = ProducerStateEntry(PID, 3)
    entry.add_batch(3, 14, 120, 4, 1_700_000_000_000)
    bumped = ProducerStateEntry(7, 2, coordinator_epoch=5, last_timestamp=99)  # no batch left
    path = producer_snapshot_file(str(tmp_path), 125)
    write_snapshot(path, [entry, bumped])
    assert os.path.basename(path) == "00000000000000000125.snapshot"
    data = open(path, "rb").read()
    version, crc, count = struct.unpack_from(">hIi", data)
    assert (version, count, len(data)) == (1, 2, 10 + 2 * 46)
    assert crc == crc32c.crc32c(data[6:])
    assert struct.unpack_from(">qhiqiqiq", data, 10) == (PID, 3, 14, 120, 4, 1_700_000_000_000, -1, -1)
    first, second = read_snapshot(path)
    assert (first.producer_id, first.producer_epoch, first.last_seq, first.first_seq, first.last_data_offset,
            first.first_data_offset, first.last_timestamp, first.coordinator_epoch,
            first.current_txn_first_offset) == (PID, 3, 14, 10, 120, 116, 1_700_000_000_000, -1, None)
    assert (second.producer_id, second.producer_epoch, second.is_empty, second.coordinator_epoch,
            second.last_timestamp) == (7, 2, True, 5, 99)


def test_snapshots_are_taken_at_each_roll_and_at_close(tmp_path, time):
    one = len(batch(time, 0))
    log = open_log(tmp_path, time, segment_bytes=one * 2)
    for seq in range(5):
        log.append_as_leader(batch(time, seq))
    assert [s.base_offset for s in log.segments] == [0, 2, 4]
    assert snapshot_offsets(log) == [2, 4]
    assert [e.last_seq for e in read_snapshot(producer_snapshot_file(log.dir, 4))] == [3]
    log.close()
    assert snapshot_offsets(log) == [2, 4, 5]
    assert not [n for n in os.listdir(log.dir) if n.endswith(".tmp")]



@contextlib.contextmanager
def counting_replays():
    """The offsets replays of the log start from while the block runs (LogLoader's
    load_producers_from_batches): observed directly, not through log lines, whose capture depends
    on how an earlier test configured structlog."""
    starts: list[int] = []
    real = log_loader.load_producers_from_batches

    def spy(producer_state_manager, batches, end_offset, *segment):
        starts.append(producer_state_manager.map_end_offset)
        return real(producer_state_manager, batches, end_offset, *segment)

    log_loader.load_producers_from_batches = spy
    try:
        yield starts
    finally:
        log_loader.load_producers_from_batches = real

def test_a_clean_restart_loads_the_snapshot_at_the_log_end(tmp_path, time):
    log = open_log(tmp_path, time)
    records = batch(time, 0, count=3)
    log.append_as_leader(build_batch([(None, b"x")]))
    first = log.append_as_leader(records)
    log.close()
    with counting_replays() as replayed:
        log = open_log(tmp_path, time)
    assert replayed == [], "nothing replayed"
    assert log.producer_state_manager.map_end_offset == 4
    retry = log.append_as_leader(records)
    assert retry.is_duplicate and offsets(retry) == offsets(first)


def test_after_kill_9_the_log_is_replayed_and_a_retry_is_still_caught(tmp_path, time):
    one = len(batch(time, 0, count=2))
    log = open_log(tmp_path, time, segment_bytes=one * 3)
    answers = [log.append_as_leader(batch(time, seq, count=2)) for seq in range(0, 14, 2)]
    last = batch(time, 14, count=2)
    answers.append(log.append_as_leader(last))
    assert snapshot_offsets(log) == [6, 12]
    log.close_handlers()  # kill -9: no snapshot at the log end, no clean-shutdown marker
    with counting_replays() as replayed:
        log = open_log(tmp_path, time, had_clean_shutdown=False)
    assert replayed == [12], "the batches after the newest snapshot (at 12) are replayed"
    retry = log.append_as_leader(last)
    assert retry.is_duplicate and offsets(retry) == offsets(answers[-1]) == (14, 15)
    with pytest.raises(OutOfOrderSequenceError):
        log.append_as_leader(batch(time, 18))
    assert offsets(log.append_as_leader(batch(time, 16))) == (16, 16)


def test_a_corrupt_snapshot_is_deleted_and_the_state_rebuilt_from_an_older_one(tmp_path, time):
    one = len(batch(time, 0))
    log = open_log(tmp_path, time, segment_bytes=one * 2)
    for seq in range(5):
        log.append_as_leader(batch(time, seq))
    log.close()
    assert snapshot_offsets(log) == [2, 4, 5]
    path = producer_snapshot_file(log.dir, 5)
    data = bytearray(open(path, "rb").read())
    data[-1] ^= 0xFF
    open(path, "wb").write(data)
    with counting_replays() as replayed:
        log = open_log(tmp_path, time)
    assert replayed == [4], "the corrupt snapshot at 5 was passed over for the one at 4"
    assert log.active_producers()[0].last_seq == 4, "rebuilt from the snapshot at 4 and the batch after it"
    assert [e.last_seq for e in read_snapshot(path)] == [4], "and written again, whole"
    with pytest.raises(OutOfOrderSequenceError):
        log.append_as_leader(batch(time, 6))


def test_without_any_snapshot_the_state_is_rebuilt_from_the_log_start(tmp_path, time):
    log = open_log(tmp_path, time, segment_bytes=len(batch(time, 0)) * 2)
    for seq in range(5):
        log.append_as_leader(batch(time, seq))
    log.close()
    for path in list_snapshot_files(log.dir).values():
        os.unlink(path)
    log = open_log(tmp_path, time, had_clean_shutdown=False)
    assert log.active_producers()[0].last_seq == 4
    assert snapshot_offsets(log) == [2, 4, 5], "the replay snapshots the last two segments and the end"


# ---------------------------------------------------------------------------------- log changes

def test_truncation_reloads_the_state_from_before_the_cut(tmp_path, time):
    one = len(batch(time, 0))
    log = open_log(tmp_path, time, segment_bytes=one * 2)
    sent = [batch(time, seq) for seq in range(6)]
    for records in sent:
        log.append_as_leader(records)
    log.truncate_to(3)  # a follower dropping a tail its new leader does not have
    assert log.active_producers()[0].last_seq == 2
    assert snapshot_offsets(log) == [2, 3], "the snapshot at 4 described records that are gone"
    with pytest.raises(OutOfOrderSequenceError):
        log.append_as_leader(sent[4])  # no longer a duplicate: the batch before it is missing
    assert offsets(log.append_as_leader(sent[3])) == (3, 3), "written again, not answered as a retry"


def test_a_follower_records_its_leaders_producers_without_checking_them(tmp_path, time):
    leader = open_log(tmp_path / "leader", time)
    follower = open_log(tmp_path / "follower", time)
    leader.append_as_leader(batch(time, 0, epoch=1) + batch(time, 1, epoch=1))
    follower.append_as_follower(leader.read(0, 1 << 20).records)
    assert [(e.producer_epoch, e.last_seq) for e in follower.active_producers()] == [(1, 1)]
    # Even what a leader would refuse: the follower keeps what its leader has.
    odd = build_batch([(None, b"v")], base_offset=2, producer_id=PID, producer_epoch=0, base_sequence=9)
    follower.append_as_follower(odd)
    assert follower.log_end_offset == 3
    follower.truncate_fully_and_start_at(10)
    assert follower.active_producers() == [] and snapshot_offsets(follower) == []


def test_producers_outlive_their_records_but_old_snapshots_go_with_their_segments(tmp_path, time):
    one = len(batch(time, 0))
    log = open_log(tmp_path, time, segment_bytes=one * 2)
    for seq in range(6):
        log.append_as_leader(batch(time, seq, pid=1 if seq < 4 else 2))
    log.update_high_watermark(log.log_end_offset)
    log.maybe_increment_log_start_offset(5)  # DeleteRecords
    assert log.delete_old_segments() == 2
    assert snapshot_offsets(log) == [4]
    # KIP-360: producer 1's records are all gone, its state stays until producer.id.expiration.ms.
    assert sorted(e.producer_id for e in log.active_producers()) == [1, 2]
    with pytest.raises(OutOfOrderSequenceError):
        log.append_as_leader(batch(time, 9, pid=1))


def test_older_snapshots_go_once_the_recovery_point_is_checkpointed(tmp_path, time):
    one = len(batch(time, 0))
    log = open_log(tmp_path, time, segment_bytes=one)
    for seq in range(6):
        log.append_as_leader(batch(time, seq))
    assert snapshot_offsets(log) == [1, 2, 3, 4, 5]
    assert log.delete_snapshots_after_recovery_point_checkpoint() == 0, (
        "nothing flushed: recovery needs them all")
    log.flush()
    assert log.delete_snapshots_after_recovery_point_checkpoint() == 4
    assert snapshot_offsets(log) == [4, 5], "the last two segments' snapshots stay"


def test_the_loader_removes_stray_snapshots_and_unfinished_ones(tmp_path, time):
    log = open_log(tmp_path, time, segment_bytes=len(batch(time, 0)) * 2)
    for seq in range(5):
        log.append_as_leader(batch(time, seq))
    log.close()
    write_snapshot(producer_snapshot_file(log.dir, 3), [])  # matches no segment and is not the newest
    open(producer_snapshot_file(log.dir, 9) + ".tmp", "wb").close()  # a write a crash interrupted
    log = open_log(tmp_path, time)
    assert snapshot_offsets(log) == [2, 4, 5]
    assert not [n for n in os.listdir(log.dir) if n.endswith(".tmp")]


# ---------------------------------------------------------------------------------- who appends

def test_a_client_may_not_write_a_control_batch_but_a_coordinator_may(tmp_path, time):
    from kafka.log.append_origin import AppendOrigin
    from kafka.log.errors import InvalidRecordError
    from kafka.protocol.control_records import end_txn_marker_batch

    log = open_log(tmp_path, time)
    marker = end_txn_marker_batch(PID, 0, True, 0, time.milliseconds())
    with pytest.raises(InvalidRecordError, match="control records"):
        log.append_as_leader(marker)
    assert log.log_end_offset == 0
    assert log.append_as_leader(marker, origin=AppendOrigin.COORDINATOR).first_offset == 0
    assert log.log_end_offset == 1


def test_a_coordinators_append_has_no_sequence_checked(tmp_path, time):
    from kafka.log.append_origin import AppendOrigin

    log = open_log(tmp_path, time)
    log.append_as_leader(batch(time, 0))
    # A gap a client would be refused for (OUT_OF_ORDER_SEQUENCE_NUMBER) is the coordinator's to make.
    assert offsets(log.append_as_leader(batch(time, 7), origin=AppendOrigin.COORDINATOR)) == (1, 1)
    log.append_as_leader(batch(time, 0, epoch=1))
    with pytest.raises(InvalidProducerEpochError):  # its epochs still are checked
        log.append_as_leader(batch(time, 9, epoch=0), origin=AppendOrigin.COORDINATOR)
