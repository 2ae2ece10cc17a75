"""SslTransportLayer on a socketpair, no broker: one recv_into reads every TLS record the socket holds
(up to the buffer), where one SSL read gives at most one record of 16 KiB; BlockingIOError only when
nothing was read; 0 at the peer's close_notify; encrypted bytes the socket refuses wait for flush."""

from __future__ import annotations

import socket
import ssl
import time

import pytest

from kafka.security.ssl_transport_layer import SslTransportLayer
from tests.security.certificates import Certificates

pytestmark = pytest.mark.fast

TLS_RECORD = 16 * 1024  # the largest plaintext one TLS record carries


@pytest.fixture
def pair(tmp_path):
    """(server transport, client SSLSocket), handshaken over a socketpair."""
    certs = Certificates.create(tmp_path)
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(certs.broker_keystore)
    client_context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    client_context.load_verify_locations(certs.ca_file)
    client_context.check_hostname = False
    server_sock, client_sock = socket.socketpair()
    server_sock.setblocking(False)
    server = SslTransportLayer(server_sock, server_context, server_side=True)
    client = client_context.wrap_socket(client_sock, do_handshake_on_connect=False)
    client.setblocking(False)
    for _ in range(100):  # each side takes its turn until both are done; a handshake is a few round trips
        try:
            client.do_handshake()
            client_done = True
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            client_done = False
        if server.handshake() == 0 and client_done:
            break
    else:
        pytest.fail("the TLS handshake did not finish")
    client.setblocking(True)
    yield server, client
    client.close()
    server.socket.close()


def test_one_call_reads_every_record_the_socket_holds(pair):
    server, client = pair
    client.sendall(b"x" * (8 * TLS_RECORD))  # eight records, all in the socket's buffer by now
    buffer = bytearray(1024 * 1024)
    read = server.recv_into(buffer)
    assert read == 8 * TLS_RECORD
    assert buffer[:read] == b"x" * read


def test_it_stops_at_nbytes_and_the_rest_stays_readable(pair):
    server, client = pair
    client.sendall(b"a" * 100 + b"b" * 50)
    buffer = bytearray(1024)
    assert server.recv_into(buffer, 100) == 100 and buffer[:100] == b"a" * 100
    assert server.has_bytes_buffered()  # the rest of the record, decrypted, where the selector cannot see it
    assert server.recv_into(buffer) == 50 and buffer[:50] == b"b" * 50


def test_nothing_to_read_is_a_blocking_io_error_and_a_close_notify_is_zero(pair):
    server, client = pair
    with pytest.raises(BlockingIOError):
        server.recv_into(bytearray(1024))
    client.sendall(b"last")
    client.setblocking(False)
    with pytest.raises(ssl.SSLWantReadError):
        client.unwrap()  # sends close_notify, then would wait for the server's
    buffer = bytearray(1024)
    assert server.recv_into(buffer) == 4 and buffer[:4] == b"last"
    assert server.recv_into(buffer) == 0


def test_encrypted_bytes_the_socket_cannot_take_wait_and_go_first(pair):
    """Once encrypted, bytes cannot be handed back: what the socket refuses is a pending write, sent
    by flush before anything new, and a send meanwhile is refused whole."""
    server, client = pair
    server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)
    taken = 0
    with pytest.raises(BlockingIOError):
        for _ in range(1000):  # until the socket and its peer's buffer are full
            taken += server.send(b"y" * TLS_RECORD)
    assert server.has_pending_writes() and taken > 0
    client.setblocking(False)
    received = bytearray()
    deadline = time.monotonic() + 10
    while len(received) < taken and time.monotonic() < deadline:
        server.flush()
        try:
            received += client.recv(1 << 20)
        except ssl.SSLWantReadError:
            pass
    assert received == b"y" * taken
    assert server.flush() and not server.has_pending_writes()
