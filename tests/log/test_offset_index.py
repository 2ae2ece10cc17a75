import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka.log.errors import CorruptIndexError, LogSegmentOffsetOverflowError
from kafka.log.offset_index import OffsetIndex, OffsetPosition


def make_index(tmp_path, base_offset=100, max_index_size=1024):
    return OffsetIndex(str(tmp_path / f"{base_offset:020d}.index"), base_offset, max_index_size)


def test_lookup_finds_largest_entry_at_or_below(tmp_path):
    index = make_index(tmp_path)
    for offset, position in [(100, 0), (110, 4000), (125, 8100), (140, 12500)]:
        index.append(offset, position)
    assert index.entries == 4
    assert index.lookup(99) == OffsetPosition(100, 0)  # below the base: the segment start
    assert index.lookup(100) == (100, 0)
    assert index.lookup(124) == (110, 4000)
    assert index.lookup(125) == (125, 8100)
    assert index.lookup(10**12) == (140, 12500)
    assert index.last_offset == 140


def test_empty_index_points_at_segment_start(tmp_path):
    index = make_index(tmp_path)
    assert index.lookup(500) == (100, 0)
    assert index.last_offset == 100
    index.sanity_check()


def test_file_holds_big_endian_entries_and_reloads(tmp_path):
    index = make_index(tmp_path)
    index.append(105, 4096)
    index.append(300, 9000)
    index.close()
    path = tmp_path / f"{100:020d}.index"
    assert path.read_bytes() == bytes.fromhex("00000005 00001000 000000c8 00002328".replace(" ", ""))
    reloaded = make_index(tmp_path)
    assert not reloaded.newly_created
    reloaded.sanity_check()
    assert [reloaded.entry(i) for i in range(2)] == [(105, 4096), (300, 9000)]


def test_append_rejects_offsets_that_do_not_increase_or_do_not_fit(tmp_path):
    index = make_index(tmp_path)
    index.append(110, 100)
    with pytest.raises(ValueError):
        index.append(110, 200)
    with pytest.raises(LogSegmentOffsetOverflowError):
        index.append(100 + 2**31, 300)
    with pytest.raises(LogSegmentOffsetOverflowError):
        index.append(99, 300)


def test_is_full_at_segment_index_bytes(tmp_path):
    index = make_index(tmp_path, max_index_size=24)  # room for 3 entries
    for i in range(3):
        assert not index.is_full()
        index.append(101 + i, i * 10)
    assert index.is_full()
    with pytest.raises(ValueError):
        index.append(200, 100)


def test_truncate_to_drops_entries_at_or_above(tmp_path):
    index = make_index(tmp_path)
    for i in range(10):
        index.append(100 + i * 10, i * 1000)
    index.truncate_to(150)
    assert index.entries == 5 and index.last_offset == 140
    index.truncate_to(145)
    assert index.entries == 5
    assert os.path.getsize(index.path) == 5 * 8
    index.truncate()
    assert index.entries == 0 and os.path.getsize(index.path) == 0


def test_sanity_check_reports_a_torn_entry_or_zeros(tmp_path):
    index = make_index(tmp_path)
    index.append(105, 10)
    index.close()
    path = tmp_path / f"{100:020d}.index"
    with open(path, "ab") as file:
        file.write(b"\x00\x00\x00")
    with pytest.raises(CorruptIndexError):
        make_index(tmp_path).sanity_check()
    with open(path, "ab") as file:
        file.write(b"\x00" * 13)  # now whole entries, but the last one is all zeros
    with pytest.raises(CorruptIndexError):
        make_index(tmp_path).sanity_check()


@settings(max_examples=60, deadline=None)
@given(gaps=st.lists(st.tuples(st.integers(1, 1000), st.integers(0, 5000)), min_size=0, max_size=60),
       targets=st.lists(st.integers(0, 70_000), min_size=1, max_size=30))
def test_lookup_matches_a_linear_search(tmp_path_factory, gaps, targets):
    index = make_index(tmp_path_factory.mktemp("idx"), base_offset=0, max_index_size=10_000)
    entries, offset, position = [], 0, 0
    for offset_gap, position_gap in gaps:
        offset += offset_gap
        position += position_gap
        index.append(offset, position)
        entries.append((offset, position))
    for target in targets:
        expected = max((e for e in entries if e[0] <= target), default=(0, 0))
        assert index.lookup(target) == expected
    index.close()
