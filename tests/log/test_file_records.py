"""FileRecords and ResponseSend: a fetch response whose records stay in the segment file is, on the
wire, byte for byte the response with the records copied in; a slice survives its file's deletion
and refuses to send past a truncated end."""

from __future__ import annotations

import os
import socket

import pytest

from kafka.log.file_records import FileRecords
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
