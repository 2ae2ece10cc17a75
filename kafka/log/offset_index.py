"""OffsetIndex: the sparse `%020d.index` file of one segment (Kafka's OffsetIndex).

Seed 002, "Kafka Physical Storage": "a .index file contains an index structure, which maps from a
record offset to the position of that record in the .log file". The index is sparse: one entry per
index.interval.bytes of log, so it stays small enough to keep in memory, and a lookup finds the
nearest entry at or below the wanted offset; the segment then scans forward a few batch headers.
What a student learns here: how a sparse index trades a short scan for a small, in-memory table,
and why relative 4-byte offsets cap a segment at 2^31-1 offsets past its base.

Each entry is 8 bytes, big-endian: a 4-byte offset relative to the segment's base offset (the key)
and a 4-byte byte position in the .log file (the value). Entries only ever grow, in both columns.

The file and memory mechanics (append-only file, in-memory columns, loading, truncation, the torn
entry check) are shared with TimeIndex in kafka/log/abstract_index.py, as Kafka shares them in
AbstractIndex; this class adds the entry layout, the lookup and its own sanity rules.
"""

from __future__ import annotations

import struct
from bisect import bisect_left, bisect_right
from typing import NamedTuple

from kafka.log.abstract_index import _INT_MAX, AbstractIndex
from kafka.log.errors import CorruptIndexError, LogSegmentOffsetOverflowError

ENTRY_SIZE = 8
_ENTRY = struct.Struct(">ii")


class OffsetPosition(NamedTuple):
    """An absolute offset and the byte position of its batch in the .log file."""

    offset: int
    position: int


class OffsetIndex(AbstractIndex):
    """The sparse offset -> position map of one segment, in memory and in its file.

    Columns: `_keys` are offsets relative to `base_offset`, `_values` are .log byte positions."""

    ENTRY = _ENTRY
    KEY_TYPE = "i"
    VALUE_TYPE = "i"
    KIND = "index file"

    def _check_entries(self) -> None:
        # A negative first entry can only come from garbage on disk: nothing we write is negative.
        if self._keys and (self._keys[0] < 0 or self._values[0] < 0):
            raise CorruptIndexError(f"index file {self.path} has a negative first entry")
        self._check_last_entry_follows()

    # ------------------------------------------------------------------------------ reading

    def entry(self, n: int) -> OffsetPosition:
        return OffsetPosition(self.base_offset + self._keys[n], self._values[n])

    @property
    def last_offset(self) -> int:
        """The offset of the last entry, or the base offset for an empty index."""
        n = len(self._keys)
        return self.base_offset + self._keys[n - 1] if n else self.base_offset

    def last_entry(self) -> OffsetPosition:
        n = len(self._keys)
        return self.entry(n - 1) if n else OffsetPosition(self.base_offset, 0)

    def lookup(self, target_offset: int) -> OffsetPosition:
        """The largest entry whose offset is <= target_offset, or (base_offset, 0) if there is none.

        A binary search: O(log n) however big the segment."""
        relative = target_offset - self.base_offset
        n = len(self._keys)  # snapshot: an appender may add entries while we search
        if n == 0 or relative < 0:
            return OffsetPosition(self.base_offset, 0)
        slot = bisect_right(self._keys, relative, 0, n) - 1
        if slot < 0:
            return OffsetPosition(self.base_offset, 0)
        return OffsetPosition(self.base_offset + self._keys[slot], self._values[slot])

    # ------------------------------------------------------------------------------ writing

    def append(self, offset: int, position: int) -> None:
        """Add an entry; offsets must strictly increase (Kafka's InvalidOffsetException otherwise)."""
        relative = offset - self.base_offset
        if not 0 <= relative <= _INT_MAX:
            raise LogSegmentOffsetOverflowError(f"offset {offset} does not fit a segment based at "
                                                f"{self.base_offset}")
        n = len(self._keys)
        if n and relative <= self._keys[n - 1]:
            raise ValueError(f"index entry {offset} is not larger than the last entry {self.last_offset} "
                             f"in {self.path}")
        if n >= self.max_entries:
            raise ValueError(f"index {self.path} is full ({n} entries)")
        self._append_entry(relative, position)

    def truncate_to(self, offset: int) -> None:
        """Drop every entry whose offset is >= `offset` (used when the log is truncated)."""
        keep = bisect_left(self._keys, offset - self.base_offset)
        self._truncate_to_entries(keep)
