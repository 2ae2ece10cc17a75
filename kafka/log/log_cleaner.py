"""LogCleaner: log compaction for `cleanup.policy=compact` (Kafka's kafka.log.LogCleaner, with its
CleanerThread and Cleaner).

A compacted topic keeps, for every key, at least the latest record: a changelog, or
`__consumer_offsets`, where only a group's last committed offset matters. One pass of the Cleaner:

1. **Build the offset map** over the dirty part (from the first dirty offset to the first
   uncleanable one, see LogCleanerManager): key -> the latest offset holding it. Kafka's
   SkimpyOffsetMap stores a 16-byte hash per key in log.cleaner.dedupe.buffer.size bytes; here a
   dict of keys (bytes) plays the part, bounded to the same number of entries.
2. **Rewrite every inactive segment below the first uncleanable offset**, one by one, into a
   `.cleaned` segment with the same base offset. A record is kept unless the map holds a later
   offset for its key. Offsets never change: a rewritten batch keeps its base offset and last
   offset delta, so a gap is just offsets nobody holds any more, and consumers skip them.
3. **Tombstones** (a key with a null value: "delete this key") are kept long enough for every
   consumer to see them. The first time a batch with tombstones is cleaned, its delete horizon is
   set to now + delete.retention.ms (KIP-534: stored in the batch's base timestamp, attribute bit
   0x40); a later cleaning after the horizon drops them.
4. **Swap** the cleaned segment in atomically (`UnifiedLog.replace_segment`: .cleaned -> .swap ->
   the real names), and record the new first dirty offset in cleaner-offset-checkpoint.

The active segment is never cleaned. Kafka also groups small cleaned segments into one; here each
segment is cleaned into its own replacement.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from kafka.log.errors import InvalidRecordError, UnsupportedCompressionTypeError
from kafka.log.log_cleaner_manager import LogCleanerManager, LogToClean
from kafka.log.log_segment import LogSegment
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.compression import compress
from kafka.protocol.record_batch import DefaultRecord, RecordBatch, encode_records, seal_batch
from kafka.utils.time import Time

log = structlog.get_logger("kafka.log.LogCleaner")

DELETE_HORIZON_FLAG = 0x40  # Kafka's DefaultRecordBatch.DELETE_HORIZON_FLAG_MASK
_OFFSET_MAP_ENTRY_BYTES = 24  # a SkimpyOffsetMap entry: 16-byte MD5 of the key + 8-byte offset


@dataclass(frozen=True)
class CleanerConfig:
    """The log.cleaner.* broker settings (Kafka's CleanerConfig)."""

    num_threads: int = 1
    dedupe_buffer_size: int = 128 * 1024 * 1024
    backoff_ms: int = 15_000
    enable_cleaner: bool = True

    @property
    def max_map_entries(self) -> int:
        # The buffer is shared by the threads; Kafka fills a map to 90% (log.cleaner.io.buffer.load.factor).
        return max(1, int(self.dedupe_buffer_size / self.num_threads * 0.9) // _OFFSET_MAP_ENTRY_BYTES)


@dataclass
class CleanerStats:
    """What one cleaning did, for the log line a learner reads (Kafka's CleanerStats)."""

    segments: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    records_read: int = 0
    records_retained: int = 0
    tombstones_removed: int = 0


class Cleaner:
    """One cleaning of one log (Kafka's Cleaner.clean / doClean)."""

    def __init__(self, max_map_entries: int, time: Time) -> None:
        self.max_map_entries = max_map_entries
        self.time = time

    def clean(self, to_clean: LogToClean) -> tuple[int, int | None, CleanerStats]:
        """Clean up to the first uncleanable offset. Returns (new first dirty offset, the earliest
        delete horizon of the tombstones kept or None, stats)."""
        unified_log = to_clean.log
        offset_map, end_offset = self.build_offset_map(unified_log, to_clean.first_dirty_offset,
                                                       to_clean.first_uncleanable_offset)
        now = self.time.milliseconds()
        new_horizon = now + unified_log.config.delete_retention_ms
        stats = CleanerStats()
        earliest_horizon: int | None = None
        for segment in unified_log.segments[:-1]:
            if segment.base_offset >= end_offset:
                break
            cleaned, horizon = self.clean_segment(unified_log, segment, offset_map, now, new_horizon, stats)
            if horizon is not None:
                earliest_horizon = horizon if earliest_horizon is None else min(earliest_horizon, horizon)
            if not unified_log.replace_segment(segment, cleaned):
                return to_clean.first_dirty_offset, earliest_horizon, stats  # the log changed under us
            stats.segments += 1
        return end_offset, earliest_horizon, stats

    def build_offset_map(self, unified_log: UnifiedLog, start: int, end: int) -> tuple[dict[bytes, int], int]:
        """key -> latest offset over [start, end), whole segments at a time until the map is full.

        Returns the map and the offset it covers up to (the new first dirty offset)."""
        offset_map: dict[bytes, int] = {}
        segments = unified_log.segments
        covered = start
        for index, segment in enumerate(segments[:-1]):
            next_base = segments[index + 1].base_offset
            if next_base <= start:
                continue
            if segment.base_offset >= end or (offset_map and len(offset_map) >= self.max_map_entries):
                break
            for batch in segment.batches():
                if batch.is_control_batch:
                    continue
                try:  # keys and offsets: values stream past unread
                    for record in batch.skip_key_value_iterator(keep_keys=True):
                        if record.offset >= start and record.key is not None:
                            offset_map[record.key] = record.offset
                except (InvalidRecordError, UnsupportedCompressionTypeError) as e:
                    log.warning("a batch whose records cannot be read is left out of the offset map",
                                log=unified_log.name, base_offset=batch.base_offset, error=str(e))
            covered = next_base
        return offset_map, max(covered, start)

    def clean_segment(self, unified_log: UnifiedLog, segment: LogSegment, offset_map: dict[bytes, int],
                      now: int, new_horizon: int, stats: CleanerStats) -> tuple[LogSegment, int | None]:
        """Write the records of `segment` worth keeping into a new `.cleaned` segment."""
        cleaned = unified_log.new_cleaned_segment(segment.base_offset)
        earliest_horizon: int | None = None
        for batch in segment.batches():
            stats.bytes_read += batch.size_in_bytes
            kept, horizon = self.filter_batch(batch, offset_map, now, new_horizon, stats,
                                              unified_log.config.max_message_bytes)
            if kept:
                cleaned.append(batch.last_offset, kept)
                stats.bytes_written += len(kept)
            if horizon is not None:
                earliest_horizon = horizon if earliest_horizon is None else min(earliest_horizon, horizon)
        cleaned.on_become_inactive_segment()
        # Every transactional batch and marker is kept as it was, so the aborted transactions are too.
        for aborted_txn in segment.txn_index.all_aborted_txns():
            cleaned.txn_index.append(aborted_txn)
        return cleaned, earliest_horizon

    def filter_batch(self, batch: RecordBatch, offset_map: dict[bytes, int], now: int, new_horizon: int,
                     stats: CleanerStats, max_record_bytes: int = 2**31 - 1) -> tuple[bytes, int | None]:
        """The batch's bytes to keep (b"" for none) and the delete horizon of tombstones kept in it.

        Decided on keys and sizes alone (values stream past); only a batch that loses records is
        decoded whole, and then only the records it keeps."""
        if batch.is_control_batch or batch.is_transactional:
            return batch.bytes(), None  # no transactions here: keep whatever a client sent as it is
        try:
            records = list(batch.skip_key_value_iterator(keep_keys=True))
        except (InvalidRecordError, UnsupportedCompressionTypeError):
            return batch.bytes(), None  # unreadable (written before validation read records): kept as it is
        stats.records_read += len(records)
        horizon = batch.base_timestamp if batch.attributes & DELETE_HORIZON_FLAG else None
        retained: list[int] = []
        for index, record in enumerate(records):
            latest = offset_map.get(record.key) if record.key is not None else None
            if latest is not None and latest > record.offset:
                continue  # a later record has this key
            if record.value_size < 0 and horizon is not None and now >= horizon:
                stats.tombstones_removed += 1
                continue  # a tombstone every consumer has had delete.retention.ms to see
            retained.append(index)
        stats.records_retained += len(retained)
        has_tombstones = any(records[index].value_size < 0 for index in retained)
        if not retained:
            return b"", None
        unchanged = len(retained) == len(records)
        if unchanged and (horizon is not None or not has_tombstones):
            return batch.bytes(), horizon if has_tombstones else None
        if any(records[index].size_in_bytes > max_record_bytes for index in retained):
            # Re-encoding would hold a record larger than the log accepts: keep the batch as it is.
            return batch.bytes(), horizon if any(record.value_size < 0 for record in records) else None
        horizon = (horizon if horizon is not None else new_horizon) if has_tombstones else None
        return encode_retained_batch(batch, list(batch.selected_records(set(retained))), horizon), horizon


def encode_retained_batch(original: RecordBatch, records: list[DefaultRecord],
                          delete_horizon_ms: int | None) -> bytes:
    """Re-encode the records kept from `original` (Kafka's MemoryRecords.buildRetainedRecordsInto).

    Base offset, last offset delta, producer fields and codec stay the original's; with a delete
    horizon, the base timestamp holds it and record timestamps become deltas from it."""
    base_timestamp = delete_horizon_ms if delete_horizon_ms is not None else records[0].timestamp
    payload = compress(original.compression_type,
                       encode_records(records, original.base_offset, base_timestamp))
    attributes = original.attributes & ~DELETE_HORIZON_FLAG
    if delete_horizon_ms is not None:
        attributes |= DELETE_HORIZON_FLAG
    return seal_batch(
        base_offset=original.base_offset, attributes=attributes, last_offset_delta=original.last_offset_delta,
        base_timestamp=base_timestamp, max_timestamp=max(record.timestamp for record in records),
        producer_id=original.producer_id, producer_epoch=original.producer_epoch,
        base_sequence=original.base_sequence, records_count=len(records), payload=payload,
        partition_leader_epoch=original.partition_leader_epoch,
    )



class LogCleaner:
    """The cleaner threads (log.cleaner.threads of them) and the manager they share."""

    def __init__(self, config: CleanerConfig, log_dirs: list[str], logs: Callable[[], list[UnifiedLog]],
                 time: Time) -> None:
        self.config = config
        self.time = time
        self.cleaner_manager = LogCleanerManager(log_dirs, logs, time)
        self._threads: list[threading.Thread] = []
        self._wakeup = threading.Event()
        self._running = False

    def startup(self) -> None:
        self._running = True
        for number in range(self.config.num_threads):
            thread = threading.Thread(target=self._run, name=f"kafka-log-cleaner-thread-{number}",
                                      daemon=True)
            thread.start()
            self._threads.append(thread)

    def shutdown(self) -> None:
        self._running = False
        self._wakeup.set()
        for thread in self._threads:
            thread.join()
        self._threads.clear()

    def reconfigure(self, config: CleanerConfig) -> None:
        """log.cleaner.* changed at run time (Kafka's LogCleaner.reconfigure): the threads stop after the
        cleaning under way and start again with the new settings."""
        running = self._running
        if running:
            self.shutdown()
        self.config = config
        if running and config.enable_cleaner:
            self._wakeup.clear()
            self.startup()

    def wakeup(self) -> None:
        """Skip the rest of log.cleaner.backoff.ms and look for work now."""
        self._wakeup.set()

    def _run(self) -> None:
        cleaner = Cleaner(self.config.max_map_entries, self.time)
        while self._running:
            try:
                cleaned = self.try_clean_filthiest_log(cleaner)
            except Exception:  # a log that cannot be cleaned must not stop the thread
                log.exception("log cleaning failed")
                cleaned = False
            if not cleaned:
                self._wakeup.wait(self.config.backoff_ms / 1000)  # Kafka's CleanerThread backoff
                self._wakeup.clear()

    def try_clean_filthiest_log(self, cleaner: Cleaner | None = None, force: bool = False) -> bool:
        """Clean the log most in need of it, if any (Kafka's CleanerThread.cleanFilthiestLog)."""
        cleaner = cleaner or Cleaner(self.config.max_map_entries, self.time)
        to_clean = self.cleaner_manager.grab_filthiest_compacted_log(force)
        if to_clean is None:
            return False
        first_dirty: int | None = None
        horizon: int | None = None
        try:
            first_dirty, horizon, stats = cleaner.clean(to_clean)
            log.info("cleaned log", log=to_clean.log.name, dirty_ratio=round(to_clean.cleanable_ratio, 3),
                     segments=stats.segments, records_read=stats.records_read,
                     records_retained=stats.records_retained,
                     tombstones_removed=stats.tombstones_removed, bytes_read=stats.bytes_read,
                     bytes_written=stats.bytes_written, first_dirty_offset=first_dirty)
        finally:
            self.cleaner_manager.done_cleaning(to_clean.log, first_dirty, horizon)
        return True
