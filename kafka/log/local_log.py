"""LocalLog: a partition's segments on disk, and nothing about what the offsets mean (Kafka's
org.apache.kafka.storage.internals.log.LocalLog).

Seed 002: the commit log "is organized as a collection of segments". This class is that collection:
it rolls a new active segment, reads whole batches across segments, cuts files back on truncation,
removes segments (renamed `.deleted`, unlinked file.delete.delay.ms later), swaps in the cleaner's
segments, flushes and closes. It knows the log end offset (where the next batch goes) and the
recovery point (what is fsynced), as Kafka's LocalLog does; the log start offset, the high watermark,
producer state and the leader-epoch cache are UnifiedLog's, which sits on top of this class and
never the other way round.

Concurrency, as in Kafka (LocalLog "relies on the thread safety provided by the Log class"): the
lock is UnifiedLog's, handed in. Every method that changes the segments is called with it held,
because UnifiedLog changes its own state in the same step. A reader takes it only to snapshot
(segments, log end offset, active segment size) and then reads files without it; background work
(flush, the cleaner's swap, closing) takes it for its own short steps.
"""

from __future__ import annotations

import os
import shutil
import threading
from bisect import bisect_right

import structlog

from kafka.log.errors import KafkaStorageError, LogDirError, OffsetOutOfRangeError, TornSegmentError
from kafka.log.fetch_data_info import FetchDataInfo, LogOffsetMetadata
from kafka.log.file_records import TimestampAndOffset
from kafka.log.log_config import LogConfig
from kafka.log.log_file_utils import CLEANED_FILE_SUFFIX, DELETED_FILE_SUFFIX, SWAP_FILE_SUFFIX
from kafka.log.log_segment import LogSegment
from kafka.log.transaction_index import AbortedTxn
from kafka.utils.time import Time

log = structlog.get_logger("kafka.log.LocalLog")

SegmentsView = tuple[tuple[LogSegment, ...], list[int]]


