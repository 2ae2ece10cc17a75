"""Acceptance under load: 1,000 concurrent connections and 200 short-lived producers at once, against
the broker as a user starts it (its own process, so its descriptors and memory can be counted in
/proc). The broker keeps serving, memory per connection is bounded, and every descriptor comes back.
"""

from __future__ import annotations

import os
import resource
import socket
import struct
from concurrent.futures import ThreadPoolExecutor

from kafka.clients.producer import KafkaProducer
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import encode_request
from tests.helpers import unique_topic, wait_until
from tests.wire import WireClient

CONNECTIONS = 1000
PRODUCERS = 200
RECORDS_PER_PRODUCER = 5
MAX_BYTES_PER_CONNECTION = 64 * 1024  # a few buffers and a channel object, not a copy of anything big


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def settled_fds(pid: int) -> int:
    """The descriptor count once it has stopped changing (connections just closed are let go)."""
    readings = [open_fds(pid)]

    def steady() -> bool:
        readings.append(open_fds(pid))
        return len(readings) >= 5 and len(set(readings[-5:])) == 1

    wait_until(steady, timeout=30, interval=0.1, message="a steady descriptor count")
    return readings[-1]


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))


def latest_offset(port: int, topic: str) -> int:
    client = WireClient(port)
    try:
        response = client.request(ApiKey.LIST_OFFSETS, 7, {"replica_id": -1, "isolation_level": 0, "topics": [
            {"name": topic, "partitions": [{"partition_index": 0, "timestamp": -1}]}]})
        return response.topics[0].partitions[0].offset
    finally:
        client.close()


def test_a_thousand_connections_and_two_hundred_short_lived_producers(broker_process):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = CONNECTIONS * 2 + 1024  # this process's sockets, and the broker's (it inherits the limit)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    broker = broker_process(overrides={"num.partitions": "1"})
    pid = broker.process.pid
    topic = unique_topic("load")
    client = WireClient(broker.port)
    created = client.request(ApiKey.CREATE_TOPICS, 7, {
        "topics": [{"name": topic, "num_partitions": 1, "replication_factor": 1}], "timeout_ms": 5000})
    assert created.topics[0].error_code == Errors.NONE
    client.close()
    wait_until(lambda: latest_offset(broker.port, topic) == 0, message="the topic")
    idle_fds = settled_fds(pid)  # our set-up connections' descriptors are given back first
    idle_rss = rss_bytes(pid)

    # 1,000 connections, each with a request answered, all open at once.
    api_versions = bytes(encode_request(APIS[ApiKey.API_VERSIONS], 3, 1, "load",
                                        {"client_software_name": "load", "client_software_version": "1"}))
    sockets = []
    try:
        for _ in range(CONNECTIONS):
            s = socket.create_connection(("127.0.0.1", broker.port), timeout=60)
            s.sendall(api_versions)
            sockets.append(s)
        for s in sockets:
            (size,) = struct.unpack(">i", _read(s, 4))
            assert struct.unpack_from(">ih", _read(s, size))[1] == Errors.NONE
        peak_fds = open_fds(pid)
        assert peak_fds >= idle_fds + CONNECTIONS
        per_connection = (rss_bytes(pid) - idle_rss) / CONNECTIONS
        print(f"broker: {idle_fds} descriptors idle, {peak_fds} with {CONNECTIONS} connections, "
              f"{per_connection:.0f} bytes of RSS per connection")
        assert per_connection < MAX_BYTES_PER_CONNECTION, f"{per_connection:.0f} bytes per connection"

        # ... and meanwhile 200 producers come, send, and go, all at once.
        def one_producer(n: int) -> None:
            with KafkaProducer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5}) as producer:
                for i in range(RECORDS_PER_PRODUCER):
                    producer.send(topic, f"v{n}-{i}", key=f"k{n}")
                producer.flush(120)

        with ThreadPoolExecutor(PRODUCERS) as pool:
            list(pool.map(one_producer, range(PRODUCERS)))
        assert latest_offset(broker.port, topic) == PRODUCERS * RECORDS_PER_PRODUCER  # every one of them
    finally:
        for s in sockets:
            s.close()
    # Every connection's descriptor is given back once the clients hang up.
    wait_until(lambda: open_fds(pid) <= idle_fds, timeout=60,
               message=f"the broker's descriptors back to {idle_fds} (now {open_fds(pid)})")
    assert latest_offset(broker.port, topic) == PRODUCERS * RECORDS_PER_PRODUCER  # still serving


def _read(s: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed by the broker")
        data += chunk
    return data
