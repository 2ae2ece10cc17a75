"""TimeIndex: the sparse `%020d.timeindex` file of one segment (Kafka's TimeIndex, KIP-33).

The offset index answers "where is offset N?"; the time index answers "which offset first reaches
time T?", for ListOffsets by timestamp (a consumer's `offsets_for_times`) and for time-based
retention and rolling. What a student learns here: how a second sparse index over the same segment
turns a timestamp into an offset, which the offset index then turns into a byte position.

Each entry is 12 bytes, big-endian: the largest record timestamp seen so far in the segment (8 bytes,
the key) and the offset of the batch that holds it, relative to the segment's base offset (4 bytes,
the value). The segment writes one whenever it writes an offset index entry and the largest
timestamp has grown since the last one, so timestamps and offsets both only increase and a lookup is
a binary search, followed by a short scan of batch headers from the matching offset index entry.

The file and memory mechanics (append-only file of exactly `entries * 12` bytes, in-memory columns,
loading, truncation, the torn entry check) are shared with OffsetIndex in
kafka/log/abstract_index.py, as Kafka shares them in AbstractIndex.
"""

from __future__ import annotations

import struct
from bisect import bisect_right
from typing import NamedTuple

from kafka.log.abstract_index import AbstractIndex
from kafka.log.errors import CorruptIndexError

ENTRY_SIZE = 12
_ENTRY = struct.Struct(">qi")
NO_TIMESTAMP = -1


class TimestampOffset(NamedTuple):
    """A time index entry: the largest timestamp so far and the (absolute) offset that carries it."""

    timestamp: int
    offset: int


class TimeIndex(AbstractIndex):
    """The sparse timestamp -> offset map of one segment, in memory and in its file.

    Columns: `_keys` are timestamps, `_values` are offsets relative to `base_offset`."""

    ENTRY = _ENTRY
    KEY_TYPE = "q"
    VALUE_TYPE = "i"
    KIND = "time index"

    def _check_entries(self) -> None:
        self._check_last_entry_follows()
        # Timestamps may be negative (records before 1970); only the offset column may not.
        if self._values and self._values[0] < 0:
            raise CorruptIndexError(f"time index {self.path} has a negative first entry")

    # ------------------------------------------------------------------------------ reading

    def entry(self, n: int) -> TimestampOffset:
        return TimestampOffset(self._keys[n], self.base_offset + self._values[n])

    def last_entry(self) -> TimestampOffset:
        n = len(self._keys)
        return self.entry(n - 1) if n else TimestampOffset(NO_TIMESTAMP, self.base_offset)

    def lookup(self, target_timestamp: int) -> TimestampOffset:
        """The last entry whose timestamp is <= the target, or (-1, base offset) if there is none.

        Every record before that entry's offset is older than the target, so the scan for the first
        record reaching the target may start there."""
        # BEGIN LAB 03 SOLUTION: binary-search the timestamps in _keys for the last one <= the target
        n = len(self._keys)
        slot = bisect_right(self._keys, target_timestamp, 0, n) - 1
        if slot < 0:
            return TimestampOffset(NO_TIMESTAMP, self.base_offset)
        return self.entry(slot)
        # END LAB 03 SOLUTION

    # ------------------------------------------------------------------------------ writing

    def maybe_append(self, timestamp: int, offset: int, skip_full_check: bool = False) -> None:
        """Add (timestamp, offset) if the timestamp is larger than the last entry's (Kafka's maybeAppend).

        `skip_full_check`: the final entry a segment writes when it stops being active may go past
        segment.index.bytes, as in Kafka, so the segment's largest timestamp is always on disk."""
        n = len(self._keys)
        if n and timestamp <= self._keys[n - 1]:
            return
        if not skip_full_check and n >= self.max_entries:
            raise ValueError(f"time index {self.path} is full ({n} entries)")
        relative = offset - self.base_offset
        if n and relative < self._values[n - 1]:
            raise ValueError(f"time index entry offset {offset} is below the last one in {self.path}")
        self._append_entry(timestamp, relative)
