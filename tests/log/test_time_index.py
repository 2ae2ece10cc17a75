import pytest

from kafka.log.errors import CorruptIndexError
from kafka.log.time_index import TimeIndex, TimestampOffset


def test_entries_only_grow_and_lookup_finds_the_last_entry_not_after_the_target(tmp_path):
    index = TimeIndex(str(tmp_path / "00000000000000000100.timeindex"), 100)
    index.maybe_append(1000, 110)
    index.maybe_append(1000, 120)  # same timestamp: nothing new to say
    index.maybe_append(2000, 130)
    assert index.entries == 2
    assert index.lookup(999) == TimestampOffset(-1, 100)
    assert index.lookup(1000) == TimestampOffset(1000, 110)
    assert index.lookup(1999) == TimestampOffset(1000, 110)
    assert index.lookup(5000) == TimestampOffset(2000, 130)
    assert (tmp_path / "00000000000000000100.timeindex").stat().st_size == 24


def test_reloads_from_its_file_and_detects_a_torn_entry(tmp_path):
    path = tmp_path / "00000000000000000000.timeindex"
    index = TimeIndex(str(path), 0)
    index.maybe_append(10, 1)
    index.maybe_append(20, 5)
    index.close()
    reloaded = TimeIndex(str(path), 0)
    assert [reloaded.entry(i) for i in range(reloaded.entries)] == [(10, 1), (20, 5)]
    reloaded.sanity_check()
    reloaded.close()
    with open(path, "ab") as file:
        file.write(b"\x00\x01\x02")
    with pytest.raises(CorruptIndexError, match="torn"):
        TimeIndex(str(path), 0).sanity_check()


def test_a_full_index_refuses_more_unless_it_is_the_final_entry(tmp_path):
    index = TimeIndex(str(tmp_path / "00000000000000000000.timeindex"), 0, max_index_size=24)
    index.maybe_append(1, 0)
    index.maybe_append(2, 1)
    assert index.is_full()
    with pytest.raises(ValueError, match="full"):
        index.maybe_append(3, 2)
    index.maybe_append(3, 2, skip_full_check=True)
    assert index.last_entry() == (3, 2)
