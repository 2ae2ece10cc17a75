"""KafkaChannel: one connection of a Selector (Kafka's common.network.KafkaChannel, with its
NetworkSend; the frame being read is a NetworkReceive).

It holds the frame being read, at most one send being written, and carries the mute flag that
enforces seed 002's ordering rule: "it will only take one request from a client at a time, and
only after ... all the bytes for the response have been sent" will it take the next. While muted
nothing more is read: the client's next requests wait in the kernel's socket buffer. A channel is
also muted for memory when the MemoryPool cannot give its next frame a buffer, and a client over
its quota stays muted until its throttle time has passed (KIP-219, `throttle`). It knows frames,
not requests: which request a frame was is the Processor's business.

Every byte goes through the channel's TransportLayer: plain TCP, or TLS (SslTransportLayer). A
TLS channel is not `ready` until `prepare` has finished its handshake; then its principal is the
one the client certificate names. On a SASL listener the channel also carries its
SaslServerAuthenticator: while it is `authenticating` its frames go to the authenticator, not to
the RequestChannel, and they may be no larger than sasl.server.max.receive.size.
"""

from __future__ import annotations

import socket

from kafka.network.memory_pool import UNBOUNDED, MemoryPool
from kafka.network.network_receive import InvalidReceiveError, NetworkReceive
from kafka.protocol.response_send import ResponseSend
from kafka.security.kafka_principal import ANONYMOUS
from kafka.security.transport_layer import PlaintextTransportLayer, TransportLayer

__all__ = ["InvalidReceiveError", "KafkaChannel"]


class KafkaChannel:
    def __init__(self, connection_id: str, transport: TransportLayer | socket.socket, remote_address: str,
                 max_receive_size: int, memory_pool: MemoryPool = UNBOUNDED) -> None:
        self.id = connection_id
        self.transport = transport if isinstance(transport,
                                                 TransportLayer) else PlaintextTransportLayer(transport)
        self.remote_address = remote_address
        self.max_receive_size = max_receive_size
        self.memory_pool = memory_pool
        self.muted = False  # a request of ours is in flight
        self.muted_for_memory = False  # the pool had no buffer for the next frame
        self.throttled_until_ms = 0  # monotonic ms; a quota violation keeps the channel muted until then
        self.interest = 0  # the selector events this socket is registered for; 0 = not registered
        self.receive = NetworkReceive(max_receive_size, memory_pool, connection_id)
        self._send: list | None = None  # the parts of the response being written
        self._send_position = 0
        self.principal = ANONYMOUS  # who the transport and authenticator say is at the other end
        self.client_information: tuple[str, str] | None = None  # Kafka's channelMetadataRegistry
        self.authenticator = None  # SaslServerAuthenticator on a SASL listener
        self.authenticated_max_receive_size = max_receive_size  # the frame bound once authenticated
        self.close_after_send = False  # a failed authentication: its answer goes out, then the channel closes

    @property
    def socket(self) -> socket.socket:
        return self.transport.socket

    # ------------------------------------------------------------------ handshake (TLS)
    @property
    def ready(self) -> bool:
        return self.transport.ready and (self.authenticator is None or self.authenticator.complete)

    @property
    def authenticating(self) -> bool:
        """TLS (if any) is done but SASL is not: frames go to the authenticator."""
        return self.authenticator is not None and not self.authenticator.complete

    def complete_authentication(self) -> None:
        """SASL succeeded: its principal from now on, and the listener's frame bound again."""
        self.principal = self.authenticator.principal
        self.max_receive_size = self.authenticated_max_receive_size
        self.receive.max_size = self.max_receive_size  # the next frame, not started yet

    def prepare(self) -> int:
        """Go on with the transport's handshake: 0 once the channel is ready (its principal now set),
        else the selector event it waits for. Raises SslAuthenticationError when it fails."""
        interest = self.transport.handshake()
        if interest == 0:
            self.principal = self.transport.peer_principal()
        return interest

    def has_bytes_buffered(self) -> bool:
        return self.transport.has_bytes_buffered()

    # ------------------------------------------------------------------ receive side
    def read_from_socket(self) -> bool:
        """Read towards the next frame. Returns False when the peer has closed the connection.
        Raises InvalidReceiveError for a size outside 0..socket.request.max.bytes."""
        try:
            return self.receive.read_from(self.transport) >= 0
        except (BlockingIOError, InterruptedError):
            return True

    def maybe_complete_receive(self) -> NetworkReceive | None:
        """The frame just completed (whoever takes its payload owns its pool memory), or None; the
        next frame starts afresh (Kafka's KafkaChannel.maybeCompleteReceive)."""
        if not self.receive.complete:
            return None
        receive = self.receive
        self.receive = NetworkReceive(self.max_receive_size, self.memory_pool, self.id)
        return receive

    # ------------------------------------------------------------------ throttling (KIP-219)
    def throttle(self, until_ms: int) -> None:
        """A quota was violated: stay muted until `until_ms` (monotonic), even after the response is sent."""
        self.throttled_until_ms = max(self.throttled_until_ms, until_ms)

    def is_throttled(self, now_ms: int) -> bool:
        return self.throttled_until_ms > now_ms

    # ------------------------------------------------------------------ send side
    def set_send(self, payload: bytes | bytearray) -> None:
        """The response to write: plain bytes, or a ResponseSend whose record slices go out with
        os.sendfile between its buffer pieces (seed 002's zero copy; over TLS they are read and encrypted)."""
        self._send = payload.parts() if isinstance(payload, ResponseSend) else [memoryview(payload)]
        self._send_position = 0  # within the first part still to write

    @property
    def has_send(self) -> bool:
        return self._send is not None

    def write_to_socket(self) -> bool:
        """Write as much of the pending response as the socket takes. True once all of it is sent."""
        assert self._send is not None
        parts = self._send
        while parts:
            part = parts[0]
            try:
                if isinstance(part, memoryview):
                    self._send_position += self.transport.send(part[self._send_position :])
                else:
                    self._send_position += self.transport.transfer_from(part, self._send_position)
            except (BlockingIOError, InterruptedError):
                return False
            if self._send_position < len(part):
                return False  # the socket is full: the selector says when to go on
            if not isinstance(part, memoryview):
                part.close()  # the slice is out: its file descriptor goes back now
            parts.pop(0)
            self._send_position = 0
        if not self.transport.flush():  # TLS: the last bytes, encrypted, still wait for the socket
            return False
        self._send = None
        return True

    def close(self) -> None:
        if self._send is not None:  # closed mid-response: give the unsent slices' files back
            for part in self._send:
                if not isinstance(part, memoryview):
                    part.close()
            self._send = None
        self.receive.release()  # half a frame: its pool memory goes back
        self.transport.close()
