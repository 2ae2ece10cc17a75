"""Lazy indexes and a segment's descriptors (Kafka's LazyIndex; issue 27): an index reads its file
on first use and holds no descriptor between uses; a segment's .log is open while it is active or
read, and closed when the last reader of an inactive segment is done."""

from __future__ import annotations

import os

import pytest

from kafka.log.log_config import LogConfig
from kafka.log.log_segment import LogSegment
from kafka.log.offset_index import OffsetIndex
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.record_batch import build_batch
from kafka.utils.time import MockTime

CONFIG = LogConfig(segment_bytes=1000, index_interval_bytes=100)


def open_descriptors_to(directory) -> list[str]:
    """The files under `directory` this process holds open now."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(directory)):
            found.append(os.path.basename(target))
    return sorted(found)


def test_an_index_reads_its_file_on_first_lookup_and_holds_no_descriptor(tmp_path):
    path = str(tmp_path / "00000000000000000100.index")
    index = OffsetIndex(path, 100)
    index.append(105, 4096)
    index.append(110, 8192)
    assert open_descriptors_to(tmp_path) == []

    reopened = OffsetIndex(path, 100)
    assert not reopened.is_loaded  # opening a segment reads none of its index
    assert reopened.lookup(107) == (105, 4096)
    assert reopened.is_loaded and reopened.entries == 2
    assert open_descriptors_to(tmp_path) == []


def test_an_append_opens_the_index_once_and_closes_it(tmp_path):
    index = OffsetIndex(str(tmp_path / "00000000000000000000.index"), 0)
    with index.appending():
        assert open_descriptors_to(tmp_path) == []  # nothing opened until an entry is written
        index.append(1, 10)
        index.append(2, 20)
        assert open_descriptors_to(tmp_path) == ["00000000000000000000.index"]
    assert open_descriptors_to(tmp_path) == []
    index.truncate_to(2)
    assert OffsetIndex(index.path, 0).entries == 1


def test_a_partition_at_rest_holds_one_descriptor_whatever_its_segments(tmp_path):
    log = UnifiedLog(str(tmp_path / "t-0"), "t", 0, CONFIG, MockTime())
    for i in range(60):
        log.append_as_leader(build_batch([(b"k", b"value-%03d" % i)], timestamp=1000 + i))
    assert log.num_segments >= 4
    assert open_descriptors_to(tmp_path) == [os.path.basename(log.active_segment.log_path)]

    # A read of an old segment opens its .log for the read and closes it again afterwards.
    old = log.segments[0]
    assert not old.is_open
    assert log.read(0, 100).records
    assert not old.is_open
    assert open_descriptors_to(tmp_path) == [os.path.basename(log.active_segment.log_path)]
    log.close()
    assert open_descriptors_to(tmp_path) == []


def test_an_inactive_segment_stays_open_while_read_and_closes_after_the_last_reader(tmp_path):
    segment = LogSegment(str(tmp_path), 0, CONFIG, MockTime())
    segment.set_active(True)
    segment.append(0, build_batch([(b"k", b"v")]))
    with segment.reading():
        segment.set_active(False)  # the log rolled while a fetch was reading this segment
        assert segment.is_open
        assert segment.read(0, 1000).records  # nested pins are counted
        assert segment.is_open
    assert not segment.is_open
    segment.close()
    with pytest.raises(OSError):
        segment.read(0, 1000)


def test_loading_a_log_reads_no_index_below_the_recovery_point(tmp_path):
    path = tmp_path / "t-0"
    log = UnifiedLog(str(path), "t", 0, CONFIG, MockTime())
    for i in range(60):
        log.append_as_leader(build_batch([(b"k", b"value-%03d" % i)], timestamp=1000 + i))
    log.flush()
    recovery_point = log.recovery_point
    log.close()
    reopened = UnifiedLog(str(path), "t", 0, CONFIG, MockTime(), recovery_point=recovery_point)
    assert [s.offset_index.is_loaded for s in reopened.segments[:-1]] == [False] * (reopened.num_segments - 1)
    assert reopened.read(0, 100).records  # and they load when first read
    assert reopened.segments[0].offset_index.is_loaded
    reopened.close()
