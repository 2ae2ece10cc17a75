"""Selector over real loopback sockets, with no Processor and no RequestChannel: frames in, sends out,
mute and unmute, connections the peer closes, frames over the limit, idle expiry on MockTime, a pool
with no memory left, a TLS handshake driven by the poll, and SASL logins that succeed and fail."""

from __future__ import annotations

import fcntl
import socket
import ssl
import struct
import termios
import time as wall

import pytest
import structlog

from kafka.network.channel_builder import PlaintextChannelBuilder
from kafka.network.memory_pool import UNBOUNDED, SimpleMemoryPool
from kafka.network.sasl_channel_builder import SaslChannelBuilder
from kafka.network.selector import Selector
from kafka.network.ssl_channel_builder import SslChannelBuilder
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import decode_response, encode_request
from kafka.security.credential_cache import CredentialCache
from kafka.security.jaas_context import JaasContext
from kafka.security.sasl_configs import SaslListenerConfig
from kafka.security.security_protocol import SecurityProtocol
from kafka.utils.repeated_error_log import RepeatedErrorLog
from kafka.utils.time import MockTime
from tests.helpers import wait_until
from tests.security.certificates import Certificates

pytestmark = pytest.mark.fast

MAX_RECEIVE = 64 * 1024


def frame(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload


class Loopback:
    """A Selector and the client ends of the connections registered with it."""

    def __init__(self, time: MockTime, idle_ms: int = -1, pool=UNBOUNDED, channel_builder=None,
                 failed_authentication_delay_ms: int = 0) -> None:
        log = structlog.get_logger("tests.Selector")
        self.selector = Selector(MAX_RECEIVE, idle_ms, failed_authentication_delay_ms, time,
                                 channel_builder or PlaintextChannelBuilder(), pool, log,
                                 RepeatedErrorLog(log, time))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.clients: list[socket.socket] = []

    def connect(self, connection_id: str) -> socket.socket:
        client = socket.create_connection(self.listener.getsockname(), timeout=10)
        server, _ = self.listener.accept()
        server.setblocking(False)
        self.selector.register(connection_id, server, "127.0.0.1")
        self.clients.append(client)
        return client

    def poll_until(self, condition, message: str, timeout_s: float = 10.0):
        deadline = wall.monotonic() + timeout_s
        while not (result := condition()):
            if wall.monotonic() > deadline:
                pytest.fail(f"timed out waiting for {message}")
            self.selector.poll(0.05)
        return result

    def take(self, connection_id: str) -> bytes:
        """Poll until the connection's next frame is complete; take it (the caller's, as the Processor
        does)."""
        receives = self.selector.completed_receives
        receive = self.poll_until(lambda: receives.get(connection_id), f"a frame from {connection_id}")
        del receives[connection_id]
        assert receive.source == connection_id
        payload = bytes(receive.payload)
        self.selector.memory_pool.release(receive.payload)
        return payload

    def close(self) -> None:
        self.selector.close_all()
        self.listener.close()
        for client in self.clients:
            client.close()


@pytest.fixture
def time():
    return MockTime()


@pytest.fixture
def loopback(time):
    loop = Loopback(time)
    yield loop
    loop.close()


def test_each_framed_send_becomes_one_completed_receive(loopback):
    client = loopback.connect("a")
    client.sendall(frame(b"first") + frame(b"second"))
    assert loopback.take("a") == b"first"
    assert loopback.take("a") == b"second"  # one frame at a time: the second waited for the first to be taken
    assert loopback.selector.completed_receives == {}


def test_a_muted_connection_is_not_read_until_unmuted(loopback):
    client = loopback.connect("a")
    client.sendall(frame(b"request"))
    assert loopback.take("a") == b"request"
    loopback.selector.mute("a")
    client.sendall(frame(b"pipelined"))
    channel = loopback.selector.channel("a")
    # Readable while muted: the selector stops watching the socket; the frame stays in the kernel's buffer.
    loopback.poll_until(lambda: channel.interest == 0, "the muted socket no longer watched")
    loopback.selector.poll(0)
    assert loopback.selector.completed_receives == {}
    loopback.selector.unmute("a")
    assert loopback.take("a") == b"pipelined"


def test_a_send_completes_once_its_last_byte_is_written(loopback):
    client = loopback.connect("a")
    loopback.selector.send("a", frame(b"answer"))  # small: written at once
    assert loopback.selector.completed_sends == ["a"]
    assert client.recv(100) == frame(b"answer")
    loopback.selector.completed_sends.clear()

    big = b"x" * (16 * 1024 * 1024)  # more than the socket buffers hold: the poll writes the rest
    loopback.selector.send("a", big)
    assert loopback.selector.completed_sends == []
    client.setblocking(False)
    received = bytearray()

    def drained() -> bool:
        try:
            while chunk := client.recv(1 << 20):
                received.extend(chunk)
        except BlockingIOError:
            pass
        return loopback.selector.completed_sends == ["a"] and len(received) == len(big)
    loopback.poll_until(drained, "the whole send")
    assert received == big


def test_a_connection_the_peer_closes_is_reported_in_disconnected(loopback):
    loopback.connect("a")
    client_b = loopback.connect("b")
    client_b.close()
    loopback.poll_until(lambda: loopback.selector.disconnected, "the disconnect")
    assert loopback.selector.disconnected == {"b": "127.0.0.1"}
    assert list(loopback.selector.channels) == ["a"]
    assert loopback.selector.connections_created == 2 and loopback.selector.connections_closed == 1


def test_a_frame_over_the_limit_closes_that_connection_only(loopback):
    client_a = loopback.connect("a")
    client_b = loopback.connect("b")
    client_b.sendall(struct.pack(">i", MAX_RECEIVE + 1))
    loopback.poll_until(lambda: "b" in loopback.selector.disconnected,
                        "the oversized frame's connection to close")
    assert client_b.recv(1) == b""  # closed by the broker's side
    client_a.sendall(frame(b"still here"))
    assert loopback.take("a") == b"still here"


def test_a_connection_the_caller_closes_is_not_reported(loopback):
    client = loopback.connect("a")
    loopback.selector.close("a")
    loopback.selector.poll(0)
    assert loopback.selector.disconnected == {} and loopback.selector.channels == {}
    assert client.recv(1) == b""


def test_connections_silent_for_connections_max_idle_ms_are_closed(time):
    loop = Loopback(time, idle_ms=1000)
    try:
        loop.connect("quiet")
        talker = loop.connect("talker")
        time.sleep(600)
        talker.sendall(frame(b"hello"))
        assert loop.take("talker") == b"hello"  # read at 600 ms: its clock starts again
        time.sleep(500)
        loop.selector.poll(0)
        assert loop.selector.disconnected == {"quiet": "127.0.0.1"}, "silent for 1,100 ms"
        time.sleep(499)
        loop.selector.poll(0)
        assert list(loop.selector.channels) == ["talker"], "999 ms since its frame"
        time.sleep(2)
        loop.selector.poll(0)
        assert loop.selector.channels == {}
    finally:
        loop.close()


def test_a_connection_the_pool_has_no_memory_for_waits_until_memory_comes_back(time):
    pool = SimpleMemoryPool(100, 100, strict=False, nanoseconds=time.nanoseconds)
    loop = Loopback(time, pool=pool)
    try:
        first, second = loop.connect("first"), loop.connect("second")
        first.sendall(frame(b"a" * 100))
        receives = loop.selector.completed_receives
        held = loop.poll_until(lambda: receives.get("first"), "the first frame").payload  # the whole pool
        second.sendall(frame(b"b" * 10))
        channel = loop.selector.channel("second")
        loop.poll_until(lambda: channel.muted_for_memory, "the second connection muted for memory")
        assert "second" not in receives
        del receives["first"]
        pool.release(held)
        assert loop.take("second") == b"b" * 10
        assert not channel.muted_for_memory
    finally:
        loop.close()


def test_wakeup_ends_a_poll_at_once(loopback):
    started = wall.monotonic()
    loopback.selector.wakeup()
    loopback.selector.wakeup()  # a second one before the poll: one byte serves both
    loopback.selector.poll(30)
    assert wall.monotonic() - started < 10


def tls_client(loop: Loopback, certs: Certificates, connection_id: str) -> ssl.SSLSocket:
    """A client whose handshake the test drives, step by step, beside the Selector's polls."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(certs.ca_file)
    context.check_hostname = False
    client = context.wrap_socket(loop.connect(connection_id), do_handshake_on_connect=False)
    loop.clients.append(client)
    client.setblocking(False)
    return client


def handshake_step(client: ssl.SSLSocket) -> bool:
    try:
        client.do_handshake()
        return True
    except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
        return False


def test_a_tls_handshake_is_driven_by_the_poll_before_any_frame(time, tmp_path):
    certs = Certificates.create(tmp_path)
    loop = Loopback(time, channel_builder=SslChannelBuilder(certs.broker_ssl_configs()))
    try:
        client = tls_client(loop, certs, "tls")
        loop.poll_until(lambda: handshake_step(client) and loop.selector.channel("tls").ready,
                        "the handshake")
        assert loop.selector.successful_authentications == 1
        client.setblocking(True)
        client.sendall(frame(b"s" * 60_000))  # four TLS records
        assert loop.take("tls") == b"s" * 60_000
        loop.selector.send("tls", frame(b"encrypted answer"))
        assert loop.selector.completed_sends == ["tls"]
        assert client.recv(100) == frame(b"encrypted answer")
    finally:
        loop.close()


def unread_bytes(sock: socket.socket) -> int:
    return struct.unpack("i", fcntl.ioctl(sock, termios.FIONREAD, b"\0\0\0\0"))[0]


def test_a_frame_that_comes_with_the_clients_last_handshake_bytes_is_read(time, tmp_path):
    """The Finished and the first request reach the socket together: one recv takes both, and the
    request's record then waits where select cannot see it."""
    certs = Certificates.create(tmp_path)
    loop = Loopback(time, channel_builder=SslChannelBuilder(certs.broker_ssl_configs()))
    try:
        client = tls_client(loop, certs, "tls")
        loop.poll_until(lambda: handshake_step(client), "the client's side of the handshake")
        server_socket = loop.selector.channel("tls").socket
        finished = unread_bytes(server_socket)
        client.setblocking(True)
        client.sendall(frame(b"at once"))
        wait_until(lambda: unread_bytes(server_socket) > finished, message="the request behind the Finished")
        assert loop.take("tls") == b"at once"
    finally:
        loop.close()


HANDSHAKE = APIS[ApiKey.SASL_HANDSHAKE]
AUTHENTICATE = APIS[ApiKey.SASL_AUTHENTICATE]
API_VERSIONS = APIS[ApiKey.API_VERSIONS]


def sasl_loopback(time: MockTime, delay_ms: int = 0) -> Loopback:
    jaas = JaasContext.load("plain.sasl.jaas.config",
                            'org.apache.kafka.common.security.plain.PlainLoginModule required '
                            'user_alice="secret";')
    builder = SaslChannelBuilder(SecurityProtocol.SASL_PLAINTEXT, {},
                                 SaslListenerConfig(("PLAIN",), {"PLAIN": jaas}),
                                 CredentialCache())
    return Loopback(time, channel_builder=builder, failed_authentication_delay_ms=delay_ms)


def read_frame(sock: socket.socket) -> bytes:
    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            assert chunk, "the connection closed mid-frame"
            data += chunk
        return data
    return exactly(struct.unpack(">i", exactly(4))[0])


def test_a_sasl_login_goes_to_the_authenticator_and_only_api_versions_reaches_the_caller(time):
    loop = sasl_loopback(time)
    try:
        client = loop.connect("sasl")
        client.sendall(encode_request(API_VERSIONS, 3, 0, "t", {"client_software_name": "t",
                                                                "client_software_version": "1"}))
        loop.take("sasl")  # handed on: the Processor answers it like any request
        loop.selector.mute("sasl")
        loop.selector.send("sasl", frame(b"the caller's answer"))
        loop.selector.unmute("sasl")
        assert read_frame(client) == b"the caller's answer"

        client.sendall(encode_request(HANDSHAKE, 1, 1, "t", {"mechanism": "PLAIN"}))
        loop.poll_until(lambda: loop.selector.channel("sasl").authenticator.state == "AUTHENTICATE",
                        "the handshake")
        assert decode_response(HANDSHAKE, 1, read_frame(client))[1].error_code == Errors.NONE
        client.sendall(encode_request(AUTHENTICATE, 2, 2, "t", {"auth_bytes": b"\0alice\0secret"}))
        channel = loop.selector.channel("sasl")
        loop.poll_until(lambda: channel.ready, "the login")
        assert decode_response(AUTHENTICATE, 2, read_frame(client))[1].error_code == Errors.NONE
        assert str(channel.principal) == "User:alice" and loop.selector.successful_authentications == 1
        assert loop.selector.completed_sends == ["sasl"], "the login's own answers are not the caller's sends"
        client.sendall(frame(b"first request"))
        assert loop.take("sasl") == b"first request"
    finally:
        loop.close()


def test_a_failed_login_is_answered_after_the_delay_then_closed(time):
    loop = sasl_loopback(time, delay_ms=100)
    try:
        client = loop.connect("sasl")
        client.sendall(encode_request(HANDSHAKE, 1, 1, "t", {"mechanism": "PLAIN"}))
        loop.poll_until(lambda: loop.selector.channel("sasl").authenticator.state == "AUTHENTICATE",
                        "the handshake")
        read_frame(client)
        client.sendall(encode_request(AUTHENTICATE, 2, 2, "t", {"auth_bytes": b"\0alice\0guess"}))
        loop.poll_until(lambda: loop.selector.failed_authentications == 1, "the failed login")
        time.sleep(99)
        loop.selector.poll(0)
        assert "sasl" in loop.selector.channels, "no answer before connection.failed.authentication.delay.ms"
        time.sleep(1)
        loop.selector.poll(0)
        assert loop.selector.disconnected == {"sasl": "127.0.0.1"}
        assert decode_response(AUTHENTICATE, 2,
                               read_frame(client))[1].error_code == Errors.SASL_AUTHENTICATION_FAILED
        assert client.recv(1) == b""
    finally:
        loop.close()
