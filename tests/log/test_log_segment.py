import os
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka.log.errors import CorruptIndexError
from kafka.log.file_records import FileRecords
from kafka.log.log_config import LogConfig
from kafka.log.log_segment import LogSegment
from kafka.protocol.record_batch import RecordBatch, build_batch, iter_batches
from kafka.utils.time import MockTime


def batch(base_offset, count=1, value_size=10, timestamp=1000):
    return build_batch([(None, b"v" * value_size)] * count, base_offset=base_offset, timestamp=timestamp)


def fill(segment, sizes, base_offset=None, count=2):
    """Append one batch per size; returns [(base_offset, position, size)] of what was written."""
    offset = segment.base_offset if base_offset is None else base_offset
    written = []
    for value_size in sizes:
        data = batch(offset, count, value_size, timestamp=1000 + offset)
        written.append((offset, segment.size, len(data)))
        segment.append(offset + count - 1, data)
        offset += count
    return written


def make_segment(tmp_path, base_offset=0, **config):
    return LogSegment(str(tmp_path), base_offset, LogConfig(**config), MockTime())


def test_append_then_read_round_trip(tmp_path):
    segment = make_segment(tmp_path, base_offset=50)
    fill(segment, [10, 20, 30])
    info = segment.read(50, 10_000)
    batches = list(iter_batches(info.records))
    assert [(b.base_offset, b.last_offset) for b in batches] == [(50, 51), (52, 53), (54, 55)]
    assert all(b.is_valid() for b in batches)
    assert info.fetch_offset_metadata.segment_base_offset == 50
    assert (tmp_path / f"{50:020d}.log").stat().st_size == segment.size == len(info.records)


def test_translate_offset_finds_the_batch_containing_the_offset(tmp_path):
    segment = make_segment(tmp_path, index_interval_bytes=100)
    written = fill(segment, [40] * 20, count=5)
    for base, position, _ in written:
        for offset in range(base, base + 5):
            assert segment.translate_offset(offset) == (base, position)
    assert segment.translate_offset(100) is None  # past the last batch


def test_read_from_the_middle_of_a_batch_returns_the_whole_batch(tmp_path):
    segment = make_segment(tmp_path)
    written = fill(segment, [10, 10, 10], count=4)
    info = segment.read(6, 10_000)  # offsets 4..7 form the second batch
    assert info.fetch_offset_metadata.relative_position_in_segment == written[1][1]
    assert [b.base_offset for b in iter_batches(info.records)] == [4, 8]


def test_max_size_keeps_whole_batches_and_min_one_message(tmp_path):
    segment = make_segment(tmp_path)
    written = fill(segment, [500, 10, 10])
    big = written[0][2]
    # The first batch is larger than max_size: returned alone and whole.
    info = segment.read(0, 100)
    assert len(info.records) == big and [b.base_offset for b in iter_batches(info.records)] == [0]
    # Room for the first two batches and part of the third: the partial one is left out.
    info = segment.read(0, big + written[1][2] + 5)
    assert [b.base_offset for b in iter_batches(info.records)] == [0, 2]
    # Without min_one_message nothing fits: an empty read that says the first entry is incomplete.
    info = segment.read(0, 100, min_one_message=False)
    assert info.records == b"" and info.first_entry_incomplete


def test_read_stops_at_max_position_and_max_offset(tmp_path):
    segment = make_segment(tmp_path)
    written = fill(segment, [10, 10, 10, 10])
    info = segment.read(0, 10_000, max_position=written[2][1])
    assert [b.base_offset for b in iter_batches(info.records)] == [0, 2]
    info = segment.read(0, 10_000, max_offset=5)  # batch 4..5 holds offset 5: left out
    assert [b.base_offset for b in iter_batches(info.records)] == [0, 2]
    info = segment.read(4, 10_000, max_offset=5)
    assert info.records == b""
    assert segment.read(8, 10_000) is None


def test_sparse_index_has_an_entry_every_index_interval_bytes(tmp_path):
    segment = make_segment(tmp_path, index_interval_bytes=1000)
    written = fill(segment, [100] * 100)
    index = segment.offset_index
    entries = [index.entry(i) for i in range(index.entries)]
    positions = {position: base for base, position, _ in written}
    assert entries and all(positions[position] == offset for offset, position in entries)
    gaps = [b[1] - a[1] for a, b in zip([(0, 0), *entries], entries, strict=False)]
    batch_size = written[0][2]
    assert all(1000 <= gap < 1000 + batch_size + 1 for gap in gaps)
    assert os.path.getsize(index.path) == 8 * index.entries


def test_read_next_offset_and_reopen(tmp_path):
    segment = make_segment(tmp_path, base_offset=7, index_interval_bytes=200)
    fill(segment, [30] * 30, count=3)
    assert segment.read_next_offset() == 7 + 90
    entries = segment.offset_index.entries
    segment.close()
    reopened = make_segment(tmp_path, base_offset=7, index_interval_bytes=200)
    reopened.sanity_check()
    assert reopened.offset_index.entries == entries
    assert reopened.read_next_offset() == 97
    assert reopened.max_timestamp_so_far == 1000 + 94


def test_recover_rebuilds_the_index_the_appends_built(tmp_path):
    segment = make_segment(tmp_path, index_interval_bytes=300)
    fill(segment, [10, 200, 50, 400, 5, 5, 5, 300, 90] * 3)
    built = [segment.offset_index.entry(i) for i in range(segment.offset_index.entries)]
    segment.close()
    os.unlink(segment.offset_index.path)
    reopened = make_segment(tmp_path, index_interval_bytes=300)
    try:
        reopened.sanity_check()
        raise AssertionError("a missing index must fail the sanity check")
    except FileNotFoundError:
        pass
    assert reopened.recover() == 0
    assert [reopened.offset_index.entry(i) for i in range(reopened.offset_index.entries)] == built
    reopened.sanity_check()


