import os
import threading

import pytest

from kafka.log.errors import (
    CorruptRecordError,
    InvalidRecordError,
    OffsetOutOfRangeError,
    RecordBatchTooLargeError,
    RecordTooLargeError,
)
from kafka.log.log_config import LogConfig
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.record_batch import (
    DefaultRecord,
    build_batch,
    iter_batches,
    validate_batches,
)
from kafka.utils.time import MockTime


def batch(count=1, value_size=10, timestamp=1000, base_offset=0):
    # Producers send base offset 0; the log assigns the real ones.
    return build_batch([(b"k", b"v" * value_size)] * count, base_offset=base_offset, timestamp=timestamp)


def make_log(tmp_path, time=None, **config):
    return UnifiedLog(str(tmp_path / "orders-0"), "orders", 0, LogConfig(**config), time or MockTime())


def offsets_of(records):
    return [(b.base_offset, b.last_offset) for b in iter_batches(records)]


def test_append_assigns_offsets_and_reads_back(tmp_path):
    log = make_log(tmp_path)
    info = log.append_as_leader(batch(3), leader_epoch=5)
    assert (info.first_offset, info.last_offset, info.num_messages, info.log_start_offset) == (0, 2, 3, 0)
    assert info.max_timestamp == 1000 and info.log_append_time == -1
    info = log.append_as_leader(batch(2, base_offset=77) + batch(4))  # two batches in one request
    assert (info.first_offset, info.last_offset, info.num_messages) == (3, 8, 6)
    assert log.log_end_offset == 9
    records = log.read(0, 10_000).records
    assert offsets_of(records) == [(0, 2), (3, 4), (5, 8)]
    read_back = validate_batches(records)  # CRCs still valid after the offset rewrite
    assert [b.partition_leader_epoch for b in read_back] == [5, 0, 0]
    assert [r.offset for b in read_back for r in b] == list(range(9))
    assert log.name == "orders-0" and log.size_in_bytes == len(records)


def test_offsets_across_many_batches(tmp_path):
    log = make_log(tmp_path, segment_bytes=4096, index_interval_bytes=256)
    expected, offset = [], 0
    for i in range(300):
        count = i % 4 + 1
        info = log.append_as_leader(batch(count, value_size=i % 50))
        assert info.first_offset == offset
        expected.append((offset, offset + count - 1))
        offset += count
    assert log.num_segments > 5
    got, position = [], 0
    while position < log.log_end_offset:
        records = log.read(position, 1000).records
        got += offsets_of(records)
        position = got[-1][1] + 1
    assert got == expected


def test_read_from_middle_of_batch_returns_whole_batch(tmp_path):
    log = make_log(tmp_path)
    log.append_as_leader(batch(5))
    log.append_as_leader(batch(5))
    info = log.read(7, 10_000)
    assert offsets_of(info.records) == [(5, 9)]
    assert info.fetch_offset_metadata.message_offset == 7


def test_max_length_and_min_one_message(tmp_path):
    log = make_log(tmp_path)
    log.append_as_leader(batch(1, value_size=2000))
    log.append_as_leader(batch(1, value_size=10))
    log.append_as_leader(batch(1, value_size=10))
    first = log.read(0, 100)
    assert offsets_of(first.records) == [(0, 0)] and len(first.records) > 2000
    small = log.read(1, 10_000).records
    assert offsets_of(log.read(1, len(small) - 1).records) == [(1, 1)]  # the second does not fit
    empty = log.read(0, 100, min_one_message=False)
    assert empty.records == b"" and empty.first_entry_incomplete


def test_read_at_log_end_is_empty_and_out_of_range_raises(tmp_path):
    log = make_log(tmp_path)
    log.append_as_leader(batch(3))
    info = log.read(3, 10_000)
    assert info.records == b""
    assert info.fetch_offset_metadata.relative_position_in_segment == log.active_segment.size
    with pytest.raises(OffsetOutOfRangeError):
        log.read(4, 10_000)
    with pytest.raises(OffsetOutOfRangeError):
        log.read(-1, 10_000)
    empty_log = make_log(tmp_path / "other")
    assert empty_log.read(0, 100).records == b""


def test_log_start_offset_bounds_reads(tmp_path):
    log = UnifiedLog(str(tmp_path / "t-0"), "t", 0, LogConfig(), MockTime(), log_start_offset=100)
    assert log.log_end_offset == 100 and os.path.exists(tmp_path / "t-0" / f"{100:020d}.log")
    assert log.append_as_leader(batch(2)).first_offset == 100
    with pytest.raises(OffsetOutOfRangeError):
        log.read(99, 100)


