"""Zero-copy fetch (seed 002): a fetch response's records go from the segment file to the socket
with os.sendfile, and the slices' file descriptors never leak, whatever the client or the topic
does meanwhile. The broker runs in this process, so its descriptors are /proc/self/fd."""

from __future__ import annotations

import os
import socket
import struct

from kafka.clients.admin import AdminClient, NewTopic
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.header import decode_response, encode_request
from kafka.protocol.record_batch import build_batch
from tests.helpers import unique_topic, wait_until
from tests.wire import WireClient

VALUE = b"z" * 100_000


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def create_and_fill(broker, batches: int) -> str:
    topic = unique_topic("zc")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        assert admin.create_topics([NewTopic(topic, 1, 1)])[topic] is None
    client = WireClient(broker.port)
    try:
        for _ in range(batches):
            response = client.request(ApiKey.PRODUCE, 9, {"acks": 1, "timeout_ms": 5000, "topic_data": [
                {"name": topic, "partition_data": [{"index": 0, "records": build_batch([(b"k", VALUE)])}]}]})
            assert response.responses[0].partition_responses[0].error_code == 0
    finally:
        client.close()
    return topic


def fetch_frame(topic: str, max_bytes: int) -> bytes:
    body = dict(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=max_bytes, isolation_level=0,
                session_id=0,
                session_epoch=-1, rack_id="", forgotten_topics_data=[],
                topics=[dict(topic=topic, partitions=[dict(
                    partition=0, current_leader_epoch=-1, fetch_offset=0, last_fetched_epoch=-1,
                    log_start_offset=-1,
                    partition_max_bytes=max_bytes)])])
    return encode_request(APIS[ApiKey.FETCH], 12, 7, "zero-copy-test", body)


def segment_bytes(broker, topic: str) -> bytes:
    return (broker.data_dir / f"{topic}-0" / "00000000000000000000.log").read_bytes()


def test_a_fetch_sends_the_segment_files_bytes(broker):
    topic = create_and_fill(broker, 5)
    client = WireClient(broker.port)
    try:
        client.send_frame(fetch_frame(topic, 10 << 20))
        _, response = decode_response(APIS[ApiKey.FETCH], 12, client.read_frame())
    finally:
        client.close()
    records = response.responses[0].partitions[0].records
    assert bytes(records) == segment_bytes(broker, topic), "byte for byte what the .log file holds"


def test_a_client_that_disconnects_mid_transfer_leaks_no_descriptor(broker):
    topic = create_and_fill(broker, 40)  # 4 MB: far more than the socket buffers hold
    baseline = open_fds()
    for _ in range(3):
        sock = socket.create_connection(("127.0.0.1", broker.port))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(fetch_frame(topic, 10 << 20))
        sock.recv(1024)  # the response has started...
        sock.close()  # ...and the client is gone
    wait_until(lambda: open_fds() <= baseline, timeout=15, message="every slice's descriptor closed")


def test_a_topic_deleted_while_its_segment_is_being_sent(broker):
    topic = create_and_fill(broker, 120)  # 12 MB: more than the socket buffers of both ends hold
    expected = segment_bytes(broker, topic)
    baseline = open_fds()
    sock = socket.create_connection(("127.0.0.1", broker.port))
    try:
        sock.sendall(fetch_frame(topic, 16 << 20))
        (size,) = struct.unpack(">i", receive(sock, 4))
        first = receive(sock, 1024)
        with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
            assert admin.delete_topics([topic])[topic] is None
        wait_until(lambda: not (broker.data_dir / f"{topic}-0").exists(), timeout=30,
                   message="the log deleted")
        rest = receive(sock, size - len(first))  # the slice still reads the unlinked file
    finally:
        sock.close()
    _, response = decode_response(APIS[ApiKey.FETCH], 12, first + rest)
    assert bytes(response.responses[0].partitions[0].records) == expected
    wait_until(lambda: open_fds() <= baseline, timeout=15, message="the deleted file let go")


def receive(sock: socket.socket, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(min(n, 65536))
        assert chunk, "the broker closed the connection"
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)
