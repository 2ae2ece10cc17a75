"""FileRecords: a range of bytes of a segment file, walked batch by batch or sent to a socket without
passing through Python (Kafka's org.apache.kafka.common.record.FileRecords).

Seed 002, fetch handling: "In Kafka, we use zero copy transfer in the network thread to transfer
the range of bytes from the underlying file directly to the remote socket." A fetch does not read
the records: the log returns (file, position, size), the FetchResponse carries that slice in place
of the bytes, and the network thread's KafkaChannel hands it to os.sendfile, which copies from the
page cache to the socket inside the kernel.

The slice owns a duplicate of the segment's file descriptor, so the segment may roll, be deleted by
retention or have its topic deleted while the response waits or is half sent: the file stays
readable until the slice is closed. Closing happens when the send completes, when the connection
or the response is dropped, and as a last resort when the object is garbage collected.

The segment reads its own file through a `view` (the descriptor stays the segment's, pinned for the
read: LogSegment.reading). The byte scanning lives here, with Kafka's names: `batches_from` walks batch
headers a chunk at a time, `search_for_offset_with_size` finds the batch holding an offset, and
`search_for_timestamp` the first record at or after a timestamp, reading offsets and timestamps only.
"""

from __future__ import annotations

import os
import socket
import struct
import weakref
from collections.abc import Iterator
from typing import NamedTuple

import structlog

from kafka.log.errors import InvalidRecordError, UnsupportedCompressionTypeError
from kafka.protocol.record_batch import HEADER_SIZE, LOG_OVERHEAD, RecordBatch

log = structlog.get_logger("kafka.log.FileRecords")

# How much to read per os.pread while walking batch headers: a lookup walks at most about
# index.interval.bytes past an index entry, a full scan (load, recovery) walks the whole file.
LOOKUP_CHUNK = 16 * 1024
SCAN_CHUNK = 1024 * 1024

BASE_OFFSET_AND_LENGTH = struct.Struct(">qi")
_LAST_OFFSET_DELTA = struct.Struct(">i")
_LAST_OFFSET_DELTA_AT = 23  # baseOffset 8 + batchLength 4 + leaderEpoch 4 + magic 1 + crc 4 + attributes 2


class TimestampAndOffset(NamedTuple):
    """A ListOffsets answer: the record's timestamp (-1 if not asked for one) and its offset."""

    timestamp: int
    offset: int