def test_recover_cuts_a_torn_or_corrupt_tail(tmp_path):
    segment = make_segment(tmp_path)
    written = fill(segment, [10, 10, 10])
    good_end = written[2][1]
    segment.close()
    with open(segment.log_path, "r+b") as file:  # flip a byte inside the third batch's records
        file.seek(good_end + 70)
        byte = file.read(1)
        file.seek(good_end + 70)
        file.write(bytes([byte[0] ^ 0xFF]))
        file.seek(0, os.SEEK_END)
        file.write(batch(99)[:30])  # and a torn batch after it
    reopened = make_segment(tmp_path)
    assert reopened.recover() == written[2][2] + 30
    assert reopened.size == good_end and reopened.read_next_offset() == 4


def test_sanity_check_catches_an_index_that_does_not_match_the_log(tmp_path):
    segment = make_segment(tmp_path, index_interval_bytes=0)
    fill(segment, [10, 10])
    segment.close()
    with open(segment.offset_index.path, "r+b") as file:  # point the last entry one byte off
        file.seek(12)
        position = int.from_bytes(file.read(4), "big")
        file.seek(12)
        file.write((position + 1).to_bytes(4, "big"))
    reopened = make_segment(tmp_path, index_interval_bytes=0)
    with pytest.raises(CorruptIndexError):
        reopened.sanity_check()


def test_find_offset_by_timestamp_returns_the_exact_record(tmp_path):
    segment = make_segment(tmp_path)
    from kafka.protocol.record_batch import DefaultRecord
    records = [DefaultRecord(10 + i, 5000 + 10 * i, None, b"x") for i in range(5)]
    segment.append(14, build_batch(records, base_offset=10))
    segment.append(15, build_batch([(None, b"y")], base_offset=15, timestamp=7000))
    assert segment.find_offset_by_timestamp(5015, 0) == (5020, 12)
    assert segment.find_offset_by_timestamp(5041, 0) == (7000, 15)
    assert segment.find_offset_by_timestamp(7001, 0) is None
    assert segment.max_timestamp_and_offset() == (7000, 15)


def test_should_roll(tmp_path):
    time = MockTime()
    segment = LogSegment(str(tmp_path), 0, LogConfig(), time)
    assert not segment.should_roll(10**9, 0, 5, segment_bytes=100, segment_ms=1000)  # empty: never by size
    fill(segment, [10])
    assert segment.should_roll(100, 1000, 5, segment_bytes=100, segment_ms=10**9)
    assert not segment.should_roll(1, 1000, 5, segment_bytes=10**6, segment_ms=10**9)
    assert segment.should_roll(1, 1000, 2**31, segment_bytes=10**6, segment_ms=10**9)
    # segment.ms is measured with record timestamps: first batch at 1000, a record at 3001 is 2001 later.
    assert segment.should_roll(1, 3001, 5, segment_bytes=10**6, segment_ms=2000)


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(0, 600), min_size=1, max_size=40),
       counts=st.lists(st.integers(1, 5), min_size=40, max_size=40),
       interval=st.sampled_from([0, 64, 500, 4096]),
       data=st.data())
def test_lookups_and_reads_over_random_batches(tmp_path_factory, sizes, counts, interval, data):
    segment = make_segment(tmp_path_factory.mktemp("seg"), base_offset=1000, index_interval_bytes=interval)
    layout, offset = [], 1000
    for value_size, count in zip(sizes, counts, strict=False):
        encoded = batch(offset, count, value_size)
        layout.append((offset, offset + count - 1, segment.size, len(encoded)))
        segment.append(offset + count - 1, encoded)
        offset += count
    assert segment.read_next_offset() == offset
    for target in data.draw(st.lists(st.integers(1000, offset - 1), min_size=1, max_size=10)):
        base, _last, position, _size = next(entry for entry in layout if entry[0] <= target <= entry[1])
        assert segment.translate_offset(target) == (base, position)
        max_size = data.draw(st.integers(0, 3000))
        info = segment.read(target, max_size)
        got = [RecordBatch(info.records, p.position).base_offset for p in iter_batches(info.records)]
        expected, room = [], max(max_size, next(e[3] for e in layout if e[0] == base))
        for entry in layout:
            if entry[0] >= base and entry[3] <= room:
                expected.append(entry[0])
                room -= entry[3]
            elif entry[0] >= base:
                break
        assert got == expected
    segment.close()


def test_a_zero_copy_read_cut_to_whole_batches_reads_only_headers(tmp_path):
    # A consumer fetching 1 MB from a log of ~1 MB batches gets one batch, cut from the range by
    # the headers: reading the range to find the cut held megabyte temporaries on every fetch.
    segment = make_segment(tmp_path)
    written = fill(segment, [1000] * 3, count=1000)
    sizes = [size for _, _, size in written]
    tracemalloc.start()
    try:
        for max_offset in (None, 2000):
            info = segment.read(0, sizes[0] + sizes[1] // 2, max_offset=max_offset, zero_copy=True)
            assert isinstance(info.records, FileRecords) and len(info.records) == sizes[0]
            info.records.close()
        info = segment.read(0, 10**7, max_offset=2000, zero_copy=True)  # the high watermark cuts
        assert len(info.records) == sizes[0] + sizes[1]
        info.records.close()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < sizes[0] // 4
    # the bytes read the ordinary way are cut at the same batches
    assert len(segment.read(0, sizes[0] + sizes[1] // 2).records) == sizes[0]
    segment.close()
