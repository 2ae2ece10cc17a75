"""KafkaChannel: one client connection as a Processor sees it (Kafka's common.network.KafkaChannel,
with its NetworkReceive and NetworkSend).

It frames the byte stream (a 4-byte size, then that many bytes), holds at most one response being
written, and carries the mute flag that enforces seed 002's ordering rule: "it will only take one
request from a client at a time, and only after ... all the bytes for the response have been
sent" will it take the next. Frames that arrive while muted wait in the receive buffer. A client
over its quota is muted longer: until its throttle time has passed (KIP-219, `throttle`).
"""

from __future__ import annotations

import socket
import struct

from kafka.protocol.response_send import ResponseSend

SIZE_PREFIX = struct.Struct(">i")
RECEIVE_CHUNK = 256 * 1024


class InvalidReceiveError(Exception):
    """A frame size that is negative or above socket.request.max.bytes: the connection must close."""


class KafkaChannel:
    def __init__(self, connection_id: str, sock: socket.socket, remote_address: str,
                 max_receive_size: int) -> None:
        self.id = connection_id
        self.socket = sock
        self.remote_address = remote_address
        self.max_receive_size = max_receive_size
        self.muted = False
        self.throttled_until_ms = 0  # monotonic ms; a quota violation keeps the channel muted until then
        self.interest = 0  # the selector events this socket is registered for; 0 = not registered
        self._receive = bytearray()
        self._read_position = 0
        self._send: list | None = None  # the parts of the response being written
        self._send_position = 0
        self.in_flight = None  # the Request being handled or answered; None when idle

    # ------------------------------------------------------------------ receive side
    def read_from_socket(self) -> bool:
        """Pull what the kernel has. Returns False when the peer has closed the connection."""
        try:
            chunk = self.socket.recv(RECEIVE_CHUNK)
        except (BlockingIOError, InterruptedError):
            return True
        if not chunk:
            return False
        if self._read_position and self._read_position == len(self._receive):
            self._receive.clear()
            self._read_position = 0
        self._receive += chunk
        return True

    def next_frame(self) -> memoryview | None:
        """The next complete request frame (without its size prefix), or None if incomplete."""
        available = len(self._receive) - self._read_position
        if available < SIZE_PREFIX.size:
            return None
        (size,) = SIZE_PREFIX.unpack_from(self._receive, self._read_position)
        if size < 0 or size > self.max_receive_size:
            raise InvalidReceiveError(
                f"frame of {size} bytes is outside 0..socket.request.max.bytes ({self.max_receive_size})")
        if available < SIZE_PREFIX.size + size:
            return None
        start = self._read_position + SIZE_PREFIX.size
        self._read_position = start + size
        frame = bytes(self._receive[start : self._read_position])
        self._compact()
        return memoryview(frame)

    def _compact(self) -> None:
        # Drop consumed bytes once they dominate the buffer, so a long-lived connection does not grow.
        if self._read_position > RECEIVE_CHUNK and self._read_position * 2 > len(self._receive):
            del self._receive[: self._read_position]
            self._read_position = 0

    # ------------------------------------------------------------------ throttling (KIP-219)
    def throttle(self, until_ms: int) -> None:
        """A quota was violated: stay muted until `until_ms` (monotonic), even after the response is sent."""
        self.throttled_until_ms = max(self.throttled_until_ms, until_ms)

    def is_throttled(self, now_ms: int) -> bool:
        return self.throttled_until_ms > now_ms

    # ------------------------------------------------------------------ send side
    def set_send(self, payload: bytes | bytearray) -> None:
        """The response to write: plain bytes, or a ResponseSend whose record slices go out with
        os.sendfile between its buffer pieces (seed 002's zero copy)."""
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
                    self._send_position += self.socket.send(part[self._send_position :])
                else:
                    self._send_position += part.write_to(self.socket, self._send_position)
            except (BlockingIOError, InterruptedError):
                return False
            if self._send_position < len(part):
                return False  # the socket is full: the selector says when to go on
            if not isinstance(part, memoryview):
                part.close()  # the slice is out: its file descriptor goes back now
            parts.pop(0)
            self._send_position = 0
        self._send = None
        return True

    def close(self) -> None:
        if self._send is not None:  # closed mid-response: give the unsent slices' files back
            for part in self._send:
                if not isinstance(part, memoryview):
                    part.close()
            self._send = None
        try:
            self.socket.close()
        except OSError:
            pass
