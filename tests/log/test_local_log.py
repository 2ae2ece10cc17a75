"""LocalLog (Kafka's LocalLog): the segments of a log, driven on its own with a lock of its own, as
UnifiedLog drives it: roll, read across segments, truncate, remove old segments `.deleted` first."""

from __future__ import annotations

import os
import threading

import pytest

from kafka.log import local_log as local_log_module
from kafka.log.errors import KafkaStorageError, LogDirError, OffsetOutOfRangeError
from kafka.log.local_log import LocalLog
from kafka.log.log_config import LogConfig
from kafka.log.log_file_utils import DELETED_FILE_SUFFIX
from kafka.log.log_segment import LogSegment
from kafka.protocol.record_batch import build_batch, iter_batches
from kafka.utils.time import MockTime


def records(base_offset: int, count: int = 2) -> bytes:
    return bytes(build_batch([(b"k", b"v" * 20)] * count, base_offset=base_offset, timestamp=1000))


@pytest.fixture
def local_log(tmp_path):
    dir = str(tmp_path / "orders-0")
    os.makedirs(dir)
    time, config = MockTime(), LogConfig()
    lock = threading.Lock()
    log = LocalLog(dir, "orders", 0, config, [LogSegment(dir, 0, config, time)], 0, 0, None, time, lock)
    yield log, lock
    log.close_handlers()


def append(log: LocalLog, lock: threading.Lock, base_offset: int, count: int = 2) -> None:
    with lock:  # UnifiedLog holds its lock around every change it asks of LocalLog
        log.append(base_offset + count - 1, records(base_offset, count))


def test_append_roll_and_read_across_segments(local_log):
    log, lock = local_log
    append(log, lock, 0)
    with lock:
        rolled = log.roll()
        assert log.roll() is rolled, "an empty active segment at the log end is not rolled again"
    append(log, lock, 2)
    assert (log.log_end_offset, log.num_segments, rolled.base_offset) == (4, 2, 2)
    data = log.read(0, 1 << 20)
    assert [(b.base_offset, b.last_offset) for b in iter_batches(data.records)] == [(0, 1), (2, 3)]
    assert log.read(2, 1 << 20, isolation_max_offset=2).records == b""
    with pytest.raises(OffsetOutOfRangeError):
        log.read(5, 100)


def test_truncate_to_returns_the_segments_it_removed(local_log):
    log, lock = local_log
    append(log, lock, 0)
    with lock:
        log.roll()
    append(log, lock, 2)
    with lock:
        dropped = log.truncate_to(1)
    assert [s.base_offset for s in dropped] == [2] and os.path.exists(dropped[0].log_path)
    LocalLog.delete_segments(dropped)
    assert not os.path.exists(dropped[0].log_path)
    assert (log.log_end_offset, log.num_segments, log.recovery_point) == (1, 1, 0)


def test_removed_segments_are_renamed_deleted_before_they_are_unlinked(local_log):
    log, lock = local_log
    append(log, lock, 0)
    with lock:
        log.roll()
        old = log.segments[0]
        log.remove_and_rename_segments([old])
    assert old.log_path.endswith(DELETED_FILE_SUFFIX) and os.path.exists(old.log_path)
    assert [s.base_offset for s in log.segments] == [2]
    log.delete_segment_files([old])  # no scheduler running: at once
    assert not os.path.exists(old.log_path)


def test_a_closed_log_refuses_appends_and_a_torn_one_needs_recovery(local_log, monkeypatch):
    log, lock = local_log
    monkeypatch.setattr(log, "_needs_recovery", "a write could not be cut back")
    with pytest.raises(KafkaStorageError):
        log.check_writable()
    log.close_handlers()
    with pytest.raises(LogDirError):
        log.check_if_closed()


def test_local_log_knows_nothing_of_unified_log():
    """Arrows point down: LocalLog is UnifiedLog's collaborator, never its caller."""
    source = open(local_log_module.__file__).read()
    assert "kafka.log.unified_log" not in source