class LocalLog:
    """Segments sorted by base offset; the last one is the active segment, the only one appended to."""

    def __init__(self, dir: str, topic: str, partition: int, config: LogConfig, segments: list[LogSegment],
                 recovery_point: int, log_end_offset: int, scheduler, time: Time,
                 lock: threading.Lock) -> None:
        self.dir = dir
        self.topic = topic
        self.partition = partition
        self.config = config
        self.time = time
        # A KafkaScheduler (the LogManager sets it): deleted segments are unlinked file.delete.delay.ms later.
        self.scheduler = scheduler
        self._lock = lock
        segments[-1].set_active(True)  # the only segment whose .log stays open (docs/storage.md)
        # (segments, their base offsets): replaced whole on roll, so readers can hold a snapshot.
        self._view: SegmentsView = _view_of(segments)
        self._log_end_offset = log_end_offset
        self._recovery_point = recovery_point
        self.last_flush_time_ms = time.milliseconds()
        self._closed = False
        self._needs_recovery: str | None = None  # why appends are refused until a restart (TornSegmentError)

    # ------------------------------------------------------------------------------ state

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    @property
    def parent_dir(self) -> str:
        """The log directory (an entry of log.dirs) holding this partition's directory."""
        return os.path.dirname(self.dir)

    @property
    def view(self) -> SegmentsView:
        """(segments, their base offsets) as they stand: an immutable snapshot."""
        return self._view

    @property
    def segments(self) -> list[LogSegment]:
        return list(self._view[0])

    @property
    def active_segment(self) -> LogSegment:
        return self._view[0][-1]

    @property
    def num_segments(self) -> int:
        return len(self._view[0])

    @property
    def size_in_bytes(self) -> int:
        return sum(segment.size for segment in self._view[0])

    @property
    def log_end_offset(self) -> int:
        return self._log_end_offset

    @property
    def recovery_point(self) -> int:
        return self._recovery_point

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def log_end_offset_metadata(self) -> LogOffsetMetadata:
        """The LEO with its segment and byte position (DelayedFetch counts bytes against it)."""
        with self._lock:
            active = self._view[0][-1]
            return LogOffsetMetadata(self._log_end_offset, active.base_offset, active.size)

    def update_config(self, config: LogConfig) -> None:
        self.config = config

    def update_log_end_offset(self, end_offset: int) -> None:
        """Kafka's updateLogEndOffset: nothing at or past the end can be flushed."""
        self._log_end_offset = end_offset
        self._recovery_point = min(self._recovery_point, end_offset)

    def update_recovery_point(self, recovery_point: int) -> None:
        self._recovery_point = recovery_point

    def unflushed_messages(self) -> int:
        return self._log_end_offset - self._recovery_point

    # ------------------------------------------------------------------------------ appending

    def check_if_closed(self) -> None:
        """Deleted or shut down under an in-flight append: a retriable storage error."""
        if self._closed:
            raise LogDirError(f"log {self.name} is closed")

    def check_writable(self) -> None:
        """Refuse a leader's append after a write whose undo failed too (the segment's end is unknown)."""
        if self._closed:
            raise LogDirError(f"log {self.name} is closed")
        if self._needs_recovery is not None:
            raise KafkaStorageError(self.parent_dir, f"log {self.name} needs recovery after a failed write "
                                                     f"({self._needs_recovery}): restart the broker")

    def append(self, last_offset: int, records: bytes | bytearray | memoryview) -> None:
        """Write whole batches (offsets assigned) to the active segment; the log end offset follows."""
        try:
            self._view[0][-1].append(last_offset, records)
        except TornSegmentError as e:
            # LogSegment.append could not cut its files back: refuse appends until a restart recovers it.
            self._needs_recovery = str(e)
            raise
        self.update_log_end_offset(last_offset + 1)

    def roll(self) -> LogSegment:
        """Start a new active segment at the log end offset (Kafka's LocalLog.roll). An active segment
        already empty at the log end offset is returned as it is: a new one would have its name."""
        segments, _ = self._view
        new_offset = self._log_end_offset
        if segments[-1].base_offset == new_offset:
            return segments[-1]
        segment = LogSegment(self.dir, new_offset, self.config, self.time)
        segment.set_active(True)
        segments[-1].on_become_inactive_segment()
        segments[-1].set_active(False)  # its .log closes once no reader holds it
        self._view = _view_of((*segments, segment))
        return segment

    # ------------------------------------------------------------------------------ reading

    def read(self, start_offset: int, max_length: int, isolation_max_offset: int | None = None,
             min_one_message: bool = True, zero_copy: bool = False) -> FetchDataInfo:
        """Whole batches from the one containing `start_offset`, up to `max_length` bytes.

        `isolation_max_offset` (usually the high watermark) bounds what is visible: no batch holding
        an offset at or above it is returned. Reading continues into the next segments while room is
        left; each segment's part is one os.pread. With `zero_copy` (a fetch for the network) the
        records are a FileRecords slice of one segment, as in Kafka: the next fetch goes on from there."""
        with self._lock:
            segments, base_offsets = self._view
            log_end_offset = self._log_end_offset
            active_size = segments[-1].size
        if start_offset > log_end_offset:
            raise OffsetOutOfRangeError(
                f"offset {start_offset} is out of range for {self.name}: log end offset {log_end_offset}")
        end_offset = log_end_offset if isolation_max_offset is None else min(isolation_max_offset,
                                                                             log_end_offset)
        if start_offset == log_end_offset:
            return FetchDataInfo(LogOffsetMetadata(log_end_offset, segments[-1].base_offset, active_size))
        if start_offset >= end_offset:
            return FetchDataInfo(LogOffsetMetadata(start_offset))
        return self._read_segments(segments, base_offsets, start_offset, max_length, end_offset,
                                   isolation_max_offset, log_end_offset, active_size, min_one_message,
                                   zero_copy)

    def _read_segments(self, segments: tuple[LogSegment, ...], base_offsets: list[int], start_offset: int,
                       max_length: int, end_offset: int, isolation_max_offset: int | None,
                       log_end_offset: int, active_size: int, min_one_message: bool,
                       zero_copy: bool = False) -> FetchDataInfo:
        chunks: list[bytes] = []
        remaining = max_length
        metadata: LogOffsetMetadata | None = None
        first_entry_incomplete = False
        offset = start_offset
        last = len(segments) - 1
        for index in range(max(0, bisect_right(base_offsets, start_offset) - 1), last + 1):
            segment = segments[index]
            if segment.base_offset >= end_offset:
                break
            segment_end_offset = log_end_offset if index == last else base_offsets[index + 1]
            max_position = active_size if index == last else segment.size
            # Only the segment the bound falls in needs its batches checked against the bound.
            bound = isolation_max_offset if end_offset < segment_end_offset else None
            info = segment.read(offset, remaining, max_position, min_one_message and not chunks, bound,
                                zero_copy)
            offset = segment_end_offset
            if info is None:
                continue  # start offset past this segment's last batch (a gap): try the next one
            if metadata is None:
                metadata = info.fetch_offset_metadata
                first_entry_incomplete = info.first_entry_incomplete
            if info.records:
                chunks.append(info.records)
                remaining -= len(info.records)
                if zero_copy:
                    break  # one segment's slice per fetch, as Kafka sends
            read_end = info.fetch_offset_metadata.relative_position_in_segment + len(info.records)
            read_to_end = read_end >= max_position
            if remaining <= 0 or not read_to_end or bound is not None:
                break
        if metadata is None:
            return FetchDataInfo(LogOffsetMetadata(start_offset))
        records = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        return FetchDataInfo(metadata, records, first_entry_incomplete and not records)

    def collect_aborted_transactions(self, start_offset: int, upper_bound_offset: int) -> list[AbortedTxn]:
        """The aborted transactions overlapping [start_offset, upper_bound_offset), from the `.txnindex`
        of the segment holding `start_offset` on, until one segment's search is complete (Kafka's
        collectAbortedTransactions): a read_committed fetch sends them so the consumer drops their records."""
        segments, base_offsets = self._view
        found: list[AbortedTxn] = []
        # A transaction begun below the bound may have its marker (and so its entry) in any later segment.
        for segment in segments[max(0, bisect_right(base_offsets, start_offset) - 1):]:
            result = segment.collect_aborted_txns(start_offset, upper_bound_offset)
            found.extend(result.aborted_transactions)
            if result.is_complete:
                break
        return found

    def search_offset_in_local_log(self, timestamp: int, starting_offset: int) -> TimestampAndOffset | None:
        """The first record at or after starting_offset whose timestamp is >= `timestamp` (UnifiedLog's
        searchOffsetInLocalLog): the first segment whose largest timestamp reaches it, its time index then."""
        for segment in self._view[0]:
            if segment.max_timestamp_so_far >= timestamp:
                found = segment.find_offset_by_timestamp(timestamp, starting_offset)
                if found is not None:
                    return found
        return None

    # ------------------------------------------------------------------------------ truncation

    def truncate_to(self, offset: int) -> list[LogSegment]:
        """Remove every offset from `offset` on: whole segments above it leave the log, the segment
        holding it is cut at that batch. Returns the segments removed, for `delete_segments`."""
        segments, _ = self._view
        keep = [s for s in segments if s.base_offset < offset] or [segments[0]]
        dropped = [s for s in segments if s not in keep]
        keep[-1].truncate_to(offset)
        keep[-1].set_active(True)
        self._view = _view_of(keep)
        self.update_log_end_offset(offset)
        return dropped

    def truncate_fully_and_start_at(self, offset: int) -> list[LogSegment]:
        """Drop every segment and start empty at `offset` (Kafka's truncateFullyAndStartAt). Returns
        the segments removed, for `delete_segments`."""
        old, _ = self._view
        if all(s.base_offset != offset for s in old):
            self._view = _view_of([LogSegment(self.dir, offset, self.config, self.time)])
        else:
            self._view = _view_of([s for s in old if s.base_offset == offset])
        dropped = [s for s in old if s not in self._view[0]]
        if self._view[0][0] in old:
            self._view[0][0].truncate_to(offset)
        self._view[0][0].set_active(True)
        self._log_end_offset = self._recovery_point = offset
        return dropped

    @staticmethod
    def delete_segments(segments: list[LogSegment]) -> None:
        """Unlink segments a truncation removed (no reader may go past the new end: no delay)."""
        for segment in segments:
            segment.delete()

    # ------------------------------------------------------------------------------ removing segments

    def remove_and_rename_segments(self, doomed: list[LogSegment]) -> None:
        """Take the oldest segments out of the log and rename their files `.deleted` (the first half of
        Kafka's removeAndDeleteSegments); `delete_segment_files` unlinks them once the lock is released."""
        segments, _ = self._view
        self._view = _view_of(segments[len(doomed):])
        for segment in doomed:
            segment.change_file_suffixes("", DELETED_FILE_SUFFIX)

    def delete_segment_files(self, segments: list[LogSegment]) -> None:
        """Unlink now, or file.delete.delay.ms from now when a scheduler runs (readers may hold them)."""
        def delete() -> None:
            for segment in segments:
                segment.delete()
        if self.scheduler is not None and self.scheduler.is_started:
            self.scheduler.schedule_once(f"delete-file-{self.name}", delete, self.config.file_delete_delay_ms)
        else:
            delete()

    def new_cleaned_segment(self, base_offset: int) -> LogSegment:
        """An empty `.cleaned` segment for the LogCleaner to fill (no stale one left behind)."""
        segment = LogSegment(self.dir, base_offset, self.config, self.time, file_suffix=CLEANED_FILE_SUFFIX)
        if segment.size:
            segment.delete()
            segment = LogSegment(self.dir, base_offset, self.config, self.time,
                                 file_suffix=CLEANED_FILE_SUFFIX)
        return segment

    def replace_segment(self, old: LogSegment, cleaned: LogSegment) -> bool:
        """Swap a cleaned segment in for `old`, atomically on disk (Kafka's replaceSegments).

        .cleaned -> .swap (the point of no return: a crash from here on completes the swap at load),
        old -> .deleted, .swap -> the real names. False, and the cleaned files are dropped, if `old`
        left the log meanwhile (retention deleted it)."""
        cleaned.flush()
        cleaned.change_file_suffixes(CLEANED_FILE_SUFFIX, SWAP_FILE_SUFFIX)
        with self._lock:
            segments, _ = self._view
            if self._closed or old not in segments[:-1]:
                cleaned.delete()
                return False
            old.change_file_suffixes("", DELETED_FILE_SUFFIX)
            cleaned.change_file_suffixes(SWAP_FILE_SUFFIX, "")
            self._view = _view_of(tuple(cleaned if s is old else s for s in segments))
        self.delete_segment_files([old])
        return True

    # ------------------------------------------------------------------------------ files

    def flush(self, up_to_offset: int | None = None) -> None:
        """fsync the segments holding offsets from the recovery point up to `up_to_offset` (default:
        the log end offset), then advance the recovery point to it (Kafka's flush and markFlushed)."""
        with self._lock:
            if self._closed:
                return
            segments, base_offsets = self._view
            flush_to = self._log_end_offset if up_to_offset is None else min(up_to_offset,
                                                                             self._log_end_offset)
            if flush_to <= self._recovery_point:
                return
            first = max(0, bisect_right(base_offsets, self._recovery_point) - 1)
            last = bisect_right(base_offsets, flush_to - 1)
        for segment in segments[first:last]:
            segment.flush()
        with self._lock:
            self._recovery_point = max(self._recovery_point, flush_to)
            self.last_flush_time_ms = self.time.milliseconds()

    def close_handlers(self) -> None:
        """Close every file, writing nothing; nothing is appended or flushed from now on."""
        with self._lock:
            self._closed = True
            for segment in self._view[0]:
                segment.close()

    def delete(self) -> None:
        """Close the log and remove its directory with every segment in it."""
        self.close_handlers()
        shutil.rmtree(self.dir, ignore_errors=True)


def _view_of(segments: tuple[LogSegment, ...] | list[LogSegment]) -> SegmentsView:
    ordered = tuple(segments)
    return ordered, [segment.base_offset for segment in ordered]
