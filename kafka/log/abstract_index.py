"""AbstractIndex: what a segment's two index files have in common (Kafka's AbstractIndex).

Seed 002, "Kafka Physical Storage": next to each .log file sits "a .index file, [which] contains an
index structure, which maps from a record offset to the position of that record in the .log file",
and since KIP-33 a .timeindex file beside it. Both are sparse, sorted tables of fixed-size entries
that say where to start reading a segment; they differ only in what an entry holds and how a lookup
reads it. What a student learns here is that shared half: how a fixed-size-entry file is opened,
loaded, appended to, checked after a crash and cut back, independently of what an entry means.
OffsetIndex (8-byte entries) and TimeIndex (12-byte entries) add the meaning.

An entry is two big-endian columns, packed by the subclass's `ENTRY` struct in the order (key, value):
the key is the column a lookup binary-searches (a relative offset in OffsetIndex, a timestamp in
TimeIndex) and only ever grows; the value is what the lookup returns and never shrinks.

Design choice (differs from Kafka): Kafka preallocates the file to segment.index.bytes, mmaps it,
and trims it on close, because the JVM reads the mapped buffer directly. Here the entries live in
two in-memory `array` columns that `bisect` searches in C, and the file is append-only: each entry
is one `os.write` of `ENTRY.size` bytes. So the file on disk is always exactly `entries * ENTRY.size`
bytes: nothing to trim on close, no tail of zeros to tell apart from real entries after a crash, and
at most one torn entry, which `sanity_check` reports. segment.index.bytes still bounds the entry
count (`is_full`).
"""

from __future__ import annotations

import errno
import os
import struct
import sys
from array import array
from typing import ClassVar

from kafka.log.errors import CorruptIndexError

_INT_MAX = 2**31 - 1


class AbstractIndex:
    """A sorted, append-only file of fixed-size (key, value) entries, mirrored in two arrays."""

    # Set by each subclass: the on-disk layout and the array typecodes of its two columns.
    ENTRY: ClassVar[struct.Struct]
    KEY_TYPE: ClassVar[str]
    VALUE_TYPE: ClassVar[str]
    # How error messages name the file ("index file", "time index"); kept per class so the messages
    # operators and tests see are the ones each index has always printed.
    KIND: ClassVar[str]

    def __init__(self, path: str, base_offset: int, max_index_size: int = 10 * 1024 * 1024) -> None:
        self.path = path
        self.base_offset = base_offset
        self.max_entries = max(1, max_index_size // self.ENTRY.size)
        # A segment rebuilds an index that did not exist when its .log already held data.
        self.newly_created = not os.path.exists(path)
        # O_APPEND: every entry lands at the end even if the file was truncated behind our back.
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        # Appenders add to `_values` before `_keys`, so a reader that bisects over `_keys` always
        # finds the matching value (readers take no lock).
        self._keys = array(self.KEY_TYPE)
        self._values = array(self.VALUE_TYPE)
        self._torn_bytes = 0
        self._load()

    # ------------------------------------------------------------------------------ loading

    def _load(self) -> None:
        length = os.fstat(self._fd).st_size
        # A crash can leave part of one entry at the tail; remember it for sanity_check, load the rest.
        self._torn_bytes = length % self.ENTRY.size
        whole = length - self._torn_bytes
        if whole == 0:
            return
        data = os.pread(self._fd, whole, 0)
        if self.KEY_TYPE == self.VALUE_TYPE and array(self.KEY_TYPE).itemsize * 2 == self.ENTRY.size:
            # Both columns share one type: read the file as one array in C, then split it by stride,
            # instead of unpacking a Python tuple per entry (an index can hold a million entries).
            pairs = array(self.KEY_TYPE, data)
            if sys.byteorder == "little":
                pairs.byteswap()  # the file is big-endian, like Java's ByteBuffer
            self._values = pairs[1::2]
            self._keys = pairs[0::2]
            return
        for key, value in self.ENTRY.iter_unpack(data):
            self._values.append(value)
            self._keys.append(key)

    def sanity_check(self) -> None:
        """Raise CorruptIndexError if the file cannot be a valid index (Kafka's sanityCheck).

        Checks what a crash can break: a torn last entry here, then the subclass's rules for the
        entries themselves (`_check_entries`)."""
        if self._torn_bytes:
            raise CorruptIndexError(f"{self.KIND} {self.path} has a torn entry ({self._torn_bytes} extra bytes)")
        self._check_entries()

    def _check_entries(self) -> None:
        """The subclass's checks of the loaded entries; raise CorruptIndexError on the first failure."""
        raise NotImplementedError

    def _check_last_entry_follows(self) -> None:
        """Keys must rise and values must not fall at the tail, where a crash (or zeros written by a
        file system that extended the file) would break them; earlier entries were checked when written."""
        n = len(self._keys)
        if n > 1 and (self._keys[-1] <= self._keys[-2] or self._values[-1] < self._values[-2]):
            raise CorruptIndexError(f"{self.KIND} {self.path}: last entry {self.entry(n - 1)} does not follow "
                                    f"{self.entry(n - 2)}")

    # ------------------------------------------------------------------------------ reading

    @property
    def entries(self) -> int:
        return len(self._keys)

    def entry(self, n: int) -> tuple[int, int]:
        """The n-th entry in the subclass's public form (absolute offsets, named fields)."""
        raise NotImplementedError

    def is_full(self) -> bool:
        return len(self._keys) >= self.max_entries

    @property
    def size_in_bytes(self) -> int:
        return len(self._keys) * self.ENTRY.size

    def can_append_offset(self, offset: int) -> bool:
        """Whether `offset` fits the 4-byte relative offset both indexes store."""
        return 0 <= offset - self.base_offset <= _INT_MAX

    # ------------------------------------------------------------------------------ writing

    def _append_entry(self, key: int, value: int) -> None:
        """Write one entry at the file's end, then publish it to readers (value first, see __init__).

        The subclass has already checked that the entry is in order and that there is room."""
        entry = self.ENTRY.pack(key, value)
        if os.write(self._fd, entry) != len(entry):  # a full disk took part of it: cut the torn entry off
            os.ftruncate(self._fd, len(self._keys) * self.ENTRY.size)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), self.path)
        self._values.append(value)
        self._keys.append(key)

    def truncate(self) -> None:
        """Drop every entry: recovery rebuilds the index from the .log file."""
        self._truncate_to_entries(0)

    def truncate_to_entries(self, keep: int) -> None:
        """Keep the first ``keep`` entries (a failed append takes back the ones it added)."""
        if keep < len(self._keys):
            self._truncate_to_entries(keep)

    def _truncate_to_entries(self, keep: int) -> None:
        del self._keys[keep:]
        del self._values[keep:]
        os.ftruncate(self._fd, keep * self.ENTRY.size)
        self._torn_bytes = 0  # the cut lands on an entry boundary, so no torn tail is left

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
        return f"{type(self).__name__}({self.path!r}, base_offset={self.base_offset}, entries={self.entries})"
