"""LogSegment: one `%020d.log` file, its `%020d.index`, `%020d.timeindex` and `%020d.txnindex` (Kafka's
LogSegment over FileRecords).

Seed 002, "Kafka Physical Storage": "the commit log is organized as a collection of segments. Each
segment is made up of several files. One of these, a .log file, contains the event data. A second, a
.index file, contains an index structure, which maps from a record offset to the position of that
record in the .log file". And for a fetch, the I/O thread "will take the offset ... and compare it
with the .index file ... That will tell it exactly the range of bytes that need to be read".

The .log file is the record batches exactly as the producer sent them (offsets assigned), end to end.
The file names are the segment's base offset: the offset of its first batch, zero-padded to 20 digits
so that a directory listing sorts them in log order (LogFileUtils, kafka/log/log_file_utils.py, names
them). The .timeindex (KIP-33) maps timestamps to offsets for ListOffsets by time and for time-based
retention. The .txnindex (KIP-98, only once a transaction is aborted in the segment) lists the aborted
transactions whose markers it holds.

Concurrency: one appender at a time (the UnifiedLog's lock). Readers take no lock; they only read up
to a size they snapshotted, and `_size` grows only after the bytes and index entries are written.

Descriptors (docs/storage.md, "File descriptors"): the .log file is open while the segment is the
log's active one (`set_active`) and, for any other segment, only while someone reads it: every
read pins the descriptor (`reading`), opening the file if it is closed, and the last reader of an
inactive segment closes it again. Kafka keeps every segment's FileChannel open; here a partition at
rest costs one descriptor whatever its number of segments. The indexes hold none between uses
(kafka/log/abstract_index.py). A zero-copy fetch takes its own duplicate (FileRecords), so a closed
segment never cuts a response short.

Walking the .log file's bytes (batch headers, the batch holding an offset, the first record at a
timestamp) is FileRecords' (kafka/log/file_records.py), over the descriptor a read pins here.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from kafka.log.errors import CorruptIndexError, LogSegmentOffsetOverflowError, TornSegmentError
from kafka.log.fetch_data_info import FetchDataInfo, LogOffsetMetadata
from kafka.log.file_records import (
    BASE_OFFSET_AND_LENGTH,
    LOOKUP_CHUNK,
    SCAN_CHUNK,
    FileRecords,
    TimestampAndOffset,
    whole_batches_length,
)
from kafka.log.log_config import LogConfig
from kafka.log.log_file_utils import log_file, offset_index_file, time_index_file, txn_index_file
from kafka.log.offset_index import OffsetIndex, OffsetPosition
from kafka.log.time_index import TimeIndex
from kafka.log.transaction_index import AbortedTxn, TransactionIndex, TxnIndexSearchResult
from kafka.protocol.record_batch import HEADER_SIZE, CorruptRecordError, RecordBatch, iter_batches
from kafka.utils.time import Time

__all__ = ["LogSegment", "TimestampAndOffset"]

_INT_MAX = 2**31 - 1


class LogSegment:
    """A .log file of whole record batches plus the sparse offset and time indexes into it."""

    def __init__(self, dir: str, base_offset: int, config: LogConfig, time: Time,
                 file_suffix: str = "") -> None:
        self.dir = dir
        self.base_offset = base_offset
        self.time = time
        self.index_interval_bytes = config.index_interval_bytes
        self.log_path = log_file(dir, base_offset) + file_suffix
        # The descriptor is opened by the first pin and closed by the last (see the module docstring).
        self._fd = -1
        self._pins = 0
        self._pin_lock = threading.Lock()
        self._active = False  # the log's active segment holds one pin for as long as it is active
        self._closed = False
        self._fd = os.open(self.log_path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            self._size = os.fstat(self._fd).st_size
        finally:
            self._fd = _close(self._fd)
        self.offset_index = OffsetIndex(offset_index_file(dir, base_offset) + file_suffix, base_offset,
                                        config.segment_index_bytes)
        self.time_index = TimeIndex(time_index_file(dir, base_offset) + file_suffix, base_offset,
                                    config.segment_index_bytes)
        self.txn_index = TransactionIndex(base_offset, txn_index_file(dir, base_offset) + file_suffix)
        self._bytes_since_last_index_entry = 0
        self.created_ms = time.milliseconds()
        # The first batch's timestamp, for segment.ms; the largest timestamp and the offset of its
        # batch, for the time index, ListOffsets and retention.ms. For bytes already on disk at load
        # both are read lazily from the file (the largest from the time index's last entry on); the
        # appender keeps its own maximum so that a lazy scan racing an append loses nothing.
        self._rolling_based_timestamp: int | None = -1 if self._size == 0 else None
        self._loaded_size = self._size
        self._loaded_max: TimestampAndOffset | None = _NO_MAX if self._size == 0 else None
        self._appended_max = _NO_MAX

    # ------------------------------------------------------------------------------ descriptor

    def set_active(self, active: bool) -> None:
        """The log made this its active segment (keep the .log open for appends), or rolled past it
        (close it once no reader holds it)."""
        if active and not self._active:
            self._pin()
            self._active = True
        elif not active and self._active:
            self._active = False
            self._unpin()

    @property
    def is_open(self) -> bool:
        """Whether the .log file has a descriptor now (the active segment's always does)."""
        return self._fd >= 0

    @contextmanager
    def reading(self) -> Iterator[int]:
        """Hold the .log descriptor open for a read (re-entrant); yields it."""
        fd = self._pin()
        try:
            yield fd
        finally:
            self._unpin()

    def _pin(self) -> int:
        with self._pin_lock:
            if self._closed:
                raise OSError(errno.EBADF, f"segment {self.log_path} is closed")
            if self._fd < 0:
                self._fd = self._open()
            self._pins += 1
            return self._fd

    def _open(self) -> int:
        # O_APPEND: a write always lands at the end; reads use os.pread and ignore the file offset.
        try:
            return os.open(self.log_path, os.O_RDWR | os.O_APPEND)
        except FileNotFoundError:  # renamed (.deleted, .swap) between our read of the path and the open
            return os.open(self.log_path, os.O_RDWR | os.O_APPEND)

    def _unpin(self) -> None:
        with self._pin_lock:
            self._pins -= 1
            if self._pins == 0:
                self._fd = _close(self._fd)

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
        return self.max_timestamp_and_offset_so_far.timestamp

    @property
    def max_timestamp_and_offset_so_far(self) -> TimestampAndOffset:
        """The largest batch max timestamp in the segment and that batch's last offset (-1 if empty)."""
        loaded = self._loaded_max
        if loaded is None:
            loaded = self._loaded_max = self._scan_max_timestamp()
        return self._appended_max if self._appended_max.timestamp > loaded.timestamp else loaded

    def _scan_max_timestamp(self) -> TimestampAndOffset:
        # Everything before the time index's last entry is no newer than that entry: scan only after it.
        last = self.time_index.last_entry()
        best = TimestampAndOffset(last.timestamp, last.offset)
        start = self.offset_index.lookup(last.offset).position if self.time_index.entries else 0
        for _, batch in self._scan(start, self._loaded_size, SCAN_CHUNK):
            if batch.max_timestamp > best.timestamp:
                best = TimestampAndOffset(batch.max_timestamp, batch.last_offset)
        return best

    @property
    def largest_timestamp(self) -> int:
        """What retention.ms compares with: the largest record timestamp, else the file's mtime."""
        max_timestamp = self.max_timestamp_so_far
        return max_timestamp if max_timestamp >= 0 else self.last_modified

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
        return (self.offset_index.is_full() or self.time_index.is_full()
                or not self.can_convert_to_relative_offset(max_offset_in_messages))

    def time_waited_for_roll(self, now_ms: int, message_timestamp: int) -> int:
        """Segment age for segment.ms: by record timestamps when they exist, else by wall clock."""
        if self._rolling_based_timestamp is None:
            first = next(self._scan(0, self._size, LOOKUP_CHUNK), None)
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
        saved = (self.offset_index.entries, self.time_index.entries, self._bytes_since_last_index_entry,
                 self._appended_max, self._rolling_based_timestamp)
        try:
            with self.reading() as fd, self.offset_index.appending(), self.time_index.appending():
                _write_fully(fd, records)
                for batch in iter_batches(records):  # whole batches, validated: every one is yielded
                    if physical_position == 0 and batch.position == 0:
                        self._rolling_based_timestamp = batch.max_timestamp
                    self._note_batch(batch, physical_position + batch.position)
        except OSError as e:
            # A full disk (ENOSPC) can take part of the write: cut the files back to where they
            # were, so the next append (once there is space) lands right after the last whole batch.
            try:
                self._roll_back_append(physical_position, saved)
            except OSError as again:
                message = f"{e.strerror}; cutting {self.log_path} back failed too: {again}"
                raise TornSegmentError(e.errno, message) from e
            raise
        # Publish last: a reader that sees the new size finds the bytes and the index entries there.
        self._size = physical_position + len(records)

    def _roll_back_append(self, physical_position: int, saved: tuple) -> None:
        """Undo a write that failed partway (a full disk, an I/O error): only the fault path comes here."""
        # BEGIN LAB 12 SOLUTION: undo the write: .log to physical_position, indexes and counters as in saved
        (offset_entries, time_entries, self._bytes_since_last_index_entry, self._appended_max,
         self._rolling_based_timestamp) = saved
        # Shrinking needs no space; if even this fails, the caller knows.
        os.truncate(self.log_path, physical_position)
        self.offset_index.truncate_to_entries(offset_entries)
        self.time_index.truncate_to_entries(time_entries)
        # END LAB 12 SOLUTION

    def _note_batch(self, batch: RecordBatch, position: int) -> None:
        """Track the largest timestamp; write index entries every index.interval.bytes (Kafka's append).

        The offset entry points at this batch; the time entry records the largest timestamp so far
        and its batch, added only when it grew. A full index only loses precision (lookups scan
        further); the log rolls before the next append."""
        if batch.max_timestamp > self.max_timestamp_so_far:
            self._appended_max = TimestampAndOffset(batch.max_timestamp, batch.last_offset)
        index_due = self._bytes_since_last_index_entry >= self.index_interval_bytes
        if index_due and not self.offset_index.is_full():
            self.offset_index.append(batch.base_offset, position)
            if not self.time_index.is_full():
                largest = self.max_timestamp_and_offset_so_far
                self.time_index.maybe_append(largest.timestamp, largest.offset)
            self._bytes_since_last_index_entry = 0
        self._bytes_since_last_index_entry += batch.size_in_bytes

    def on_become_inactive_segment(self) -> None:
        """The log rolled past this segment: put its largest timestamp in the time index for good."""
        largest = self.max_timestamp_and_offset_so_far
        if largest.timestamp >= 0:
            self.time_index.maybe_append(largest.timestamp, largest.offset, skip_full_check=True)

    # ------------------------------------------------------------------------------ reading

    def translate_offset(self, offset: int, starting_position: int = 0) -> OffsetPosition | None:
        """(base offset, position) of the batch that contains `offset`, or None if it is past the end.

        The index gives the nearest entry at or below the offset; from there we walk batch headers
        (Kafka's FileRecords.searchForOffsetFromPosition) to the first batch whose last offset >= it."""
        found = self._find_batch(offset, starting_position, self._size)
        return OffsetPosition(found[1].base_offset, found[0]) if found else None

    def _find_batch(self, offset: int, starting_position: int, end: int) -> tuple[int, RecordBatch] | None:
        start = max(self.offset_index.lookup(offset).position, starting_position)
        with self.reading() as fd:
            return FileRecords.view(fd, end, self.log_path).search_for_offset_with_size(offset, start)

    def read(self, start_offset: int, max_size: int, max_position: int | None = None,
             min_one_message: bool = True, max_offset: int | None = None,
             zero_copy: bool = False) -> FetchDataInfo | None:
        """Whole batches from the one containing `start_offset`, at most `max_size` bytes of them.
        With `zero_copy` the result is a FileRecords slice of this file for os.sendfile; of its
        bytes only batch headers are read, when the range has to be cut to whole batches.

        `max_position` is the end the caller snapshotted (default: the size now). `max_offset` is an
        isolation bound such as the high watermark: a batch holding any offset >= it is left out.
        With `min_one_message` the first batch is returned even if it is larger than `max_size`, so
        a consumer never gets stuck behind a big batch. None if `start_offset` is past this segment."""
        if max_size < 0:
            raise ValueError(f"invalid max size {max_size} for a log read from segment {self.log_path}")
        end = self._size if max_position is None else max_position
        with self.reading():
            return self._read(start_offset, max_size, end, min_one_message, max_offset, zero_copy)

    def _read(self, start_offset: int, max_size: int, end: int, min_one_message: bool, max_offset: int | None,
              zero_copy: bool) -> FetchDataInfo | None:
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
        needs_trimming = fetch_size < end - position or max_offset is not None
        if zero_copy:  # a fetch for the network: not a record byte read here
            if needs_trimming:
                # Cut at a batch boundary found from the headers: reading the range to find it cost
                # two megabyte-sized temporaries per fetch, which glibc gave back and faulted in anew.
                fetch_size = FileRecords.view(self._fd, position + fetch_size, self.log_path
                                              ).whole_batches_length_from(position, max_offset)
            return FetchDataInfo(metadata, FileRecords.slice_of(self._fd, position, fetch_size))
        data = os.pread(self._fd, fetch_size, position)
        if needs_trimming:
            # The range may end inside a batch or pass the isolation bound: keep whole batches only.
            whole = whole_batches_length(data, max_offset)
            if whole < len(data):
                data = data[:whole]
        return FetchDataInfo(metadata, data)

    def read_next_offset(self) -> int:
        """The offset after the last batch (Kafka's readNextOffset): the log end offset on load.

        Starts from the last index entry, so it walks at most index.interval.bytes of headers."""
        return self._scan_tail()[0]

    def has_torn_tail(self) -> bool:
        """True if bytes after the last whole batch do not form one (a crash mid-write, garbage)."""
        return self._scan_tail()[1] != self._size

    def _scan_tail(self) -> tuple[int, int]:
        next_offset, end = self.base_offset, self.offset_index.last_entry().position
        for position, batch in self._scan(end, self._size, SCAN_CHUNK):
            next_offset, end = batch.next_offset, position + batch.size_in_bytes
        return next_offset, end

    def find_offset_by_timestamp(self, timestamp: int, starting_offset: int = 0) -> TimestampAndOffset | None:
        """The first record at or after `starting_offset` whose timestamp is >= `timestamp`.

        The time index gives the last entry older than or as old as the target; the offset index turns
        its offset into a position; from there batch headers are walked to the first batch whose max
        timestamp reaches the target, and that one batch is decoded (Kafka's LogSegment.findOffsetByTimestamp
        and FileRecords.searchForTimestamp)."""
        if self.max_timestamp_so_far < timestamp:
            return None
        entry = self.time_index.lookup(timestamp)
        start = self.offset_index.lookup(max(entry.offset, starting_offset)).position
        with self.reading() as fd:
            records = FileRecords.view(fd, self._size, self.log_path)
            found = self._find_batch(starting_offset, start, records.end)
            if found is None:
                return None
            return records.search_for_timestamp(timestamp, found[0], starting_offset)

    def max_timestamp_and_offset(self) -> TimestampAndOffset | None:
        """The record with the largest timestamp (ListOffsets MAX_TIMESTAMP, -3); earliest on ties."""
        if self._size == 0:
            return None
        return self.find_offset_by_timestamp(self.max_timestamp_so_far, self.base_offset)

    def batches(self, start_position: int = 0, end: int | None = None) -> Iterator[RecordBatch]:
        """Every whole batch (read whole, for tools such as kafka-dump-log and for tests)."""
        with self.reading() as fd:
            records = FileRecords.view(fd, self._size if end is None else end, self.log_path)
            for position, header in records.batches_from(start_position):
                yield records.read_batch(position, header)

    def batch_headers(self, start_offset: int | None = None) -> Iterator[RecordBatch]:
        """Every batch's header only (offsets, epochs, producer ids, timestamps), read in chunks:
        cheap to walk. From the batch holding `start_offset` on, if one is given. A control batch
        comes whole: a transaction marker's record says COMMIT or ABORT."""
        start = 0 if start_offset is None else self.offset_index.lookup(start_offset).position
        for _, header in self._scan(start, self._size, SCAN_CHUNK, whole_control=True):
            if start_offset is None or header.last_offset >= start_offset:
                yield header

    # ------------------------------------------------------------------------------ load and recovery

    def check_index_files_exist(self) -> None:
        """Raise FileNotFoundError if an index is missing beside a .log that holds data (no file is read)."""
        for index in (self.offset_index, self.time_index):
            if index.newly_created and self._size > 0:
                raise FileNotFoundError(f"index {index.path} is missing")

    def sanity_check(self) -> None:
        """Raise FileNotFoundError if the index is missing, CorruptIndexError if it does not fit the log.

        Kafka's loader answers both by calling `recover()` to rebuild the index."""
        self.check_index_files_exist()
        self.offset_index.sanity_check()
        self.time_index.sanity_check()
        if self.offset_index.entries:
            last = self.offset_index.last_entry()
            if last.position + HEADER_SIZE > self._size:
                raise CorruptIndexError(
                    f"index entry {last} points past the end of {self.log_path} ({self._size})")
            with self.reading() as fd:
                header = os.pread(fd, BASE_OFFSET_AND_LENGTH.size, last.position)
            base_offset, _ = BASE_OFFSET_AND_LENGTH.unpack(header)
            if base_offset != last.offset:
                raise CorruptIndexError(
                    f"index entry {last} points at a batch with base offset {base_offset}")

    def recover(self) -> int:
        """Rebuild both indexes from the .log file, checking every batch's size and CRC on the way.

        Stops at the first batch that is torn, corrupt or out of order, and cuts the file there (what
        Kafka's LogSegment.recover does after an unclean shutdown). Returns the bytes cut off.
        Kafka also feeds each batch to the producer state and the leader-epoch cache here; this log
        rebuilds both once loading is done (rebuild_producer_state, load_leader_epoch_cache)."""
        for index in (self.offset_index, self.time_index):
            index.truncate()
            index.newly_created = False  # rebuilt: from now on it is the segment's index
        self._bytes_since_last_index_entry = 0
        self._rolling_based_timestamp = -1
        self._loaded_max = self._appended_max = _NO_MAX
        valid_bytes = 0
        next_offset = self.base_offset
        for position, batch in self._scan(0, self._size, SCAN_CHUNK, whole=True):
            try:
                batch.ensure_valid()
            except CorruptRecordError:
                break
            if batch.base_offset < next_offset or not self.can_convert_to_relative_offset(batch.last_offset):
                break
            if position == 0:
                self._rolling_based_timestamp = batch.max_timestamp
            self._note_batch(batch, position)
            next_offset = batch.next_offset
            valid_bytes = position + batch.size_in_bytes
        truncated = self._size - valid_bytes
        if truncated:
            os.truncate(self.log_path, valid_bytes)
            self._size = valid_bytes
        self.txn_index.truncate_to(next_offset)  # the markers cut off take their entries with them
        self._loaded_size = valid_bytes
        self.on_become_inactive_segment()  # harmless for the active one: its next entries are larger
        return truncated

    def truncate_to(self, offset: int) -> int:
        """Drop every batch from the one holding `offset` on, and rebuild the indexes (Kafka's
        LogSegment.truncateTo: a follower cutting a tail its leader does not have). Returns the bytes cut."""
        found = self.translate_offset(offset)
        if found is None:
            return 0
        cut = self._size - found.position
        os.truncate(self.log_path, found.position)
        self._size = found.position
        self.recover()
        return cut

    def _scan(self, start: int, end: int, chunk_size: int, whole: bool = False,
              whole_control: bool = False) -> Iterator[tuple[int, RecordBatch]]:
        """(position, header view) of each batch in [start, end), the descriptor pinned meanwhile
        (FileRecords.batches_from)."""
        with self.reading() as fd:
            records = FileRecords.view(fd, end, self.log_path)
            yield from records.batches_from(start, chunk_size, whole, whole_control)

    # ------------------------------------------------------------------------------ transactions

    def update_txn_index(self, completed_txn, last_stable_offset: int) -> None:
        """A marker in this segment completed `completed_txn`: an abort gets an index entry (Kafka's
        updateTxnIndex). An entry already there (a replay over markers indexed before) is not repeated."""
        # BEGIN LAB 09 SOLUTION: an abort appends one AbortedTxn, once even on a replay; a commit needs none
        if not completed_txn.is_aborted:
            return
        indexed_up_to = self.txn_index.last_offset
        if indexed_up_to is not None and indexed_up_to >= completed_txn.last_offset:
            return
        self.txn_index.append(AbortedTxn(completed_txn.producer_id, completed_txn.first_offset,
                                         completed_txn.last_offset, last_stable_offset))
        # END LAB 09 SOLUTION

    def collect_aborted_txns(self, fetch_offset: int, upper_bound_offset: int) -> TxnIndexSearchResult:
        return self.txn_index.collect_aborted_txns(fetch_offset, upper_bound_offset)

    # ------------------------------------------------------------------------------ lifecycle

    def flush(self) -> None:
        """fsync the three files. Kafka does not flush per append: replication is the durability."""
        if self._closed:
            return  # deleted by retention or compaction while a flush was on its way
        with self.reading() as fd:
            os.fsync(fd)
        self.offset_index.flush()
        self.time_index.flush()
        self.txn_index.flush()

    def close(self) -> None:
        """Stop using the files. A reader still inside a read keeps the descriptor until it is done."""
        if not self._closed:
            self.on_become_inactive_segment()  # Kafka's close: the time index ends at the true maximum
            self.set_active(False)
            with self._pin_lock:
                self._closed = True
        self.offset_index.close()
        self.time_index.close()
        self.txn_index.close()

    def change_file_suffixes(self, old_suffix: str, new_suffix: str) -> None:
        """Rename the three files, e.g. "" -> ".deleted" or ".swap" -> "" (Kafka's changeFileSuffixes).

        Open descriptors follow a rename, so readers holding this segment keep reading."""
        for index in (self.offset_index, self.time_index, self.txn_index):
            index.rename_to(_with_suffix(index.path, old_suffix, new_suffix))
        new_log_path = _with_suffix(self.log_path, old_suffix, new_suffix)
        os.rename(self.log_path, new_log_path)
        self.log_path = new_log_path

    def delete(self) -> None:
        self.close()
        self.offset_index.delete()
        self.time_index.delete()
        self.txn_index.delete()
        try:
            os.unlink(self.log_path)
        except FileNotFoundError:
            pass

    def __repr__(self) -> str:
        return f"LogSegment(base_offset={self.base_offset}, size={self._size}, dir={self.dir!r})"


_NO_MAX = TimestampAndOffset(-1, -1)


def _with_suffix(path: str, old_suffix: str, new_suffix: str) -> str:
    if old_suffix and not path.endswith(old_suffix):
        raise ValueError(f"{path} does not end with {old_suffix}")
    return path[: len(path) - len(old_suffix)] + new_suffix


def _close(fd: int) -> int:
    """Close `fd` if it is open; returns -1, the closed value."""
    if fd >= 0:
        os.close(fd)
    return -1


def _write_fully(fd: int, data: bytes | bytearray | memoryview) -> None:
    # A regular file takes the whole buffer in one write unless the disk fills or a signal lands.
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