def test_isolation_bound_hides_batches_at_or_after_it(tmp_path):
    log = make_log(tmp_path)
    for _ in range(4):
        log.append_as_leader(batch(2))  # 0-1, 2-3, 4-5, 6-7
    assert offsets_of(log.read(0, 10_000, isolation_max_offset=4).records) == [(0, 1), (2, 3)]
    assert log.read(4, 10_000, isolation_max_offset=4).records == b""
    assert log.read(6, 10_000, isolation_max_offset=4).records == b""
    assert offsets_of(log.read(0, 10_000, isolation_max_offset=8).records) == [(0, 1), (2, 3), (4, 5), (6, 7)]


def test_segments_roll_at_segment_bytes(tmp_path):
    one = len(batch(1, value_size=100))
    log = make_log(tmp_path, segment_bytes=one * 3)
    for _ in range(10):
        log.append_as_leader(batch(1, value_size=100))
    assert [s.base_offset for s in log.segments] == [0, 3, 6, 9]
    assert all(s.size <= one * 3 for s in log.segments)
    names = sorted(os.listdir(log.dir))
    for base in (0, 3, 6, 9):
        assert f"{base:020d}.log" in names and f"{base:020d}.index" in names
    # A read that starts in one segment continues into the next ones while there is room.
    assert offsets_of(log.read(2, 10_000).records) == [(i, i) for i in range(2, 10)]
    assert offsets_of(log.read(2, one * 2).records) == [(2, 2), (3, 3)]


def test_segments_roll_at_segment_ms(tmp_path):
    time = MockTime()
    log = make_log(tmp_path, time=time, segment_ms=60_000)
    no_timestamp = -1  # batches without a timestamp: the segment's wall-clock age counts
    log.append_as_leader(batch(1, timestamp=no_timestamp))
    time.advance(30_000)
    log.append_as_leader(batch(1, timestamp=no_timestamp))
    assert log.num_segments == 1
    time.advance(30_001)
    log.append_as_leader(batch(1, timestamp=no_timestamp))
    assert [s.base_offset for s in log.segments] == [0, 2]


def test_corrupt_batch_appends_nothing(tmp_path):
    log = make_log(tmp_path)
    log.append_as_leader(batch(2))
    good, bad = batch(1), bytearray(batch(1))
    bad[-1] ^= 0x01
    with pytest.raises(CorruptRecordError):
        log.append_as_leader(good + bytes(bad))  # the good first batch must not be written either
    with pytest.raises(CorruptRecordError):
        log.append_as_leader(good[:-3])  # truncated
    with pytest.raises(InvalidRecordError):
        log.append_as_leader(b"")
    assert log.log_end_offset == 2
    assert log.size_in_bytes == len(batch(2))


def test_inconsistent_record_count_is_invalid(tmp_path):
    log = make_log(tmp_path)
    # lastOffsetDelta 5, 2 records
    records = [DefaultRecord(0, 0, None, b"a"), DefaultRecord(5, 0, None, b"b")]
    with pytest.raises(InvalidRecordError):
        log.append_as_leader(build_batch(records))
    assert log.log_end_offset == 0


def test_batch_over_max_message_bytes_is_rejected(tmp_path):
    log = make_log(tmp_path, max_message_bytes=500)
    log.append_as_leader(batch(1, value_size=100))
    with pytest.raises(RecordTooLargeError):
        log.append_as_leader(batch(1, value_size=100) + batch(1, value_size=600))
    assert log.log_end_offset == 1


def test_an_append_larger_than_a_segment_is_rejected(tmp_path):
    one = len(batch(1, value_size=100))
    log = make_log(tmp_path, segment_bytes=one * 2)
    with pytest.raises(RecordBatchTooLargeError):
        log.append_as_leader(batch(1, value_size=100) * 3)
    assert log.log_end_offset == 0 and log.size_in_bytes == 0


def test_high_watermark_is_clamped(tmp_path):
    log = UnifiedLog(str(tmp_path / "t-0"), "t", 0, LogConfig(), MockTime(), log_start_offset=10)
    log.append_as_leader(batch(5))
    assert log.high_watermark == 10
    assert log.update_high_watermark(12) == 12
    assert log.update_high_watermark(100) == 15
    assert log.update_high_watermark(3) == 10
    assert log.high_watermark == 10


