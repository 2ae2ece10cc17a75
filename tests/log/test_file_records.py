"""FileRecords and ResponseSend: a fetch response whose records stay in the segment file is, on the
wire, byte for byte the response with the records copied in; a slice survives its file's deletion
and refuses to send past a truncated end."""

from __future__ import annotations

import os
import socket

import pytest

from kafka.log.file_records import FileRecords, TimestampAndOffset
from kafka.network.kafka_channel import KafkaChannel
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.header import encode_response
from kafka.protocol.record_batch import build_batch

RECORDS = build_batch([(b"k", b"v" * 50_000)] * 4)


def slice_of(tmp_path, data: bytes = RECORDS, prefix: bytes = b"junk") -> FileRecords:
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(prefix + data)
    fd = os.open(path, os.O_RDONLY)
    try:
        return FileRecords.slice_of(fd, len(prefix), len(data))
    finally:
        os.close(fd)  # the slice has its own descriptor


def fetch_response(records) -> dict:
    return dict(throttle_time_ms=0, error_code=0, session_id=0, responses=[dict(topic="t", partitions=[dict(
        partition_index=0, error_code=0, high_watermark=4, last_stable_offset=4, log_start_offset=0,
        aborted_transactions=None, preferred_read_replica=-1, records=records)])])


def send_through_a_socket(payload) -> bytes:
    """What a peer reads when a KafkaChannel writes `payload` (with a small send buffer: partial writes)."""
    ours, theirs = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)
    ours.setblocking(False)
    channel = KafkaChannel("c", ours, "peer", 1 << 20)
    channel.set_send(payload)
    received = bytearray()
    while not channel.write_to_socket():
        received += theirs.recv(1 << 20)
    ours.close()
    while chunk := theirs.recv(1 << 20):
        received += chunk
    theirs.close()
    return bytes(received)


@pytest.mark.parametrize("version", [4, 12])
def test_a_zero_copy_response_is_the_same_bytes_on_the_wire(tmp_path, version):
    api = APIS[ApiKey.FETCH]
    copied = bytes(encode_response(api, version, 9, fetch_response(RECORDS)))
    sliced = encode_response(api, version, 9, fetch_response(slice_of(tmp_path)))
    assert len(sliced) < len(copied) and sliced.size == len(copied), "the records are not in the buffer"
    assert send_through_a_socket(sliced) == copied


def test_a_slice_reads_its_file_after_the_file_is_deleted(tmp_path):
    records = slice_of(tmp_path)
    os.remove(tmp_path / "00000000000000000000.log")  # retention or DeleteTopics
    assert records.read_all() == RECORDS
    records.close()
    assert records.closed


def test_a_slice_of_a_file_truncated_under_it_is_an_error(tmp_path):
    records = slice_of(tmp_path)
    os.truncate(tmp_path / "00000000000000000000.log", 1000)
    with pytest.raises(OSError, match="truncated"):
        send_through_a_socket(encode_response(APIS[ApiKey.FETCH], 12, 9, fetch_response(records)))


def three_batches(tmp_path) -> tuple[int, bytes]:
    """A file of batches at offsets 0-1, 2-4 and 5 with timestamps 100, 200 and 300; an open descriptor."""
    data = b"".join(bytes(build_batch([(b"k", b"v")] * count, base_offset=base, timestamp=timestamp))
                    for base, count, timestamp in ((0, 2, 100), (2, 3, 200), (5, 1, 300)))
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(data)
    return os.open(path, os.O_RDONLY), data


def test_a_view_walks_batch_headers_and_finds_offsets_and_timestamps(tmp_path):
    """Kafka's FileRecords scans: batchesFrom, searchForOffsetWithSize, searchForTimestamp."""
    fd, data = three_batches(tmp_path)
    try:
        records = FileRecords.view(fd, len(data))
        walked = list(records.batches_from(0))
        second = walked[0][1].size_in_bytes
        assert [(p, b.base_offset) for p, b in walked] == [(0, 0), (second, 2),
                                                           (second + walked[1][1].size_in_bytes, 5)]
        found = records.search_for_offset_with_size(3, 0)
        assert found is not None and found[0] == second and found[1].base_offset == 2
        assert records.search_for_offset_with_size(6, 0) is None
        assert records.search_for_timestamp(150, 0, 0) == TimestampAndOffset(200, 2)
        from_second = records.search_for_timestamp(200, second, 3)
        assert from_second == TimestampAndOffset(200, 3), "from starting_offset on"
        assert records.search_for_timestamp(301, 0, 0) is None
        torn = FileRecords.view(fd, len(data) - 1)
        assert torn.search_for_offset_with_size(5, 0) is None, "a torn tail is no batch"
        records.close()
        assert not records.closed and os.fstat(fd), "a view never closes the descriptor it borrows"
    finally:
        os.close(fd)
