"""Lab 12, break it (docs/labs/12-break-it.md): `LogSegment._roll_back_append` in
kafka/log/log_segment.py, what a segment does when a write fails partway (a full disk, an I/O
error), on one segment with the failure injected, then on a real broker whose disk "fills up".
Last, step 6's hostile client against a broker with the step's low limits.

Seed 002: the I/O thread appends "to the physical data structure of the partition, which is called
a commit log"; seed 004: a record acknowledged is a record kept. A half-written batch must never
stay in the log, or every later append would land behind bytes no reader can parse.
"""

from __future__ import annotations

import errno
import os
import socket
import struct
import time

import pytest

from kafka.log import log_segment
from kafka.log.log_config import LogConfig
from kafka.log.log_segment import LogSegment
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.compression import CompressionType, compress
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import DefaultRecord, build_batch, encode_records, seal_batch
from kafka.utils.time import MockTime
from tests.helpers import wait_until
from tests.integration.test_full_disk import OFFLINE_DIRS, batch, create, fetch_offsets, metric, produce
from tests.wire import WireClient

ENOSPC = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def records(base_offset: int, count: int, timestamp: int = 1000) -> bytes:
    return bytes(build_batch([(b"k", b"v" * 50)] * count, base_offset=base_offset, timestamp=timestamp))


@pytest.fixture
def segment(tmp_path):
    """A segment that writes an index entry for every batch (index.interval.bytes=1)."""
    segment = LogSegment(str(tmp_path), 0, LogConfig(index_interval_bytes=1), MockTime())
    yield segment
    segment.close()


@pytest.fixture
def disk_fills_up(monkeypatch):
    """While full[0] is True,
    a write lands half its bytes and then fails with ENOSPC, as on a filling disk."""
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
    """a write that fails halfway (a full disk) is cut back out of the .log:
    the file ends at the last whole batch"""
    segment.append(2, records(0, 3))
    size = os.path.getsize(segment.log_path)
    disk_fills_up[0] = True
    fail_append(segment, 7, records(3, 5))
    left_over = os.path.getsize(segment.log_path) - size
    assert left_over == 0, f"half a batch stayed in the file: {left_over} bytes after the last whole batch"
    assert segment.size == size and not segment.has_torn_tail()


def test_the_next_append_lands_right_after_the_last_whole_batch(segment, disk_fills_up):
    """once there is space again,
    the next append lands right after the last whole batch and every batch reads back"""
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
    """a write that fails after some of its index entries were written leaves the .log,
    both indexes and the counters as before it"""
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
    """a real broker whose disk fills up answers KAFKA_STORAGE_ERROR, reports the log dir offline, and once
    there is space appends right after the last whole batch"""
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
    assert fetch_offsets(client,
                         "lab12") == list(range(8)), "a consumer must read every offset, nothing torn between"
    assert metric(broker, OFFLINE_DIRS) == 0
    client.close()


# ------------------------------------------------------------------ step 6: a hostile client (issue 27)
# Nothing here is the exercise: the step watches bounds the broker already has, and these checks say
# they still hold (docs/architecture.md "Limits", docs/storage.md's LogValidator, docs/kraft.md's bounds).

POOL = "kafka_network_socketserver_memorypoolavailable"
POOL_BYTES = 2 * 1024 * 1024
# The step's broker, with the idle limit of the page (10 s) cut to 1 s so the check is quick.
STEP_6 = {"connections.max.idle.ms": "1000", "socket.request.max.bytes": str(1024 * 1024),
          "queued.max.request.bytes": str(POOL_BYTES)}
MILLION = 1_000_000


@pytest.fixture
def hostile_step_broker(start_broker):
    return start_broker(overrides=STEP_6)


def closed_by_broker(sock: socket.socket) -> bool:
    sock.settimeout(0.05)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def one_record(value: bytes, codec: int = 0, compressed: bool = False) -> bytes:
    now = int(time.time() * 1000)
    records = encode_records([DefaultRecord(0, now, None, value)], 0, now)
    return seal_batch(base_offset=0, attributes=codec, last_offset_delta=0, base_timestamp=now,
                      max_timestamp=now,
                      producer_id=-1, producer_epoch=-1, base_sequence=-1, records_count=1,
                      payload=compress(CompressionType(codec), records) if compressed else records)


