"""Retention: UnifiedLog.delete_old_segments on a MockTime clock, and the log start offset."""

import os

import pytest

from kafka.log.errors import OffsetOutOfRangeError
from kafka.log.log_config import LogConfig
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.record_batch import build_batch
from kafka.utils.time import MockTime


def make_log(tmp_path, time, **config):
    log = UnifiedLog(str(tmp_path / "t-0"), "t", 0, LogConfig(segment_bytes=600, **config), time)
    for _ in range(30):
        log.append_as_leader(build_batch([(b"k", b"v" * 50)], timestamp=time.milliseconds()))
        time.advance(1000)
    log.update_high_watermark(log.log_end_offset)
    return log


def test_retention_ms_deletes_old_segments_but_never_the_active_one(tmp_path):
    time = MockTime()
    log = make_log(tmp_path, time, retention_ms=60_000)
    segments = log.num_segments
    assert segments > 3 and log.delete_old_segments() == 0
    time.advance(60_000 - 25_000)  # the oldest records are 65 s old, the newest 36 s
    deleted = log.delete_old_segments()
    assert 0 < deleted < segments - 1
    assert log.log_start_offset == log.segments[0].base_offset > 0
    time.advance(10**9)
    log.delete_old_segments()
    assert log.num_segments == 1 and log.log_start_offset == log.active_segment.base_offset
    with pytest.raises(OffsetOutOfRangeError):
        log.read(0, 1000)
    assert not [n for n in os.listdir(log.dir) if n.endswith(".deleted")], "no scheduler: unlinked at once"


def test_retention_bytes_keeps_the_newest_segments_within_the_limit(tmp_path):
    log = make_log(tmp_path, MockTime(), retention_bytes=1300)
    log.delete_old_segments()
    assert log.size_in_bytes - log.segments[0].size < 1300 <= log.size_in_bytes + 1300
    assert log.size_in_bytes - 1300 < log.segments[0].size


def test_nothing_at_or_above_the_high_watermark_is_deleted(tmp_path):
    time = MockTime()
    log = make_log(tmp_path, time, retention_ms=1)
    log.update_high_watermark(log.segments[1].base_offset)
    time.advance(10**9)
    assert log.delete_old_segments() == 1, "only the segment wholly below the high watermark"


def test_compacted_logs_keep_old_segments_but_honour_the_log_start_offset(tmp_path):
    time = MockTime()
    log = make_log(tmp_path, time, retention_ms=1, cleanup_policy="compact")
    time.advance(10**9)
    assert log.delete_old_segments() == 0
    target = log.segments[2].base_offset + 1
    assert log.maybe_increment_log_start_offset(target) == target
    assert log.delete_old_segments() == 2 and log.log_start_offset == target
    with pytest.raises(OffsetOutOfRangeError):
        log.maybe_increment_log_start_offset(log.high_watermark + 1)
