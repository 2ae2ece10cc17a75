"""MemoryPool and SimpleMemoryPool: the bytes of requests being read, counted against a bound
(Kafka's org.apache.kafka.common.memory.MemoryPool and SimpleMemoryPool, KIP-72).

A Selector reads a request's 4-byte size first, then asks the pool for a buffer of that size.
With queued.max.request.bytes set, the pool holds that many bytes for every request being read or
waiting for an I/O thread; when it is exhausted, try_allocate answers None and the Selector stops
reading from that connection (it is muted for memory) until a handled request gives its bytes back.
A client that announces a 100 MB frame and stalls can then pin the pool, never the host.

As in Kafka's broker, the pool is not strict: it grants a request as long as any memory is left,
even one larger than what is left, so a large request is not starved by a stream of small ones.
What it has granted can therefore overshoot the bound by less than one request
(socket.request.max.bytes); KafkaConfig requires the bound to be at least that.

Buffers of a megabyte or more are anonymous memory maps: the kernel gives a page only when bytes
land in it, so a stalled frame costs what was sent, not what was announced, and the whole map goes
back to the system as soon as the last view of it is dropped.
"""

from __future__ import annotations

import mmap
import threading
from collections.abc import Callable

LAZY_BUFFER_BYTES = 1024 * 1024

Buffer = bytearray | mmap.mmap


def allocate_buffer(size: int) -> Buffer:
    """A writable buffer of `size` bytes; a large one takes memory only as it is written."""
    return mmap.mmap(-1, size) if size >= LAZY_BUFFER_BYTES else bytearray(size)


class MemoryPool:
    """No bound at all (Kafka's MemoryPool.NONE): queued.max.request.bytes=-1, Kafka's default."""

    def try_allocate(self, size: int) -> Buffer | None:
        return allocate_buffer(size)

    def release(self, buffer: Buffer) -> None:
        pass

    @property
    def size(self) -> int:
        return -1

    @property
    def available_memory(self) -> int:
        return -1

    @property
    def is_out_of_memory(self) -> bool:
        return False

    def depleted_time_ns(self) -> int:
        return 0


UNBOUNDED = MemoryPool()


class SimpleMemoryPool(MemoryPool):
    def __init__(self, size_bytes: int, max_single_allocation: int, strict: bool,
                 nanoseconds: Callable[[], int]) -> None:
        if size_bytes <= 0 or max_single_allocation <= 0 or max_single_allocation > size_bytes:
            raise ValueError(f"invalid pool of {size_bytes} bytes with single allocations up to "
                             f"{max_single_allocation}")
        self._size = size_bytes
        self.max_single_allocation = max_single_allocation
        self.strict = strict
        self._nanoseconds = nanoseconds  # the injected clock, for the time spent depleted
        self._lock = threading.Lock()  # every Selector allocates, every I/O thread releases
        self._available = size_bytes
        self._depleted_since_ns = 0  # when an allocation last failed and none has succeeded since
        self._depleted_total_ns = 0  # MemoryPoolDepletedTimeTotal, in ns

    def try_allocate(self, size: int) -> Buffer | None:
        if size < 0 or size > self.max_single_allocation:
            raise ValueError(f"cannot allocate {size} bytes: the most is {self.max_single_allocation}")
        threshold = size if self.strict else 1
        with self._lock:
            if self._available < threshold:
                if not self._depleted_since_ns:
                    self._depleted_since_ns = self._nanoseconds()
                return None
            self._available -= size
            self._end_of_dry_spell()
        return allocate_buffer(size)

    def release(self, buffer: Buffer) -> None:
        with self._lock:
            self._available += len(buffer)
            self._end_of_dry_spell()

    def _end_of_dry_spell(self) -> None:
        if self._depleted_since_ns:
            self._depleted_total_ns += self._nanoseconds() - self._depleted_since_ns
            self._depleted_since_ns = 0

    @property
    def size(self) -> int:
        return self._size

    @property
    def available_memory(self) -> int:
        return self._available

    @property
    def is_out_of_memory(self) -> bool:
        return self._available <= 0

    def depleted_time_ns(self) -> int:
        """Time allocations have been refused, the spell under way included."""
        with self._lock:
            ongoing = self._nanoseconds() - self._depleted_since_ns if self._depleted_since_ns else 0
            return self._depleted_total_ns + ongoing

    def __repr__(self) -> str:
        return f"SimpleMemoryPool(size={self._size}, available={self._available})"
