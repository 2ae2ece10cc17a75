"""LogSegment: one `%020d.log` file and its `%020d.index` (Kafka's LogSegment over FileRecords).

Seed 002, "Kafka Physical Storage": "the commit log is organized as a collection of segments. Each
segment is made up of several files. One of these, a .log file, contains the event data. A second, a
.index file, contains an index structure, which maps from a record offset to the position of that
record in the .log file". And for a fetch, the I/O thread "will take the offset ... and compare it
with the .index file ... That will tell it exactly the range of bytes that need to be read".

The .log file is the record batches exactly as the producer sent them (offsets assigned), end to end.
Both file names are the segment's base offset: the offset of its first batch, zero-padded to 20 digits
so that a directory listing sorts them in log order.

Concurrency: one appender at a time (the UnifiedLog's lock). Readers take no lock; they only read up
to a size they snapshotted, and `_size` grows only after the bytes and index entries are written.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from typing import NamedTuple

from kafka.log.errors import CorruptIndexError, LogSegmentOffsetOverflowError
from kafka.log.fetch_data_info import FetchDataInfo, LogOffsetMetadata
from kafka.log.log_config import LogConfig
from kafka.log.offset_index import OffsetIndex, OffsetPosition
from kafka.protocol.record_batch import HEADER_SIZE, LOG_OVERHEAD, CorruptRecordError, RecordBatch
from kafka.utils.time import SYSTEM, Time

LOG_FILE_SUFFIX = ".log"
INDEX_FILE_SUFFIX = ".index"
TIME_INDEX_FILE_SUFFIX = ".timeindex"  # not written yet: the time index comes with retention
DELETED_FILE_SUFFIX = ".deleted"

# How much to read per os.pread while walking batch headers: a lookup walks at most about
# index.interval.bytes past an index entry, a full scan (load, recovery) walks the whole file.
_LOOKUP_CHUNK = 16 * 1024
_SCAN_CHUNK = 1024 * 1024

_BASE_AND_LENGTH = struct.Struct(">qi")
_LAST_OFFSET_DELTA = struct.Struct(">i")
_LAST_OFFSET_DELTA_AT = 23  # baseOffset 8 + batchLength 4 + leaderEpoch 4 + magic 1 + crc 4 + attributes 2
_INT_MAX = 2**31 - 1


def filename_prefix_from_offset(offset: int) -> str:
    """Kafka's LogFileUtils.filenamePrefixFromOffset: 20 digits, so names sort like offsets."""
    return f"{offset:020d}"


def log_file(dir: str, base_offset: int) -> str:
    return os.path.join(dir, filename_prefix_from_offset(base_offset) + LOG_FILE_SUFFIX)


def offset_index_file(dir: str, base_offset: int) -> str:
    return os.path.join(dir, filename_prefix_from_offset(base_offset) + INDEX_FILE_SUFFIX)


def offset_from_file_name(name: str) -> int:
    return int(os.path.basename(name).split(".", 1)[0])


class TimestampAndOffset(NamedTuple):
    """A ListOffsets answer: the record's timestamp (-1 if not asked for one) and its offset."""

    timestamp: int
    offset: int


