"""KafkaChannel: one non-blocking TCP connection to one broker, with Kafka's framing
(the client half of Kafka's common.network.KafkaChannel, NetworkSend and NetworkReceive).

Every request and response on the wire is an int32 size followed by that many bytes. Writes are
queued and flushed as the socket accepts them; reads accumulate until a whole frame is in. The
channel knows nothing about APIs or correlation ids: that is the NetworkClient's business.

With an SSLContext (security.protocol=SSL) the connected socket is wrapped for TLS and the channel
is not `ready` until `handshake` has finished, step by step as the selector allows; all bytes then go
through the TransportLayer (kafka/security), the same one the broker's channels use.
"""

from __future__ import annotations

import errno
import socket
import ssl
import struct
from collections import deque

from kafka.security.ssl_transport_layer import SslTransportLayer
from kafka.security.transport_layer import PlaintextTransportLayer, TransportLayer

_SIZE = struct.Struct(">i")
_RECV_CHUNK = 256 * 1024


class KafkaChannel:
    def __init__(self, node_id: int, host: str, port: int, ssl_context: ssl.SSLContext | None = None) -> None:
        self.node_id = node_id
        self.address = (host, port)
        self.ssl_context = ssl_context
        self.sock: socket.socket | None = None
        self.transport: TransportLayer | None = None  # set once TCP is up
        self._chunk = bytearray(_RECV_CHUNK)
        self._sends: deque[tuple[memoryview, object]] = deque()  # (bytes left, the request they carry)
        self._receive = bytearray()

    # ------------------------------------------------------------------ connecting
    def connect(self) -> bool:
        """Start a non-blocking connect; True if it completed at once (loopback often does)."""
        infos = socket.getaddrinfo(*self.address, type=socket.SOCK_STREAM)
        family, kind, proto, _, sockaddr = infos[0]
        self.sock = socket.socket(family, kind, proto)
        self.sock.setblocking(False)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        code = self.sock.connect_ex(sockaddr)
        if code == 0:
            return True
        if code in (errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EAGAIN):
            return False
        raise OSError(code,
                      f"connect to {self.address[0]}:{self.address[1]}: {errno.errorcode.get(code, code)}")

    def finish_connect(self) -> None:
        """Called when a connecting socket becomes writable: raises if the connect failed."""
        code = self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if code:
            host, port = self.address[0], self.address[1]
            raise OSError(code, f"connect to {host}:{port}: {errno.errorcode.get(code, code)}")

    def start_transport(self) -> None:
        """TCP is up: plain bytes from here, or a TLS handshake first."""
        if self.transport is not None:
            return
        if self.ssl_context is None:
            self.transport = PlaintextTransportLayer(self.sock)
        else:
            self.transport = SslTransportLayer(self.sock, self.ssl_context, server_side=False,
                                               server_hostname=self.address[0])
            self.sock = self.transport.socket

    @property
    def ready(self) -> bool:
        return self.transport is not None and self.transport.ready

    def handshake(self) -> int:
        """One step of the TLS handshake: 0 once done, else the selector event it waits for.
        Raises SslAuthenticationError (an untrusted broker certificate, a broker not speaking TLS)."""
        return self.transport.handshake()

    # ------------------------------------------------------------------ writing
    def send(self, frame: bytes, request: object) -> None:
        self._sends.append((memoryview(frame), request))

    @property
    def has_send(self) -> bool:
        return bool(self._sends) or (self.transport is not None and self.transport.has_pending_writes())

    def write(self) -> list[object]:
        """Write as much as the socket takes; returns the requests whose bytes are now all sent."""
        completed = []
        if not self.transport.flush():  # TLS: bytes encrypted earlier go first
            return completed
        while self._sends:
            data, request = self._sends[0]
            try:
                n = self.transport.send(data)
            except (BlockingIOError, InterruptedError):
                break
            if n < len(data):
                self._sends[0] = (data[n:], request)
                break
            self._sends.popleft()
            completed.append(request)
        return completed

    # ------------------------------------------------------------------ reading
    def read(self) -> list[bytes]:
        """Read what is available; returns the complete response frames (without size prefixes)."""
        chunk = memoryview(self._chunk)
        while True:
            try:
                n = self.transport.recv_into(chunk, _RECV_CHUNK)
            except (BlockingIOError, InterruptedError):
                break
            if not n:
                raise ConnectionError(f"connection to node {self.node_id} closed by the broker")
            self._receive += chunk[:n]
            if n < _RECV_CHUNK and not self.transport.has_bytes_buffered():
                break
        frames = []
        buf = self._receive
        pos = 0
        while len(buf) - pos >= 4:
            (size,) = _SIZE.unpack_from(buf, pos)
            if size < 0:
                raise ConnectionError(f"invalid frame size {size} from node {self.node_id}")
            if len(buf) - pos - 4 < size:
                break
            frames.append(bytes(buf[pos + 4 : pos + 4 + size]))
            pos += 4 + size
        if pos:
            del buf[:pos]
        return frames

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self._sends.clear()
        self._receive.clear()
