"""NetworkReceive: one request frame being read off a socket (Kafka's common.network.NetworkReceive).

A frame is a 4-byte size, then that many bytes. The size is read first and checked against
socket.request.max.bytes; only then is a buffer of exactly that size asked of the MemoryPool, and
the rest of the frame is read straight into it. When the pool has nothing left the buffer is not
allocated: the receive waits, with its size known, and the Selector mutes the connection until
memory comes back (`memory_allocated` is False while `size` is known). A complete receive names its
`source`, the connection it came from, as Kafka's does: the Selector hands a poll's complete receives to
the Processor together, once the poll is over.
"""

from __future__ import annotations

import socket
import struct

from kafka.network.memory_pool import Buffer, MemoryPool
from kafka.security.transport_layer import TransportLayer

SIZE_PREFIX = struct.Struct(">i")
MAX_READ = 1024 * 1024  # one recv at most: a huge frame does not keep the Selector from its other sockets


class InvalidReceiveError(Exception):
    """A frame size that is negative or above socket.request.max.bytes: the connection must close."""

    def __init__(self, message: str, size: int = -1) -> None:
        super().__init__(message)
        self.size = size

    @property
    def looks_like_tls(self) -> bool:
        """The "size" is a TLS record header (0x16 0x03 ..: a handshake): a TLS client on a plain port."""
        return (self.size >> 16) == 0x1603


class NetworkReceive:
    def __init__(self, max_size: int, memory_pool: MemoryPool, source: str = "") -> None:
        self.source = source  # the connection id
        self.max_size = max_size
        self.memory_pool = memory_pool
        self._size_buffer = bytearray(SIZE_PREFIX.size)
        self._size_read = 0
        self.size = -1  # known once the prefix is in
        self.payload: Buffer | None = None
        self._payload_read = 0

    @property
    def memory_allocated(self) -> bool:
        return self.payload is not None

    @property
    def waiting_for_memory(self) -> bool:
        return self.size >= 0 and self.payload is None

    @property
    def complete(self) -> bool:
        return self.payload is not None and self._payload_read == self.size

    @property
    def started(self) -> bool:
        return self._size_read > 0

    def read_from(self, sock: socket.socket | TransportLayer) -> int:
        """Read what the socket has towards this frame. Returns the bytes read, -1 at end of stream;
        raises BlockingIOError when nothing is there yet."""
        read = 0
        if self._size_read < SIZE_PREFIX.size:
            n = sock.recv_into(memoryview(self._size_buffer)[self._size_read :])
            if n == 0:
                return -1
            self._size_read += n
            read += n
            if self._size_read < SIZE_PREFIX.size:
                return read
            (size,) = SIZE_PREFIX.unpack(self._size_buffer)
            if size < 0 or size > self.max_size:
                raise InvalidReceiveError(
                    f"frame of {size} bytes is outside 0..socket.request.max.bytes ({self.max_size})", size)
            self.size = size
        if self.payload is None:
            self.payload = self.memory_pool.try_allocate(self.size)
            if self.payload is None:
                return read  # the pool is exhausted: the Selector mutes us until memory is released
        remaining = self.size - self._payload_read
        if remaining:
            view = memoryview(self.payload)[self._payload_read :]
            try:
                n = sock.recv_into(view, min(remaining, MAX_READ))
            except BlockingIOError:
                if read:
                    return read
                raise
            finally:
                view.release()
            if n == 0:
                return -1
            self._payload_read += n
            read += n
        return read

    def release(self) -> None:
        """Give an unfinished frame's buffer back (the connection is closing)."""
        if self.payload is not None:
            self.memory_pool.release(self.payload)
            self.payload = None
