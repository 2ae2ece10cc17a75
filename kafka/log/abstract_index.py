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

Lazy, and no descriptor held (Kafka's LazyIndex): the entries are read from the file the first time
a lookup or an append needs them, not when the segment is opened, so starting a broker with
thousands of segments reads none of their indexes. And like Kafka's mmapped index, which keeps no
file open once mapped, an index here holds no file descriptor between uses: an append opens the
file, writes its entry and closes it (a few microseconds, once per index.interval.bytes of log),
and truncation, flush and loading do the same. A partition at rest therefore costs only its
active segment's .log descriptor (docs/storage.md, "File descriptors").
"""

from __future__ import annotations

import errno
import os
import struct
import sys
import threading
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
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
        if self.newly_created:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))  # an empty index is a valid one
        # Appenders add to the values before the keys, so a reader that bisects over `_keys` always
        # finds the matching value (readers take no lock). None until first used (LazyIndex).
        self._loaded_keys: array | None = None
        self._loaded_values: array | None = None
        self._load_lock = threading.Lock()
        self._torn_bytes = 0
        self._appending = False
        self._append_fd = -1  # open only inside `appending()`, from its first entry on

    # ------------------------------------------------------------------------------ loading

    @property
    def _keys(self) -> array:
        keys = self._loaded_keys
        if keys is None:
            keys = self._load()[0]
        return keys

    @_keys.setter
    def _keys(self, keys: array) -> None:  # a lab's test swaps in a column that counts its reads
        self._load()
        self._loaded_keys = keys

    @property
    def _values(self) -> array:
        values = self._loaded_values
        if values is None:
            values = self._load()[1]
        return values

    @_values.setter
    def _values(self, values: array) -> None:
        self._load()
        self._loaded_values = values

    @property
    def is_loaded(self) -> bool:
        """Whether the entries have been read from the file (the first lookup or append does it)."""
        return self._loaded_keys is not None

    def _load(self) -> tuple[array, array]:
        """Read the file into the two columns, once, whichever reader or appender comes first."""
        with self._load_lock:
            if self._loaded_keys is None:
                keys, values = array(self.KEY_TYPE), array(self.VALUE_TYPE)
                data = _read_whole(self.path)
                # A crash can leave part of one entry at the tail; remember it for sanity_check, load the
                # rest.
                self._torn_bytes = len(data) % self.ENTRY.size
                if self._torn_bytes:
                    data = data[: len(data) - self._torn_bytes]
                self._fill(keys, values, data)
                self._loaded_values = values
                self._loaded_keys = keys
            return self._loaded_keys, self._loaded_values

    def _fill(self, keys: array, values: array, data: bytes) -> None:
        if not data:
            return
        if self.KEY_TYPE == self.VALUE_TYPE and array(self.KEY_TYPE).itemsize * 2 == self.ENTRY.size:
            # Both columns share one type: read the file as one array in C, then split it by stride,
            # instead of unpacking a Python tuple per entry (an index can hold a million entries).
            pairs = array(self.KEY_TYPE, data)
            if sys.byteorder == "little":
                pairs.byteswap()  # the file is big-endian, like Java's ByteBuffer
            values.extend(pairs[1::2])
            keys.extend(pairs[0::2])
            return
        for key, value in self.ENTRY.iter_unpack(data):
            values.append(value)
            keys.append(key)

    def sanity_check(self) -> None:
        """Raise CorruptIndexError if the file cannot be a valid index (Kafka's sanityCheck).

        Checks what a crash can break: a torn last entry here, then the subclass's rules for the
        entries themselves (`_check_entries`)."""
        self._load()
        if self._torn_bytes:
            raise CorruptIndexError(f"{self.KIND} {self.path} has a torn "
                                    f"entry ({self._torn_bytes} extra bytes)")
        self._check_entries()

    def _check_entries(self) -> None:
        """The subclass's checks of the loaded entries; raise CorruptIndexError on the first failure."""
        raise NotImplementedError

    def _check_last_entry_follows(self) -> None:
        """Keys must rise and values must not fall at the tail, where a crash (or zeros written by a
        file system that extended the file) would break them; earlier entries were checked when written."""
        n = len(self._keys)
        if n > 1 and (self._keys[-1] <= self._keys[-2] or self._values[-1] < self._values[-2]):
            raise CorruptIndexError(f"{self.KIND} {self.path}: last entry {self.entry(n - 1)} does not "
                                    f"follow {self.entry(n - 2)}")

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

    # ------------------------------------------------------------------------------ writing

    def _append_entry(self, key: int, value: int) -> None:
        """Write one entry at the file's end, then publish it to readers (value first, see __init__).

        The subclass has already checked that the entry is in order and that there is room."""
        entry = self.ENTRY.pack(key, value)
        keys, values = self._load()
        fd = self._append_fd
        if fd < 0:
            fd = self._open_for_append()
            if self._appending:
                self._append_fd = fd  # the segment append's later entries write through it too
        try:
            if os.write(fd, entry) != len(entry):  # a full disk took part of it: cut the torn entry off
                os.ftruncate(fd, len(keys) * self.ENTRY.size)
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), self.path)
        finally:
            if not self._appending:
                os.close(fd)
        values.append(value)
        keys.append(key)

    def _open_for_append(self) -> int:
        # O_APPEND: every entry lands at the end even if the file was truncated behind our back.
        return os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    @contextmanager
    def appending(self) -> Iterator[None]:
        """One segment append: the file is opened at its first entry, if it writes one, and closed
        when the append is done, whatever happened. Only the log's one appender calls it."""
        if self._appending:  # a nested call: the outer one closes
            yield
            return
        self._appending = True
        try:
            yield
        finally:
            self._appending = False
            fd, self._append_fd = self._append_fd, -1
            if fd >= 0:
                os.close(fd)

    def truncate(self) -> None:
        """Drop every entry: recovery rebuilds the index from the .log file."""
        self._truncate_to_entries(0)

    def truncate_to_entries(self, keep: int) -> None:
        """Keep the first ``keep`` entries (a failed append takes back the ones it added)."""
        if keep < len(self._keys):
            self._truncate_to_entries(keep)

    def _truncate_to_entries(self, keep: int) -> None:
        keys, values = self._load()
        del keys[keep:]
        del values[keep:]
        os.truncate(self.path, keep * self.ENTRY.size)
        self._torn_bytes = 0  # the cut lands on an entry boundary, so no torn tail is left

    def flush(self) -> None:
        fd = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def close(self) -> None:
        """Nothing to close: the index holds no descriptor between uses (kept for the segment's close)."""

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
        entries = self.entries if self.is_loaded else "not loaded"
        return f"{type(self).__name__}({self.path!r}, base_offset={self.base_offset}, entries={entries})"


def _read_whole(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.pread(fd, os.fstat(fd).st_size, 0)
    finally:
        os.close(fd)
