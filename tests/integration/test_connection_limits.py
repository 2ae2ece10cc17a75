"""Acceptance (issue 27, items 1 and 5): a hostile client's connections cannot take the broker down.

Raw sockets against a real broker: connections that go silent are closed after
connections.max.idle.ms; frames that announce much and send little pin no more than
queued.max.request.bytes; the connection quotas refuse, block and delay as Kafka's do; and running
out of file descriptors makes the Acceptor pause, not spin, and serve again once they come back.
"""

from __future__ import annotations

import os
import re
import resource
import select
import socket
import struct
import time
from pathlib import Path

import pytest

from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.header import decode_response, encode_request
from tests.helpers import wait_until
from tests.metrics.scrape import scrape
from tests.wire import WireClient

API_VERSIONS = {"client_software_name": "t", "client_software_version": "1"}
MiB = 1024 * 1024


def closed_by_broker(sock: socket.socket) -> bool:
    """True once the broker has closed `sock` (without waiting when it has not)."""
    if not select.select([sock], [], [], 0)[0]:
        return False
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BlockingIOError):
        return True


def served(client: WireClient) -> bool:
    return client.request(ApiKey.API_VERSIONS, 3, API_VERSIONS).error_code == 0


def no_answer_within(client: WireClient, seconds: float) -> bool:
    return not select.select([client.sock], [], [], seconds)[0]


def sum_by_processor(broker, name: str) -> float:
    return sum(value for (sample, _), value in scrape(broker).samples.items() if sample == name)


def test_a_silent_connection_is_closed_after_connections_max_idle_ms(start_broker):
    broker = start_broker(overrides={"connections.max.idle.ms": "500"})
    silent = socket.create_connection(("127.0.0.1", broker.port), timeout=10)
    wait_until(lambda: closed_by_broker(silent), timeout=10,
               message="the broker to close the idle connection")
    assert sum_by_processor(broker, "kafka_server_socket_server_metrics_connection_close_total") >= 1
    assert served(WireClient(broker.port))  # a new client is welcome all the same
    silent.close()


def test_stalled_frames_pin_no_more_than_queued_max_request_bytes_and_go_when_idle(start_broker):
    broker = start_broker(overrides={"socket.request.max.bytes": str(MiB),
                                     "queued.max.request.bytes": str(2 * MiB),
                                     "connections.max.idle.ms": "2000"})
    pool = broker.server.socket_server.memory_pool
    stalled = []
    for _ in range(8):  # each announces a 1,000,000-byte frame, sends a fifth of it and stalls
        sock = socket.create_connection(("127.0.0.1", broker.port), timeout=10)
        sock.sendall(struct.pack(">i", 1_000_000) + b"\x00" * 200_000)
        stalled.append(sock)
    processors = broker.server.socket_server.processors
    muted = wait_until(lambda: [c for p in processors for c in list(p.selector.channels.values())
                                if c.muted_for_memory]
                       if sum(len(p.selector._muted_for_memory) for p in processors) == 5 else None,
                       message="five connections muted for memory")
    assert len(muted) == 5  # three frames got buffers (the pool is not strict), the others wait
    metrics = scrape(broker)
    used = metrics.value("kafka_network_socketserver_memorypoolused")
    assert used == 3_000_000 <= 2 * MiB + MiB  # the bound, overshot by less than one request
    assert metrics.value("kafka_network_socketserver_memorypoolavailable") == 2 * MiB - 3_000_000
    wait_until(lambda: all(closed_by_broker(s) for s in stalled), timeout=15,
               message="the stalled connections to be closed as idle")
    wait_until(lambda: pool.available_memory == 2 * MiB, message="the pool to have all its memory back")
    assert scrape(broker).value("kafka_server_socket_server_metrics_memorypooldepletedtimetotal") > 0
    assert served(WireClient(broker.port))
    for sock in stalled:
        sock.close()