def test_fetch_offset_by_timestamp(tmp_path):
    log = make_log(tmp_path, segment_bytes=200)
    for ts in (100, 200, 300, 250):
        log.append_as_leader(batch(2, timestamp=ts))
    assert log.num_segments > 1
    assert log.fetch_offset_by_timestamp(-2) == (-1, 0)
    assert log.fetch_offset_by_timestamp(-1) == (-1, 8)
    assert log.fetch_offset_by_timestamp(150) == (200, 2)
    assert log.fetch_offset_by_timestamp(260) == (300, 4)
    assert log.fetch_offset_by_timestamp(301) is None
    assert log.fetch_offset_by_timestamp(-3) == (300, 4)


def test_offset_metadata_for_delayed_fetch(tmp_path):
    log = make_log(tmp_path)
    log.append_as_leader(batch(2))
    log.append_as_leader(batch(2))
    end = log.log_end_offset_metadata
    start = log.convert_to_offset_metadata(2)
    assert (end.message_offset, end.relative_position_in_segment) == (4, log.active_segment.size)
    assert end.position_diff(start) == len(batch(2))


def test_flush_advances_the_recovery_point_and_flush_messages(tmp_path):
    log = make_log(tmp_path, flush_messages=3)
    log.append_as_leader(batch(1))
    assert log.recovery_point == 0
    log.append_as_leader(batch(2))
    assert log.recovery_point == 3  # flush.messages reached: fsynced
    log.append_as_leader(batch(1))
    log.flush()
    assert log.recovery_point == 4


def test_delete_removes_the_directory(tmp_path):
    log = make_log(tmp_path)
    log.append_as_leader(batch(1))
    log.delete()
    assert not os.path.exists(log.dir)


def test_concurrent_appender_and_readers_never_see_partial_batches(tmp_path):
    log = make_log(tmp_path, segment_bytes=20_000, index_interval_bytes=512)
    appends = 1500
    failures = []
    done = threading.Event()

    def append():
        try:
            for i in range(appends):
                log.append_as_leader(batch(i % 3 + 1, value_size=i % 200))
        finally:
            done.set()

    def read(max_bytes):
        try:
            offset = 0
            while not (done.is_set() and offset >= log.log_end_offset):
                end = log.log_end_offset
                if offset >= end:
                    continue
                info = log.read(offset, max_bytes)
                batches = validate_batches(info.records)  # whole, CRC-valid batches only
                if batches[0].base_offset > offset or batches[0].last_offset < offset:
                    failures.append(f"read at {offset} started with {batches[0]}")
                for previous, current in zip(batches, batches[1:], strict=False):
                    if current.base_offset != previous.next_offset:
                        failures.append(f"gap between {previous} and {current}")
                offset = batches[-1].next_offset
        except Exception as error:  # surfaced below, in the test's thread
            failures.append(repr(error))

    threads = [threading.Thread(target=append)] + [threading.Thread(target=read, args=(n,))
                                                   for n in (700, 5000)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures[:5]
    assert log.num_segments > 3
    total = sum(b.records_count for b in validate_batches(log.read(0, 10**8).records))
    assert total == log.log_end_offset == sum(i % 3 + 1 for i in range(appends))


def test_append_to_a_closed_log_is_a_storage_error(tmp_path):
    from kafka.log.errors import LogDirError
    log = make_log(tmp_path)
    log.close()
    with pytest.raises(LogDirError):
        log.append_as_leader(batch(1))


def test_reopened_log_keeps_timestamps_and_drops_orphan_indexes(tmp_path):
    log = make_log(tmp_path, segment_bytes=300)
    for ts in (500, 900, 700):
        log.append_as_leader(batch(1, value_size=100, timestamp=ts))
    log.close()
    orphan = os.path.join(log.dir, f"{12345:020d}.index")
    open(orphan, "wb").close()
    log = make_log(tmp_path, segment_bytes=300)
    assert not os.path.exists(orphan)
    log.append_as_leader(batch(1, value_size=100, timestamp=800))
    assert log.fetch_offset_by_timestamp(-3) == (900, 1)
    assert log.fetch_offset_by_timestamp(750) == (900, 1)
    log.append_as_leader(batch(1, value_size=100, timestamp=950))
    assert log.fetch_offset_by_timestamp(-3) == (950, 4)
