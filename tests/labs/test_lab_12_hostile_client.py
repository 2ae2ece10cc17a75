"""Lab 12, step 6, a hostile client (docs/labs/12-break-it.md): a real broker, run with the step's
low limits, meets a client that stalls mid-request, one that sends poisoned batches and one that
asks for a million partitions, and keeps serving everyone else.

Issue 27: what one client can do to a broker is bounded (docs/architecture.md "Limits",
docs/storage.md's LogValidator, docs/kraft.md's request bounds). Nothing here is an exercise: the
step is to watch the bounds work, and these checks say they still do.
"""

from __future__ import annotations

import socket
import struct
import time

import pytest

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.compression import CompressionType, compress
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import DefaultRecord, encode_records, seal_batch
from tests.helpers import wait_until
from tests.integration.test_full_disk import create, fetch_offsets, metric, produce
from tests.wire import WireClient

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
    return seal_batch(base_offset=0, attributes=codec, last_offset_delta=0, base_timestamp=now, max_timestamp=now,
                      producer_id=-1, producer_epoch=-1, base_sequence=-1, records_count=1,
                      payload=compress(CompressionType(codec), records) if compressed else records)


def test_stalled_requests_pin_at_most_the_pool_and_are_closed_when_idle(hostile_step_broker):
    """four clients that announce a 1 MB request, send a fifth and stall take the memory pool (not more) and are closed after connections.max.idle.ms; then the pool is whole and a new client is served"""
    broker = hostile_step_broker
    stalled = [socket.create_connection(("127.0.0.1", broker.port), timeout=10) for _ in range(4)]
    for sock in stalled:
        sock.sendall(struct.pack(">i", 1_000_000) + bytes(200_000))
    wait_until(lambda: metric(broker, POOL) == POOL_BYTES - 3_000_000, timeout=10,
               message="three stalled requests to hold buffers (the pool is not strict) and the fourth to wait")
    wait_until(lambda: all(closed_by_broker(sock) for sock in stalled), timeout=15,
               message="the broker to close the stalled connections as idle (connections.max.idle.ms)")
    wait_until(lambda: metric(broker, POOL) == POOL_BYTES, message="the pool to have all its memory back")
    client = WireClient(broker.port)
    assert client.request(ApiKey.API_VERSIONS, 3, {"client_software_name": "lab12",
                                                   "client_software_version": "1"}).error_code == Errors.NONE
    for sock in [*stalled, client.sock]:
        sock.close()


def test_poisoned_batches_are_refused_and_consumers_read_on(hostile_step_broker):
    """an unknown codec, a codec over data it cannot decompress and a zstd bomb are refused with Kafka's codes, and a consumer reads the good records on either side"""
    client = WireClient(hostile_step_broker.port)
    assert create(client, "lab12-hostile").error_code == Errors.NONE
    zstd = int(CompressionType.ZSTD)
    bomb = one_record(bytes(64 * 1024 * 1024), zstd, compressed=True)
    assert len(bomb) < 64 * 1024, "64 MiB of zeros should compress to a few KB"
    answers = [produce(client, "lab12-hostile", records) for records in (
        one_record(b"before"), one_record(b"x", codec=5), one_record(b"x", codec=zstd), bomb, one_record(b"after"))]
    assert [Errors.for_code(a.error_code).name for a in answers] == [
        "NONE", "UNSUPPORTED_COMPRESSION_TYPE", "CORRUPT_MESSAGE", "MESSAGE_TOO_LARGE", "NONE"]
    assert "max.message.bytes" in answers[3].error_message
    assert fetch_offsets(client, "lab12-hostile") == [0, 1], "nothing of the refused batches may be appended"
    client.close()


def test_a_million_partitions_is_refused_at_once(hostile_step_broker):
    """CreateTopics and CreatePartitions asking for a million partitions answer POLICY_VIOLATION at once, and the broker creates nothing"""
    client = WireClient(hostile_step_broker.port, timeout=10)  # at once: a broker that starts building them times out
    assert create(client, "lab12-hostile").error_code == Errors.NONE
    huge = client.request(ApiKey.CREATE_TOPICS, 7, {"timeout_ms": 5000, "validate_only": False, "topics": [
        {"name": "lab12-huge", "num_partitions": MILLION, "replication_factor": 1}]}).topics[0]
    grown = client.request(ApiKey.CREATE_PARTITIONS, 3, {"timeout_ms": 5000, "validate_only": False, "topics": [
        {"name": "lab12-hostile", "count": MILLION, "assignments": None}]}).results[0]
    for answer in (huge, grown):
        assert (Errors.for_code(answer.error_code).name, answer.error_message) == (
            "POLICY_VIOLATION", "Excessively large number of partitions per request.")
    metadata = client.request(ApiKey.METADATA, 12, {"topics": None, "allow_auto_topic_creation": False,
                                                    "include_topic_authorized_operations": False})
    assert {t.name: len(t.partitions) for t in metadata.topics} == {"lab12-hostile": 1}
    client.close()
