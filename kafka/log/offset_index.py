"""OffsetIndex: the sparse `%020d.index` file of one segment (Kafka's OffsetIndex / AbstractIndex).

Seed 002, "Kafka Physical Storage": "a .index file contains an index structure, which maps from a
record offset to the position of that record in the .log file". The index is sparse: one entry per
index.interval.bytes of log, so it stays small enough to keep in memory, and a lookup finds the
nearest entry at or below the wanted offset; the segment then scans forward a few batch headers.

Each entry is 8 bytes, big-endian: a 4-byte offset relative to the segment's base offset and a 4-byte
byte position in the .log file. Entries only ever grow, in both columns.

Design choice (differs from Kafka): Kafka preallocates the file to segment.index.bytes, mmaps it,
and trims it on close, because the JVM reads the mapped buffer directly. Here the entries live in
two `array('i')` columns that `bisect` searches in C, and the file is append-only: each entry is
one 8-byte `os.write`. So the file on disk is always exactly `entries * 8` bytes: nothing to trim on
close, no tail of zeros to tell apart from real entries after a crash, and at most one torn entry,
which `sanity_check` reports. segment.index.bytes still bounds the entry count (`is_full`).
"""

from __future__ import annotations

import os
import struct
import sys
from array import array
from bisect import bisect_left, bisect_right
from typing import NamedTuple

from kafka.log.errors import CorruptIndexError, LogSegmentOffsetOverflowError

ENTRY_SIZE = 8
_ENTRY = struct.Struct(">ii")
_INT_MAX = 2**31 - 1


class OffsetPosition(NamedTuple):
    """An absolute offset and the byte position of its batch in the .log file."""

    offset: int
    position: int


class OffsetIndex:
    """The sparse offset -> position map of one segment, in memory and in its file."""

    def __init__(self, path: str, base_offset: int, max_index_size: int = 10 * 1024 * 1024) -> None:
        self.path = path
        self.base_offset = base_offset
        self.max_entries = max(1, max_index_size // ENTRY_SIZE)
        self.newly_created = not os.path.exists(path)
        # O_APPEND: every entry lands at the end even if the file was truncated behind our back.
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        # Appenders add to `_positions` before `_relative_offsets`, so a reader that bisects over
        # `_relative_offsets` always finds the matching position (readers take no lock).
        self._relative_offsets = array("i")
        self._positions = array("i")
        self._torn_bytes = 0
        self._load()

    # ------------------------------------------------------------------------------ loading

    def _load(self) -> None:
        length = os.fstat(self._fd).st_size
        self._torn_bytes = length % ENTRY_SIZE
        whole = length - self._torn_bytes
        if whole == 0:
            return
        data = os.pread(self._fd, whole, 0)
        pairs = array("i", data)
        if sys.byteorder == "little":
            pairs.byteswap()  # the file is big-endian, like Java's ByteBuffer
        self._positions = pairs[1::2]
        self._relative_offsets = pairs[0::2]

    def sanity_check(self) -> None:
        """Raise CorruptIndexError if the file cannot be a valid index (Kafka's sanityCheck).

        Checks what a crash can break: a torn last entry, offsets that stop increasing at the tail
        (e.g. zeros written by a file system that extended the file), negative entries."""
        if self._torn_bytes:
            raise CorruptIndexError(f"index file {self.path} has a torn entry ({self._torn_bytes} extra bytes)")
        n = len(self._relative_offsets)
        if n == 0:
            return
        if self._relative_offsets[0] < 0 or self._positions[0] < 0:
            raise CorruptIndexError(f"index file {self.path} has a negative first entry")
        if n > 1 and (self._relative_offsets[-1] <= self._relative_offsets[-2]
                      or self._positions[-1] < self._positions[-2]):
            raise CorruptIndexError(f"index file {self.path}: last entry {self.entry(n - 1)} does not follow "
                                    f"{self.entry(n - 2)}")

    # ------------------------------------------------------------------------------ reading

    @property
    def entries(self) -> int:
        return len(self._relative_offsets)

    def entry(self, n: int) -> OffsetPosition:
        return OffsetPosition(self.base_offset + self._relative_offsets[n], self._positions[n])

    @property
    def last_offset(self) -> int:
        """The offset of the last entry, or the base offset for an empty index."""
        n = len(self._relative_offsets)
        return self.base_offset + self._relative_offsets[n - 1] if n else self.base_offset

    def last_entry(self) -> OffsetPosition:
        n = len(self._relative_offsets)
        return self.entry(n - 1) if n else OffsetPosition(self.base_offset, 0)

    def lookup(self, target_offset: int) -> OffsetPosition:
        """The largest entry whose offset is <= target_offset, or (base_offset, 0) if there is none.

        A binary search: O(log n) however big the segment."""
        relative = target_offset - self.base_offset
        n = len(self._relative_offsets)  # snapshot: an appender may add entries while we search
        if n == 0 or relative < 0:
            return OffsetPosition(self.base_offset, 0)
        slot = bisect_right(self._relative_offsets, relative, 0, n) - 1
        if slot < 0:
            return OffsetPosition(self.base_offset, 0)
        return OffsetPosition(self.base_offset + self._relative_offsets[slot], self._positions[slot])

    def is_full(self) -> bool:
        return len(self._relative_offsets) >= self.max_entries

    @property
    def size_in_bytes(self) -> int:
        return len(self._relative_offsets) * ENTRY_SIZE

    def can_append_offset(self, offset: int) -> bool:
        return 0 <= offset - self.base_offset <= _INT_MAX

    # ------------------------------------------------------------------------------ writing

    def append(self, offset: int, position: int) -> None:
        """Add an entry; offsets must strictly increase (Kafka's InvalidOffsetException otherwise)."""
        relative = offset - self.base_offset
        if not 0 <= relative <= _INT_MAX:
            raise LogSegmentOffsetOverflowError(f"offset {offset} does not fit a segment based at {self.base_offset}")
        n = len(self._relative_offsets)
        if n and relative <= self._relative_offsets[n - 1]:
            raise ValueError(f"index entry {offset} is not larger than the last entry {self.last_offset} "
                             f"in {self.path}")
        if n >= self.max_entries:
            raise ValueError(f"index {self.path} is full ({n} entries)")
        os.write(self._fd, _ENTRY.pack(relative, position))
        self._positions.append(position)
        self._relative_offsets.append(relative)

    def truncate_to(self, offset: int) -> None:
        """Drop every entry whose offset is >= `offset` (used when the log is truncated)."""
        keep = bisect_left(self._relative_offsets, offset - self.base_offset)
        self._truncate_to_entries(keep)

    def truncate(self) -> None:
        """Drop every entry: recovery rebuilds the index from the .log file."""
        self._truncate_to_entries(0)

    def _truncate_to_entries(self, keep: int) -> None:
        del self._relative_offsets[keep:]
        del self._positions[keep:]
        os.ftruncate(self._fd, keep * ENTRY_SIZE)
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
        return f"OffsetIndex({self.path!r}, base_offset={self.base_offset}, entries={self.entries})"
