"""TimeIndex: the sparse `%020d.timeindex` file of one segment (Kafka's TimeIndex, KIP-33).

The offset index answers "where is offset N?"; the time index answers "which offset first reaches
time T?", for ListOffsets by timestamp (a consumer's `offsets_for_times`) and for time-based
retention and rolling. Each entry is 12 bytes, big-endian: the largest record timestamp seen so far
in the segment (8 bytes) and the offset of the batch that holds it, relative to the segment's base
offset (4 bytes). The segment writes one whenever it writes an offset index entry and the largest
timestamp has grown since the last one, so timestamps and offsets both only increase and a lookup is
a binary search, followed by a short scan of batch headers from the matching offset index entry.

Like OffsetIndex (and unlike Kafka's preallocated, memory-mapped file), the file is append-only and
the entries live in two arrays, so the file is exactly `entries * 12` bytes.
"""

from __future__ import annotations

import os
import struct
from array import array
from bisect import bisect_right
from typing import NamedTuple

from kafka.log.errors import CorruptIndexError

ENTRY_SIZE = 12
_ENTRY = struct.Struct(">qi")
NO_TIMESTAMP = -1


class TimestampOffset(NamedTuple):
    """A time index entry: the largest timestamp so far and the (absolute) offset that carries it."""

    timestamp: int
    offset: int


class TimeIndex:
    """The sparse timestamp -> offset map of one segment, in memory and in its file."""

    def __init__(self, path: str, base_offset: int, max_index_size: int = 10 * 1024 * 1024) -> None:
        self.path = path
        self.base_offset = base_offset
        self.max_entries = max(1, max_index_size // ENTRY_SIZE)
        self.newly_created = not os.path.exists(path)
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        self._timestamps = array("q")
        self._relative_offsets = array("i")
        self._torn_bytes = 0
        self._load()

    def _load(self) -> None:
        length = os.fstat(self._fd).st_size
        self._torn_bytes = length % ENTRY_SIZE
        for timestamp, relative in _ENTRY.iter_unpack(os.pread(self._fd, length - self._torn_bytes, 0)):
            self._relative_offsets.append(relative)
            self._timestamps.append(timestamp)

    def sanity_check(self) -> None:
        """Raise CorruptIndexError for a torn entry or entries that stop increasing (Kafka's sanityCheck)."""
        if self._torn_bytes:
            raise CorruptIndexError(f"time index {self.path} has a torn entry ({self._torn_bytes} extra bytes)")
        n = len(self._timestamps)
        if n > 1 and (self._timestamps[-1] <= self._timestamps[-2]
                      or self._relative_offsets[-1] < self._relative_offsets[-2]):
            raise CorruptIndexError(f"time index {self.path}: last entry {self.entry(n - 1)} does not follow "
                                    f"{self.entry(n - 2)}")
        if n and self._relative_offsets[0] < 0:
            raise CorruptIndexError(f"time index {self.path} has a negative first entry")

    # ------------------------------------------------------------------------------ reading

    @property
    def entries(self) -> int:
        return len(self._timestamps)

    def entry(self, n: int) -> TimestampOffset:
        return TimestampOffset(self._timestamps[n], self.base_offset + self._relative_offsets[n])

    def last_entry(self) -> TimestampOffset:
        n = len(self._timestamps)
        return self.entry(n - 1) if n else TimestampOffset(NO_TIMESTAMP, self.base_offset)

    def lookup(self, target_timestamp: int) -> TimestampOffset:
        """The last entry whose timestamp is <= the target, or (-1, base offset) if there is none.

        Every record before that entry's offset is older than the target, so the scan for the first
        record reaching the target may start there."""
        n = len(self._timestamps)
        slot = bisect_right(self._timestamps, target_timestamp, 0, n) - 1
        if slot < 0:
            return TimestampOffset(NO_TIMESTAMP, self.base_offset)
        return self.entry(slot)

    def is_full(self) -> bool:
        return len(self._timestamps) >= self.max_entries

    @property
    def size_in_bytes(self) -> int:
        return len(self._timestamps) * ENTRY_SIZE

    # ------------------------------------------------------------------------------ writing

    def maybe_append(self, timestamp: int, offset: int, skip_full_check: bool = False) -> None:
        """Add (timestamp, offset) if the timestamp is larger than the last entry's (Kafka's maybeAppend).

        `skip_full_check`: the final entry a segment writes when it stops being active may go past
        segment.index.bytes, as in Kafka, so the segment's largest timestamp is always on disk."""
        n = len(self._timestamps)
        if n and timestamp <= self._timestamps[n - 1]:
            return
        if not skip_full_check and n >= self.max_entries:
            raise ValueError(f"time index {self.path} is full ({n} entries)")
        relative = offset - self.base_offset
        if n and relative < self._relative_offsets[n - 1]:
            raise ValueError(f"time index entry offset {offset} is below the last one in {self.path}")
        os.write(self._fd, _ENTRY.pack(timestamp, relative))
        self._relative_offsets.append(relative)
        self._timestamps.append(timestamp)

    def truncate(self) -> None:
        del self._timestamps[:]
        del self._relative_offsets[:]
        os.ftruncate(self._fd, 0)
        self._torn_bytes = 0

    def flush(self) -> None:
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def rename_to(self, path: str) -> None:
        os.rename(self.path, path)
        self.path = path

    def delete(self) -> None:
        self.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def __repr__(self) -> str:
        return f"TimeIndex({self.path!r}, base_offset={self.base_offset}, entries={self.entries})"