class FileRecords:
    def __init__(self, fd: int, position: int, size: int, owned: bool = True, path: str = "") -> None:
        """Take ownership of `fd` (already duplicated for this slice), or with `owned=False` only
        borrow it (a view: its owner keeps it open while the view is used)."""
        self.position = position
        self.size = size
        self.path = path
        self._fd = fd
        self._closer = weakref.finalize(self, os.close, fd) if owned else None

    @classmethod
    def slice_of(cls, segment_fd: int, position: int, size: int) -> FileRecords:
        return cls(os.dup(segment_fd), position, size)

    @classmethod
    def view(cls, fd: int, end: int, path: str = "") -> FileRecords:
        """The first `end` bytes of a file whose descriptor the caller holds open (and keeps)."""
        return cls(fd, 0, end, owned=False, path=path)

    @property
    def end(self) -> int:
        return self.position + self.size

    def __len__(self) -> int:
        return self.size

    def __bool__(self) -> bool:
        return self.size > 0

    def read_all(self) -> bytes:
        """The bytes themselves, for a reader in this process (the group coordinator, tests)."""
        data = os.pread(self._fd, self.size, self.position)
        if len(data) < self.size:
            raise OSError(f"segment file truncated: {len(data)} of {self.size} bytes at {self.position}")
        return data

    def write_to(self, sock: socket.socket, offset: int) -> int:
        """Send from `offset` within the slice; returns how many bytes the socket took (0 if it is
        full). A file that has become shorter than the slice (truncated under us) is an error."""
        sent = os.sendfile(sock.fileno(), self._fd, self.position + offset, self.size - offset)
        if sent == 0 and offset < self.size:
            raise OSError(f"segment file truncated while sending {self.size} bytes at {self.position}")
        return sent

    def read_chunk(self, offset: int, length: int) -> bytes:
        """Up to `length` bytes from `offset` within the slice: what a TLS connection, which cannot
        take os.sendfile, encrypts and sends instead (Kafka's SslTransportLayer.transferFrom)."""
        data = os.pread(self._fd, min(length, self.size - offset), self.position + offset)
        if not data and offset < self.size:
            raise OSError(f"segment file truncated while sending {self.size} bytes at {self.position}")
        return data

    def close(self) -> None:
        if self._closer is not None:
            self._closer()

    @property
    def closed(self) -> bool:
        return self._closer is not None and not self._closer.alive

    # ------------------------------------------------------------------------------ scanning

    def batches_from(self, start: int, chunk_size: int = SCAN_CHUNK, whole: bool = False,
                     whole_control: bool = False) -> Iterator[tuple[int, RecordBatch]]:
        """(position, header view) of each batch from `start` to the end, reading chunks with os.pread.

        With `whole`, each view's buffer holds the entire batch (for CRC checks); with
        `whole_control`, only each control batch's does (a marker, tens of bytes). Stops quietly at a
        torn or nonsensical header; LogSegment.recover is what notices and repairs that."""
        fd, end = self._fd, self.end
        position = start
        chunk = b""
        chunk_start = start
        while end - position >= HEADER_SIZE:
            offset_in_chunk = position - chunk_start
            if len(chunk) - offset_in_chunk < HEADER_SIZE:
                chunk = os.pread(fd, min(chunk_size, end - position), position)
                chunk_start, offset_in_chunk = position, 0
                if len(chunk) < HEADER_SIZE:
                    return
            batch = RecordBatch(chunk, offset_in_chunk)
            size = batch.size_in_bytes
            if size < HEADER_SIZE or position + size > end:
                return
            if (whole or whole_control and batch.is_control_batch) and offset_in_chunk + size > len(chunk):
                chunk = os.pread(fd, min(max(chunk_size, size), end - position), position)
                chunk_start, offset_in_chunk = position, 0
                batch = RecordBatch(chunk, 0)
            yield position, batch
            position += size

    def whole_batches_length_from(self, start: int, max_offset: int | None) -> int:
        """How many bytes from `start` are whole batches, each ending below `max_offset` if given:
        where a zero-copy fetch is cut, found from the batch headers alone (whole_batches_length
        does the same over bytes already read)."""
        length = 0
        for position, header in self.batches_from(start, LOOKUP_CHUNK):
            if max_offset is not None and header.last_offset >= max_offset:
                break
            length = position + header.size_in_bytes - start
        return length

    def read_batch(self, position: int, header: RecordBatch) -> RecordBatch:
        """The whole batch whose header `batches_from` gave at `position`."""
        return RecordBatch(os.pread(self._fd, header.size_in_bytes, position))

    def search_for_offset_with_size(self, target_offset: int, starting_position: int
                                    ) -> tuple[int, RecordBatch] | None:
        """(position, header) of the first batch from `starting_position` whose last offset is at
        least `target_offset`, or None if there is none (Kafka's searchForOffsetWithSize)."""
        for position, batch in self.batches_from(starting_position, LOOKUP_CHUNK):
            if batch.last_offset >= target_offset:
                return position, batch
        return None

    def search_for_timestamp(self, target_timestamp: int, starting_position: int, starting_offset: int
                             ) -> TimestampAndOffset | None:
        """The first record at or after `starting_offset` whose timestamp is >= `target_timestamp`,
        walking headers from `starting_position` to the first batch whose max timestamp reaches the
        target and decoding only that batch's offsets and timestamps (Kafka's searchForTimestamp)."""
        for position, header in self.batches_from(starting_position):
            if header.max_timestamp >= target_timestamp:
                batch = self.read_batch(position, header)
                try:  # offsets and timestamps only: values stream past (a bomb costs CPU, not memory)
                    for record in batch.skip_key_value_iterator():
                        if record.timestamp >= target_timestamp and record.offset >= starting_offset:
                            return TimestampAndOffset(record.timestamp, record.offset)
                except (InvalidRecordError, UnsupportedCompressionTypeError) as e:
                    # Written before the leader read every record: no consumer gets past it either,
                    # so the lookup goes on to the next batch.
                    log.warning("skipping a batch whose records cannot be read", segment=self.path,
                                base_offset=header.base_offset, error=str(e))
        return None


def whole_batches_length(data: bytes, max_offset: int | None) -> int:
    """How many leading bytes of `data` are whole batches, each ending below `max_offset` if given."""
    position, end = 0, len(data)
    unpack_base_and_length = BASE_OFFSET_AND_LENGTH.unpack_from
    unpack_delta = _LAST_OFFSET_DELTA.unpack_from
    while end - position >= HEADER_SIZE:
        base_offset, batch_length = unpack_base_and_length(data, position)
        size = batch_length + LOG_OVERHEAD
        if position + size > end:
            break
        if max_offset is not None:
            last_offset = base_offset + unpack_delta(data, position + _LAST_OFFSET_DELTA_AT)[0]
            if last_offset >= max_offset:
                break
        position += size
    return position

    def __repr__(self) -> str:
        return f"FileRecords(fd={self._fd}, position={self.position}, size={self.size})"
