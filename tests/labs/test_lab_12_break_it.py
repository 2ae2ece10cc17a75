"""Lab 12, break it (docs/labs/12-break-it.md): `LogSegment._roll_back_append` in
kafka/log/log_segment.py, what a segment does when a write fails partway (a full disk, an I/O
error), on one segment with the failure injected, then on a real broker whose disk "fills up".

Seed 002: the I/O thread appends "to the physical data structure of the partition, which is called
a commit log"; seed 004: a record acknowledged is a record kept. A half-written batch must never
stay in the log, or every later append would land behind bytes no reader can parse.
"""

from __future__ import annotations

import errno
import os

import pytest

from kafka.log import log_segment
from kafka.log.log_config import LogConfig
from kafka.log.log_segment import LogSegment
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from tests.integration.test_full_disk import OFFLINE_DIRS, batch, create, fetch_offsets, metric, produce
from tests.wire import WireClient

ENOSPC = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def records(base_offset: int, count: int, timestamp: int = 1000) -> bytes:
    return bytes(build_batch([(b"k", b"v" * 50)] * count, base_offset=base_offset, timestamp=timestamp))


@pytest.fixture
def segment(tmp_path):
    """A segment that writes an index entry for every batch (index.interval.bytes=1)."""
    segment = LogSegment(str(tmp_path), 0, LogConfig(index_interval_bytes=1))
    yield segment
    segment.close()


@pytest.fixture
def disk_fills_up(monkeypatch):
    """While full[0] is True, a write lands half its bytes and then fails with ENOSPC, as on a filling disk."""
    full = [False]
    real_write = log_segment._write_fully

    def write(fd, data):
        if not full[0]:
            return real_write(fd, data)
        os.write(fd, bytes(data)[: len(data) // 2])
        raise ENOSPC

    monkeypatch.setattr(log_segment, "_write_fully", write)
    return full


def fail_append(segment, largest_offset: int, data: bytes) -> None:
    try:
        segment.append(largest_offset, data)
    except NotImplementedError:
        raise
    except OSError as e:
        assert e.errno == errno.ENOSPC, f"the append should fail with the disk's own error, not {e!r}"
        return
    raise AssertionError("the append succeeded although the disk was full")


def test_a_write_that_fails_halfway_leaves_no_bytes_behind(segment, disk_fills_up):
    """a write that fails halfway (a full disk) is cut back out of the .log: the file ends at the last whole batch"""
    segment.append(2, records(0, 3))
    size = os.path.getsize(segment.log_path)
    disk_fills_up[0] = True
    fail_append(segment, 7, records(3, 5))
    assert os.path.getsize(segment.log_path) == size, \
        f"half a batch stayed in the file: {os.path.getsize(segment.log_path) - size} bytes after the last whole batch"
    assert segment.size == size and not segment.has_torn_tail()


def test_the_next_append_lands_right_after_the_last_whole_batch(segment, disk_fills_up):
    """once there is space again, the next append lands right after the last whole batch and every batch reads back"""
    segment.append(2, records(0, 3))
    disk_fills_up[0] = True
    fail_append(segment, 7, records(3, 5))
    disk_fills_up[0] = False
    segment.append(4, records(3, 2))
    assert [(b.base_offset, b.last_offset) for b in segment.batches()] == [(0, 2), (3, 4)], \
        "a reader must find the two whole batches, with nothing torn between them"
    assert segment.read_next_offset() == 5
    assert segment.offset_index.lookup(3).position == segment.translate_offset(3).position


def test_a_failure_in_the_index_takes_back_the_whole_append(segment, monkeypatch):
    """a write that fails after some of its index entries were written leaves the .log, both indexes and the counters as before it"""
    segment.append(1, records(0, 2, timestamp=1000))
    before = (segment.size, segment.offset_index.entries, segment.time_index.entries,
              segment._bytes_since_last_index_entry, segment.max_timestamp_so_far)
    real_append, calls = segment.offset_index.append, []

    def index_fills_up(offset, position):  # the second batch's entry finds the disk full
        calls.append(offset)
        if len(calls) == 2:
            raise ENOSPC
        real_append(offset, position)

    monkeypatch.setattr(segment.offset_index, "append", index_fills_up)
    fail_append(segment, 5, records(2, 2, timestamp=5000) + records(4, 2, timestamp=6000))
    after = (segment.size, segment.offset_index.entries, segment.time_index.entries,
             segment._bytes_since_last_index_entry, segment.max_timestamp_so_far)
    assert after == before, "(size, offset index entries, time index entries, bytes since the last entry, " \
                            f"largest timestamp) should be {before} again, not {after}"
    assert os.path.getsize(segment.log_path) == before[0]


def test_a_broker_on_a_full_disk_answers_kafka_storage_error_and_keeps_its_log_whole(broker, disk_fills_up):
    """a real broker whose disk fills up answers KAFKA_STORAGE_ERROR, reports the log dir offline, and once there is space appends right after the last whole batch"""
    client = WireClient(broker.port)
    assert create(client, "lab12").error_code == Errors.NONE
    assert produce(client, "lab12", batch(0, 5)).error_code == Errors.NONE
    disk_fills_up[0] = True
    failed = produce(client, "lab12", batch(5, 5))
    assert failed.error_code == Errors.KAFKA_STORAGE_ERROR, \
        f"a full disk should answer KAFKA_STORAGE_ERROR, not {Errors.for_code(failed.error_code).name}"
    assert metric(broker, OFFLINE_DIRS) == 1
    disk_fills_up[0] = False
    ok = produce(client, "lab12", batch(5, 3))
    assert (Errors.for_code(ok.error_code).name, ok.base_offset) == ("NONE", 5)
    assert fetch_offsets(client, "lab12") == list(range(8)), "a consumer must read every offset, nothing torn between"
    assert metric(broker, OFFLINE_DIRS) == 0
    client.close()
