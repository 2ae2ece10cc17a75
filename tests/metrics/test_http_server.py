"""HTTPServer on a MockTime: silent connections are closed after the idle timeout, half-sent ones
after the read timeout, the oldest is closed to admit one past MAX_CONNECTIONS, and a complete
request is answered by the pool. Real sockets on loopback; only the clock is a mock."""

from __future__ import annotations

import socket

import pytest

from kafka.metrics import http_server
from kafka.metrics.http_server import IDLE_TIMEOUT_MS, READ_TIMEOUT_MS, HTTPServer
from kafka.utils.time import MockTime
from tests.helpers import wait_until


def answer(sock: socket.socket, client: tuple, head: bytes) -> None:
    sock.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")


@pytest.fixture
def server():
    time = MockTime()
    server = HTTPServer("127.0.0.1", 0, answer, time)
    server.startup()
    try:
        yield server
    finally:
        server.shutdown()


def connect(server: HTTPServer, data: bytes = b"") -> socket.socket:
    sock = socket.create_connection(server.server_address, timeout=5)
    if data:
        sock.sendall(data)
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def wake(server: HTTPServer) -> None:
    """A new connection wakes the selector, which then closes what the mock clock says has expired."""
    connect(server).close()


def test_a_complete_request_is_answered(server):
    with connect(server, b"GET /metrics HTTP/1.1\r\n\r\n") as sock:
        assert sock.recv(100).endswith(b"ok")


def test_silent_and_half_sent_connections_are_closed_after_their_timeouts(server):
    idle = connect(server)
    half_sent = connect(server, b"GET /metrics HTTP/1.1\r\n")
    wait_until(lambda: sorted(server.waiting().values()) == [0, len(b"GET /metrics HTTP/1.1\r\n")],
               message="the server to read the half-sent request")

    server.time.advance(READ_TIMEOUT_MS)
    wake(server)
    wait_until(lambda: closed_by_server(half_sent), message="the half-sent connection to be closed")
    assert not closed_by_server(idle)

    server.time.advance(IDLE_TIMEOUT_MS - READ_TIMEOUT_MS)
    wake(server)
    wait_until(lambda: closed_by_server(idle), message="the idle connection to be closed")


def test_the_oldest_waiting_connection_is_closed_to_admit_a_new_one(server, monkeypatch):
    monkeypatch.setattr(http_server, "MAX_CONNECTIONS", 3)
    oldest, *others = [connect(server) for _ in range(3)]
    wait_until(lambda: len(server.waiting()) == 3, message="three connections waiting")
    with connect(server, b"GET / HTTP/1.1\r\n\r\n") as newest:
        assert newest.recv(100).endswith(b"ok")
    wait_until(lambda: closed_by_server(oldest), message="the oldest connection to be closed")
    assert not any(closed_by_server(sock) for sock in others)