class LogSegment:
    """A .log file of whole record batches plus the sparse offset index into it."""

    def __init__(self, dir: str, base_offset: int, config: LogConfig, time: Time = SYSTEM) -> None:
        self.dir = dir
        self.base_offset = base_offset
        self.time = time
        self.index_interval_bytes = config.index_interval_bytes
        self.log_path = log_file(dir, base_offset)
        # O_APPEND: a write always lands at the end; reads use os.pread and ignore the file offset.
        self._fd = os.open(self.log_path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        self._size = os.fstat(self._fd).st_size
        self.offset_index = OffsetIndex(offset_index_file(dir, base_offset), base_offset,
                                        config.segment_index_bytes)
        self.time_index = None  # TimeIndex (%020d.timeindex): not yet, comes with time-based retention
        self._bytes_since_last_index_entry = 0
        self.created_ms = time.milliseconds()
        # The first batch's timestamp, for segment.ms; the largest timestamp, for ListOffsets and
        # (later) retention.ms. For bytes already on disk at load both are read lazily from the file;
        # the appender keeps its own maximum so that a lazy scan racing an append loses nothing.
        self._rolling_based_timestamp: int | None = -1 if self._size == 0 else None
        self._loaded_size = self._size
        self._loaded_max_timestamp: int | None = -1 if self._size == 0 else None
        self._appended_max_timestamp = -1

    # ------------------------------------------------------------------------------ state

    @property
    def size(self) -> int:
        """Bytes in the .log file (what readers may read up to)."""
        return self._size

    @property
    def last_modified(self) -> int:
        """The .log file's modification time in ms (retention.ms will compare against it)."""
        return os.stat(self.log_path).st_mtime_ns // 1_000_000

    @property
    def max_timestamp_so_far(self) -> int:
        if self._loaded_max_timestamp is None:
            self._loaded_max_timestamp = max(
                (batch.max_timestamp for _, batch in self._scan(0, self._loaded_size, _SCAN_CHUNK)), default=-1)
        return max(self._loaded_max_timestamp, self._appended_max_timestamp)

    def can_convert_to_relative_offset(self, offset: int) -> bool:
        return 0 <= offset - self.base_offset <= _INT_MAX

    def should_roll(self, messages_size: int, max_timestamp_in_messages: int, max_offset_in_messages: int,
                    segment_bytes: int, segment_ms: int) -> bool:
        """Kafka's shouldRoll: full by size or age, index full, or offsets too far from the base.

        An empty segment never rolls for size or age: the new one would have the same base offset."""
        if self._size > 0:
            if self._size > segment_bytes - messages_size:
                return True
            if self.time_waited_for_roll(self.time.milliseconds(), max_timestamp_in_messages) > segment_ms:
                return True
        return self.offset_index.is_full() or not self.can_convert_to_relative_offset(max_offset_in_messages)

    def time_waited_for_roll(self, now_ms: int, message_timestamp: int) -> int:
        """Segment age for segment.ms: by record timestamps when they exist, else by wall clock."""
        if self._rolling_based_timestamp is None:
            first = next(self._scan(0, self._size, _LOOKUP_CHUNK), None)
            self._rolling_based_timestamp = first[1].max_timestamp if first else -1
        if self._rolling_based_timestamp >= 0:
            return message_timestamp - self._rolling_based_timestamp
        return now_ms - self.created_ms

    # ------------------------------------------------------------------------------ appending

    def append(self, largest_offset: int, records: bytes | bytearray | memoryview) -> None:
        """Write whole batches (offsets already assigned) at the end of the .log file.

        One os.write for all of them; then, walking only the batch headers, an index entry
        (batch base offset -> its position) whenever index.interval.bytes have passed since the last."""
        if len(records) == 0:
            return
        if not self.can_convert_to_relative_offset(largest_offset):
            raise LogSegmentOffsetOverflowError(
                f"offset {largest_offset} is too far from segment base offset {self.base_offset}")
        physical_position = self._size
        _write_fully(self._fd, records)
        max_timestamp = self._appended_max_timestamp
        for relative_position, batch in _headers_in(records):
            if physical_position == 0 and relative_position == 0:
                self._rolling_based_timestamp = batch.max_timestamp
            if batch.max_timestamp > max_timestamp:
                max_timestamp = batch.max_timestamp
            # A full index only loses precision (lookups scan further); the log rolls before the next append.
            if (self._bytes_since_last_index_entry >= self.index_interval_bytes
                    and not self.offset_index.is_full()):
                self.offset_index.append(batch.base_offset, physical_position + relative_position)
                self._bytes_since_last_index_entry = 0
            self._bytes_since_last_index_entry += batch.size_in_bytes
        self._appended_max_timestamp = max_timestamp
        # Publish last: a reader that sees the new size finds the bytes and the index entries there.
        self._size = physical_position + len(records)

    # ------------------------------------------------------------------------------ reading

    def translate_offset(self, offset: int, starting_position: int = 0) -> OffsetPosition | None:
        """(base offset, position) of the batch that contains `offset`, or None if it is past the end.

        The index gives the nearest entry at or below the offset; from there we walk batch headers
        (Kafka's FileRecords.searchForOffsetFromPosition) to the first batch whose last offset >= it."""
        found = self._find_batch(offset, starting_position, self._size)
        return OffsetPosition(found[1].base_offset, found[0]) if found else None

    def _find_batch(self, offset: int, starting_position: int, end: int) -> tuple[int, RecordBatch] | None:
        start = max(self.offset_index.lookup(offset).position, starting_position)
        for position, batch in self._scan(start, end, _LOOKUP_CHUNK):
            if batch.last_offset >= offset:
                return position, batch
        return None

    def read(self, start_offset: int, max_size: int, max_position: int | None = None,
             min_one_message: bool = True, max_offset: int | None = None) -> FetchDataInfo | None:
        """Whole batches from the one containing `start_offset`, at most `max_size` bytes of them.

        `max_position` is the end the caller snapshotted (default: the size now). `max_offset` is an
        isolation bound such as the high watermark: a batch holding any offset >= it is left out.
        With `min_one_message` the first batch is returned even if it is larger than `max_size`, so
        a consumer never gets stuck behind a big batch. None if `start_offset` is past this segment."""
        if max_size < 0:
            raise ValueError(f"invalid max size {max_size} for a log read from segment {self.log_path}")
        end = self._size if max_position is None else max_position
        found = self._find_batch(start_offset, 0, end)
        if found is None:
            return None
        position, first = found
        metadata = LogOffsetMetadata(start_offset, self.base_offset, position)
        if max_offset is not None and first.last_offset >= max_offset:
            return FetchDataInfo(metadata)
        first_size = first.size_in_bytes
        adjusted_max_size = max(max_size, first_size) if min_one_message else max_size
        if adjusted_max_size < first_size:
            return FetchDataInfo(metadata, first_entry_incomplete=True)
        fetch_size = min(end - position, adjusted_max_size)
        data = os.pread(self._fd, fetch_size, position)
        if fetch_size < end - position or max_offset is not None:
            # The range may end inside a batch or pass the isolation bound: keep whole batches only.
            whole = _whole_batches_length(data, max_offset)
            if whole < len(data):
                data = data[:whole]
        return FetchDataInfo(metadata, data)

    def read_next_offset(self) -> int:
        """The offset after the last batch (Kafka's readNextOffset): the log end offset on load.

        Starts from the last index entry, so it walks at most index.interval.bytes of headers."""
        next_offset = self.base_offset
        for _, batch in self._scan(self.offset_index.last_entry().position, self._size, _SCAN_CHUNK):
            next_offset = batch.next_offset
        return next_offset

    def find_offset_by_timestamp(self, timestamp: int, starting_offset: int = 0) -> TimestampAndOffset | None:
        """The first record at or after `starting_offset` whose timestamp is >= `timestamp`.

        Without a time index (not yet) this walks batch headers from `starting_offset`, then decodes
        the one batch whose max timestamp reaches the target (Kafka's FileRecords.searchForTimestamp)."""
        if self.max_timestamp_so_far < timestamp:
            return None
        found = self._find_batch(starting_offset, 0, self._size)
        if found is None:
            return None
        for position, header in self._scan(found[0], self._size, _SCAN_CHUNK):
            if header.max_timestamp >= timestamp:
                batch = RecordBatch(os.pread(self._fd, header.size_in_bytes, position))
                for record in batch:
                    if record.timestamp >= timestamp and record.offset >= starting_offset:
                        return TimestampAndOffset(record.timestamp, record.offset)
        return None

    def max_timestamp_and_offset(self) -> TimestampAndOffset | None:
        """The record with the largest timestamp (ListOffsets MAX_TIMESTAMP, -3); earliest on ties."""
        if self._size == 0:
            return None
        return self.find_offset_by_timestamp(self.max_timestamp_so_far, self.base_offset)

    def batches(self, start_position: int = 0, end: int | None = None) -> Iterator[RecordBatch]:
        """Every whole batch (read whole, for tools such as kafka-dump-log and for tests)."""
        for position, header in self._scan(start_position, self._size if end is None else end, _SCAN_CHUNK):
            yield RecordBatch(os.pread(self._fd, header.size_in_bytes, position))

    # ------------------------------------------------------------------------------ load and recovery

    def sanity_check(self) -> None:
        """Raise FileNotFoundError if the index is missing, CorruptIndexError if it does not fit the log.

        Kafka's loader answers both by calling `recover()` to rebuild the index."""
        if self.offset_index.newly_created and self._size > 0:
            raise FileNotFoundError(f"offset index {self.offset_index.path} is missing")
        self.offset_index.sanity_check()
        if self.offset_index.entries:
            last = self.offset_index.last_entry()
            if last.position + HEADER_SIZE > self._size:
                raise CorruptIndexError(f"index entry {last} points past the end of {self.log_path} ({self._size})")
            base_offset, _ = _BASE_AND_LENGTH.unpack(os.pread(self._fd, _BASE_AND_LENGTH.size, last.position))
            if base_offset != last.offset:
                raise CorruptIndexError(f"index entry {last} points at a batch with base offset {base_offset}")

    def recover(self) -> int:
        """Rebuild the index from the .log file, checking every batch's CRC on the way.

        Stops at the first batch that is torn, corrupt or out of order, and cuts the file there (what
        Kafka's LogSegment.recover does after an unclean shutdown). Returns the bytes cut off.
        Not yet: the producer-state and leader-epoch rebuilds that come with crash recovery."""
        self.offset_index.truncate()
        self.offset_index.newly_created = False  # rebuilt: from now on it is the segment's index
        self._bytes_since_last_index_entry = 0
        self._rolling_based_timestamp = -1
        max_timestamp = -1
        valid_bytes = 0
        next_offset = self.base_offset
        for position, batch in self._scan(0, self._size, _SCAN_CHUNK, whole=True):
            try:
                batch.ensure_valid()
            except CorruptRecordError:
                break
            if batch.base_offset < next_offset or not self.can_convert_to_relative_offset(batch.last_offset):
                break
            if position == 0:
                self._rolling_based_timestamp = batch.max_timestamp
            max_timestamp = max(max_timestamp, batch.max_timestamp)
            if self._bytes_since_last_index_entry >= self.index_interval_bytes and not self.offset_index.is_full():
                self.offset_index.append(batch.base_offset, position)
                self._bytes_since_last_index_entry = 0
            self._bytes_since_last_index_entry += batch.size_in_bytes
            next_offset = batch.next_offset
            valid_bytes = position + batch.size_in_bytes
        truncated = self._size - valid_bytes
        if truncated:
            os.ftruncate(self._fd, valid_bytes)
            self._size = valid_bytes
        self._loaded_size, self._loaded_max_timestamp, self._appended_max_timestamp = valid_bytes, max_timestamp, -1
        return truncated

    def _scan(self, start: int, end: int, chunk_size: int, whole: bool = False) -> Iterator[tuple[int, RecordBatch]]:
        """(position, header view) of each batch in [start, end), reading chunks with os.pread.

        With `whole`, each view's buffer holds the entire batch (for CRC checks). Stops quietly at a
        torn or nonsensical header; `recover` is what notices and repairs that."""
        position = start
        chunk = b""
        chunk_start = start
        while end - position >= HEADER_SIZE:
            offset_in_chunk = position - chunk_start
            if len(chunk) - offset_in_chunk < HEADER_SIZE:
                chunk = os.pread(self._fd, min(chunk_size, end - position), position)
                chunk_start, offset_in_chunk = position, 0
                if len(chunk) < HEADER_SIZE:
                    return
            batch = RecordBatch(chunk, offset_in_chunk)
            size = batch.size_in_bytes
            if size < HEADER_SIZE or position + size > end:
                return
            if whole and offset_in_chunk + size > len(chunk):
                chunk = os.pread(self._fd, min(max(chunk_size, size), end - position), position)
                chunk_start, offset_in_chunk = position, 0
                batch = RecordBatch(chunk, 0)
            yield position, batch
            position += size

    # ------------------------------------------------------------------------------ lifecycle

    def flush(self) -> None:
        """fsync the .log and .index. Kafka does not flush per append: replication is the durability."""
        os.fsync(self._fd)
        self.offset_index.flush()

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self.offset_index.close()

    def delete(self) -> None:
        self.close()
        self.offset_index.delete()
        try:
            os.unlink(self.log_path)
        except FileNotFoundError:
            pass

    def __repr__(self) -> str:
        return f"LogSegment(base_offset={self.base_offset}, size={self._size}, dir={self.dir!r})"


def _write_fully(fd: int, data: bytes | bytearray | memoryview) -> None:
    # A regular file takes the whole buffer in one write unless the disk fills or a signal lands.
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _headers_in(records: bytes | bytearray | memoryview) -> Iterator[tuple[int, RecordBatch]]:
    """(position, header) of each batch in an in-memory buffer of whole, validated batches."""
    position, end = 0, len(records)
    while position < end:
        batch = RecordBatch(records, position)
        yield position, batch
        position += batch.size_in_bytes


def _whole_batches_length(data: bytes, max_offset: int | None) -> int:
    """How many leading bytes of `data` are whole batches, each ending below `max_offset` if given."""
    position, end = 0, len(data)
    unpack_base_and_length = _BASE_AND_LENGTH.unpack_from
    unpack_delta = _LAST_OFFSET_DELTA.unpack_from
    while end - position >= HEADER_SIZE:
        base_offset, batch_length = unpack_base_and_length(data, position)
        size = batch_length + LOG_OVERHEAD
        if position + size > end:
            break
        if max_offset is not None and base_offset + unpack_delta(data, position + _LAST_OFFSET_DELTA_AT)[0] >= max_offset:
            break
        position += size
    return position
