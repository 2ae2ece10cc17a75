"""Acceptance (issue 27, item 7): clients of /metrics that never finish, or hang up, cost the broker
no thread each and no traceback, and Prometheus-style scrapes are served meanwhile."""

from __future__ import annotations

import os
import socket
import struct
import urllib.request

import pytest

from tests.helpers import BrokerProcess, free_port, wait_until

HELD = 250
HANG_UPS = 20
# The broker's own threads come and go a little (a scheduler task, a fetcher); one thread per held
# connection is what this rules out.
THREAD_SLACK = 20


@pytest.fixture
def broker(tmp_path):
    metrics_port = free_port()
    broker = BrokerProcess(tmp_path / "data", {"metrics.listener": f"http://127.0.0.1:{metrics_port}"})
    broker.metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
    broker.metrics_port = metrics_port
    # The broker's listener is bound before the metrics endpoint starts.
    wait_until(lambda: connectable(metrics_port), message="the metrics endpoint to accept connections")
    try:
        yield broker
    finally:
        broker.stop()


def connectable(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def thread_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def reset_sockets_held(pid: int) -> set[str]:
    """The process's sockets that the kernel's tables no longer list: TCP connections reset by the
    peer that the process has not closed yet. (The fds are listed before the tables are read, so a
    socket opened meanwhile is not mistaken for one; one closed meanwhile may be, until the next look.)"""
    held = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except FileNotFoundError:  # closed while we looked
            continue
        if target.startswith("socket:["):
            held.add(target.removeprefix("socket:[").removesuffix("]"))
    live = set()
    for table, inode_column in (("tcp", 9), ("tcp6", 9), ("udp", 9), ("udp6", 9), ("unix", 6)):
        with open(f"/proc/net/{table}") as rows:
            next(rows)
            live.update(row.split()[inode_column] for row in rows)
    return held - live


def scrape(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        return response.read()


def reset(sock: socket.socket) -> None:
    """Close with a TCP reset, as a scraper killed mid-request or a timed-out Prometheus does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def test_idle_and_half_sent_connections_hold_no_thread_and_a_scrape_is_served(broker):
    assert b"kafka_server_" in scrape(broker.metrics_url)
    before = thread_count(broker.process.pid)
    held = []
    try:
        for i in range(HELD):
            sock = socket.create_connection(("127.0.0.1", broker.metrics_port), timeout=10)
            if i % 2:  # half-sent: a request line and a header, never the blank line that ends them
                sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            held.append(sock)
        # Accepted in order: once this scrape is answered, every held connection has been accepted.
        assert b"kafka_server_" in scrape(broker.metrics_url)
        during = thread_count(broker.process.pid)
        assert during <= before + THREAD_SLACK, (
            f"{HELD} idle or half-sent connections took the broker from {before} to {during} threads")
    finally:
        for sock in held:
            sock.close()


def test_scrapers_that_hang_up_leave_one_line_each_and_no_traceback(broker):
    wait_until(lambda: not reset_sockets_held(broker.process.pid), message="no reset connection held")
    for i in range(HANG_UPS):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)  # the answer cannot all fit on our side
        sock.connect(("127.0.0.1", broker.metrics_port))
        if i % 4 == 0:  # gone mid-request
            sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        else:  # gone before or during the answer
            sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            if i % 2:
                sock.recv(64)
        reset(sock)

    # Connections are accepted in order: once this scrape is answered, every one of theirs is a socket
    # of the broker's, and the broker is done with them when it has closed them all.
    assert b"kafka_server_" in scrape(broker.metrics_url)
    wait_until(lambda: not reset_sockets_held(broker.process.pid), timeout=15,
               message="the broker to close the connections of the scrapers that hung up")
    output = broker.output()
    assert "Traceback" not in output
    went_away = [line for line in output.splitlines() if "went away" in line]
    assert len(went_away) <= HANG_UPS
    assert all(name not in line for line in output.splitlines() if line not in went_away
               for name in ("BrokenPipeError", "ConnectionResetError"))