def test_a_connection_over_max_connections_per_ip_is_closed_at_once(start_broker):
    # The tests' "hosts" are other loopback addresses; 127.0.0.1 (the broker's own) is left unlimited.
    broker = start_broker(overrides={"max.connections.per.ip": "2",
                                     "max.connections.per.ip.overrides": "127.0.0.1:1000,127.0.0.3:3"})
    host_2 = [WireClient(broker.port, source_address="127.0.0.2") for _ in range(3)]
    wait_until(lambda: closed_by_broker(host_2[2].sock),
               message="the third connection from 127.0.0.2 to close")
    assert served(host_2[0]) and served(host_2[1])
    host_3 = [WireClient(broker.port, source_address="127.0.0.3") for _ in range(4)]
    wait_until(lambda: closed_by_broker(host_3[3].sock),
               message="the fourth connection from 127.0.0.3 to close")
    assert all(served(client) for client in host_3[:3])
    host_2[0].close()  # a closed connection frees its slot
    wait_until(lambda: broker.server.socket_server.connection_quotas.get("127.0.0.2") == 1,
               message="the broker to count the close")
    assert served(WireClient(broker.port, source_address="127.0.0.2"))


def test_at_max_connections_the_acceptor_waits_until_one_closes(start_broker):
    broker = start_broker(overrides={"max.connections": "6"})
    socket_server = broker.server.socket_server
    held = [WireClient(broker.port) for _ in range(6)]
    assert all(served(client) for client in held)
    waiting = WireClient(broker.port)  # the kernel completes the handshake; the broker does not take it
    wait_until(lambda: socket_server.connection_quotas.waiting_acceptors == 1,
               message="the acceptor to block")
    api = APIS[ApiKey.API_VERSIONS]
    waiting.send_frame(encode_request(api, 3, 1, "t", API_VERSIONS))
    assert no_answer_within(waiting, 0.3)
    held.pop().close()
    _, response = decode_response(api, 3, waiting.read_frame())  # answered once a slot is free
    assert response.error_code == 0
    assert socket_server.acceptors["PLAINTEXT"].blocked_time_ns > 0
    assert scrape(broker).value("kafka_network_acceptor_acceptorblockedpercent", listener="PLAINTEXT") > 0


def test_over_max_connection_creation_rate_the_acceptor_delays_and_still_serves_everyone(start_broker):
    broker = start_broker(overrides={"max.connection.creation.rate": "2"})
    acceptor = broker.server.socket_server.acceptors["PLAINTEXT"]
    clients = []
    for _ in range(22):  # Kafka's rate counts at least 10 s: the first 20 are within 2/s
        client = WireClient(broker.port)
        assert served(client)
        clients.append(client)
    assert acceptor.blocked_time_ns >= 400_000_000  # the 21st waited half a second, the 22nd a second
    for client in clients:
        client.close()


@pytest.fixture
def low_descriptor_broker(broker_process):
    """A broker process whose descriptor limit, lowered once it is up, leaves room for 20 more."""
    broker = broker_process()
    wait_until(lambda: re.search(r"\] started +\[kafka\.server\.KafkaServer\]", broker.output()),
               message="the broker to finish starting")
    limit = len(list(Path(f"/proc/{broker.process.pid}/fd").iterdir())) + 20
    resource.prlimit(broker.process.pid, resource.RLIMIT_NOFILE, (limit, limit + 1024))
    return broker


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def test_out_of_descriptors_the_acceptor_pauses_logs_once_and_serves_again(low_descriptor_broker):
    broker = low_descriptor_broker
    pid = broker.process.pid
    clients = [socket.create_connection(("127.0.0.1", broker.port), timeout=10) for _ in range(60)]
    wait_until(lambda: "Too many open files" in broker.output(), message="the acceptor to run out")
    lines_before, cpu_before = len(broker.output().splitlines()), cpu_seconds(pid)
    time.sleep(3)  # the measurement window: a spinning acceptor writes thousands of lines in it
    window_lines = broker.output().splitlines()[lines_before:]
    assert len([line for line in window_lines if "accept failed" in line]) <= 1
    assert cpu_seconds(pid) - cpu_before < 1.5  # half a core at most, however busy this machine is
    for client in clients:
        client.close()
    fresh = wait_until(lambda: _served_or_none(broker.port), timeout=20, message="a new client to be served")
    fresh.close()
    assert len(broker.output().splitlines()) < 200


def _served_or_none(port: int) -> WireClient | None:
    try:
        client = WireClient(port, timeout=2)
        if served(client):
            return client
    except OSError:
        pass
    return None