def test_stalled_requests_pin_at_most_the_pool_and_are_closed_when_idle(hostile_step_broker):
    """four clients that announce a 1 MB request, send a fifth and stall take the memory pool (not more) and
    are closed after connections.max.idle.ms; then the pool is whole and a new client is served"""
    broker = hostile_step_broker
    stalled = [socket.create_connection(("127.0.0.1", broker.port), timeout=10) for _ in range(4)]
    for sock in stalled:
        sock.sendall(struct.pack(">i", 1_000_000) + bytes(200_000))
    wait_until(lambda: metric(broker, POOL) == POOL_BYTES - 3_000_000, timeout=10,
               message="three stalled requests to hold buffers (the pool is not strict) and the fourth to "
                       "wait")
    wait_until(lambda: all(closed_by_broker(sock) for sock in stalled), timeout=15,
               message="the broker to close the stalled connections as idle (connections.max.idle.ms)")
    wait_until(lambda: metric(broker, POOL) == POOL_BYTES, message="the pool to have all its memory back")
    client = WireClient(broker.port)
    assert client.request(ApiKey.API_VERSIONS, 3, {"client_software_name": "lab12",
                                                   "client_software_version": "1"}).error_code == Errors.NONE
    for sock in [*stalled, client.sock]:
        sock.close()


def test_poisoned_batches_are_refused_and_consumers_read_on(hostile_step_broker):
    """an unknown codec, a codec over data it cannot decompress and a zstd bomb are refused with Kafka's
    codes, and a consumer reads the good records on either side"""
    client = WireClient(hostile_step_broker.port)
    assert create(client, "lab12-hostile").error_code == Errors.NONE
    zstd = int(CompressionType.ZSTD)
    bomb = one_record(bytes(64 * 1024 * 1024), zstd, compressed=True)
    assert len(bomb) < 64 * 1024, "64 MiB of zeros should compress to a few KB"
    answers = [produce(client, "lab12-hostile", records) for records in (
        one_record(b"before"), one_record(b"x", codec=5), one_record(b"x", codec=zstd), bomb,
        one_record(b"after"))]
    assert [Errors.for_code(a.error_code).name for a in answers] == [
        "NONE", "UNSUPPORTED_COMPRESSION_TYPE", "CORRUPT_MESSAGE", "MESSAGE_TOO_LARGE", "NONE"]
    assert answers[3].error_message is None  # as Kafka answers it: the broker's log says why
    assert fetch_offsets(client, "lab12-hostile") == [0, 1], "nothing of the refused batches may be appended"
    client.close()


def test_a_million_partitions_is_refused_at_once(hostile_step_broker):
    """CreateTopics and CreatePartitions asking for a million partitions answer POLICY_VIOLATION at once,
    and the broker creates nothing"""
    # at once: a broker that starts building them times out
    client = WireClient(hostile_step_broker.port, timeout=10)
    assert create(client, "lab12-hostile").error_code == Errors.NONE
    huge = client.request(ApiKey.CREATE_TOPICS, 7, {"timeout_ms": 5000, "validate_only": False, "topics": [
        {"name": "lab12-huge", "num_partitions": MILLION, "replication_factor": 1}]}).topics[0]
    grown = client.request(ApiKey.CREATE_PARTITIONS, 3,
                           {"timeout_ms": 5000, "validate_only": False, "topics": [
        {"name": "lab12-hostile", "count": MILLION, "assignments": None}]}).results[0]
    for answer in (huge, grown):
        assert (Errors.for_code(answer.error_code).name, answer.error_message) == (
            "POLICY_VIOLATION", "Excessively large number of partitions per request.")
    metadata = client.request(ApiKey.METADATA, 12, {"topics": None, "allow_auto_topic_creation": False,
                                                    "include_topic_authorized_operations": False})
    assert {t.name: len(t.partitions) for t in metadata.topics} == {"lab12-hostile": 1}
    client.close()
