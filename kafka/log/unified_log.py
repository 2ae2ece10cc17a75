"""UnifiedLog: one partition's commit log, what its offsets mean (Kafka's UnifiedLog).

Seed 002: the I/O thread "will perform some validations, including a CRC check of the data ... It
will then append the data to the physical data structure of the partition, which is called a commit
log", which "is organized as a collection of segments". A fetch turns its offset into "the range of
bytes that need to be read from the corresponding .log file".

Offsets: the log end offset (LEO) is the next offset to assign; the log start offset the first one
still readable; the high watermark the first offset not yet known to be replicated (the server's
Partition moves it; consumers read below it). As in Kafka, the segments themselves (roll, reads
across segments, truncating files, removing and swapping segments, flush, close) are LocalLog's
(kafka/log/local_log.py); this class keeps the offsets, the appends of a leader and a follower, the
producer state, the leader-epoch cache and the retention policy, and decides what LocalLog does.
What may be appended at all is the LogValidator's to say. Loading and crash recovery are LogLoader's.

Idempotent producers (KIP-98, seed 004's retried Produce): `append_as_leader` looks every batch up in
the ProducerStateManager after giving it offsets and before writing it (Kafka's
analyzeAndValidateProducerState). A retry of one of a producer's last five batches is answered with
its first offsets and nothing is written; a sequence gap or an old epoch refuses the whole append.

Tiered storage (KIP-405): the RemoteLogManager copies a tiered log's rolled segments out and says how far
it got (`update_highest_offset_in_remote_storage`); local retention (local.retention.*) deletes only copied
segments and moves the local log start offset; remote retention moves the log start offset.

Concurrency: `_lock` serialises appends, rolls, offset updates and segment swaps; LocalLog is handed
the same lock. A reader takes it only to snapshot (segments, LEO, active segment size), then reads
files without it; a segment that leaves the log is renamed `.deleted` and unlinked only
file.delete.delay.ms later, so a reader still holding it finishes its read.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import structlog

from kafka.log.append_origin import AppendOrigin
from kafka.log.errors import KafkaStorageError, OffsetOutOfRangeError, UnexpectedAppendOffsetError
from kafka.log.fetch_data_info import FetchDataInfo, LogOffsetMetadata
from kafka.log.file_records import TimestampAndOffset
from kafka.log.leader_epoch_file_cache import EpochEntry
from kafka.log.local_log import LocalLog
from kafka.log.log_append_info import LogAppendInfo
from kafka.log.log_config import LogConfig, is_remote_log_enabled
from kafka.log.log_loader import LogLoader, load_leader_epoch_cache, rebuild_producer_state
from kafka.log.log_segment import LogSegment
from kafka.log.log_validator import assign_offsets, validate_records
from kafka.log.producer_state_entry import ProducerStateEntry
from kafka.log.producer_state_manager import (
    ProducerStateManager,
    ProducerStateManagerConfig,
    analyze_and_validate_producer_state,
    update_producer_state,
)
from kafka.log.transaction_index import AbortedTxn
from kafka.protocol.record_batch import validate_batches
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

__all__ = ["LogAppendInfo", "TimestampAndOffset", "UnifiedLog"]

log = structlog.get_logger("kafka.log.UnifiedLog")

# ListOffsets' special timestamps (Kafka's ListOffsetsRequest constants).
LATEST_TIMESTAMP, EARLIEST_TIMESTAMP, MAX_TIMESTAMP, EARLIEST_LOCAL_TIMESTAMP = -1, -2, -3, -4
LATEST_TIERED_TIMESTAMP, EARLIEST_PENDING_UPLOAD_TIMESTAMP = -5, -6  # KIP-1005, KIP-1023 (tiered storage)


class UnifiedLog:
    """A partition's log: segments sorted by base offset, appended as leader, read by offset."""

    def __init__(self, dir: str, topic: str, partition: int, config: LogConfig, time: Time,
                 log_start_offset: int = 0, recovery_point: int = 0, had_clean_shutdown: bool = True,
                 high_watermark: int = 0, scheduler=None,
                 producer_state_manager_config: ProducerStateManagerConfig | None = None,
                 remote_storage_system_enable: bool = False) -> None:
        self.dir = dir
        self.topic = topic
        self.partition = partition
        self.time = time
        self._lock = threading.Lock()
        os.makedirs(dir, exist_ok=True)
        self.remote_storage_system_enable = remote_storage_system_enable
        self._highest_offset_in_remote_storage = -1  # the RemoteLogManager's tasks move it
        self.producer_state_manager = ProducerStateManager(
            self.name, dir, producer_state_manager_config or ProducerStateManagerConfig(), time)
        # A log start offset below the first local segment may be remote's: the topic's config, known later
        # at start-up, decides (update_config moves a log that is not tiered up to its local start).
        loaded = LogLoader(dir, self.name, config, time, had_clean_shutdown, recovery_point, log_start_offset,
                           self.producer_state_manager, remote_storage_system_enable).load()
        self._log_start_offset = loaded.log_start_offset
        self._local_log_start_offset = max(loaded.log_start_offset, loaded.segments[0].base_offset)
        self._local_log = LocalLog(dir, topic, partition, config, loaded.segments,
                                   max(loaded.recovery_point, self._log_start_offset), loaded.log_end_offset,
                                   scheduler, time, self._lock)
        # From replication-offset-checkpoint; the Partition moves it on from there.
        self._high_watermark = min(max(high_watermark, self._log_start_offset), loaded.log_end_offset)
        self.producer_state_manager.on_high_watermark_updated(self._high_watermark)
        self.leader_epoch_cache = load_leader_epoch_cache(dir, self.name, self._local_log.view[0],
                                                          self._log_start_offset, self.log_end_offset)

    # ------------------------------------------------------------------------------ offsets

    @property
    def parent_dir(self) -> str:
        """The log directory (an entry of log.dirs) holding this partition's directory."""
        return os.path.dirname(self.dir)

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    @property
    def local_log(self) -> LocalLog:
        return self._local_log

    @property
    def config(self) -> LogConfig:
        return self._local_log.config

    @property
    def scheduler(self):
        """A KafkaScheduler (the LogManager sets it): rolls flush, deleted segments go, in the background."""
        return self._local_log.scheduler

    @scheduler.setter
    def scheduler(self, scheduler) -> None:
        self._local_log.scheduler = scheduler

    @property
    def log_end_offset(self) -> int:
        return self._local_log.log_end_offset

    @property
    def log_start_offset(self) -> int:
        return self._log_start_offset

    @property
    def local_log_start_offset(self) -> int:
        """The first offset in a local segment (Kafka's localLogStartOffset): below it, remote storage."""
        return self._local_log_start_offset

    # ------------------------------------------------------------------------------ tiered storage

    @property
    def remote_log_enabled(self) -> bool:
        return is_remote_log_enabled(self.remote_storage_system_enable, self.config, self.topic)

    @property
    def _remote_copy_enabled(self) -> bool:
        return self.remote_log_enabled and not self.config.remote_log_copy_disable

    @property
    def highest_offset_in_remote_storage(self) -> int:
        return self._highest_offset_in_remote_storage

    def update_highest_offset_in_remote_storage(self, offset: int) -> None:
        """The RemoteLogManager finished copying up to offset: local segments below may go."""
        if self.remote_log_enabled and offset > self._highest_offset_in_remote_storage:
            self._highest_offset_in_remote_storage = offset

    def update_log_start_offset_from_remote_tier(self, remote_log_start_offset: int) -> None:
        """Remote retention deleted segments, or a new leader found where the remote log starts."""
        if self.remote_log_enabled:
            self.maybe_increment_log_start_offset(remote_log_start_offset)

    @property
    def high_watermark(self) -> int:
        return self._high_watermark

    @property
    def first_unstable_offset(self) -> int | None:
        """The first offset of the oldest transaction not yet known to be complete on every in-sync
        replica, or None (Kafka's firstUnstableOffset). Read without the lock: a value replaced whole."""
        return self.producer_state_manager.first_unstable_offset

    @property
    def last_stable_offset(self) -> int:
        """What read_committed consumers may read up to (Kafka's lastStableOffset): the high watermark,
        held back at the first offset of a transaction still open (or whose marker is not replicated)."""
        high_watermark = self._high_watermark
        first_unstable = self.producer_state_manager.first_unstable_offset
        if first_unstable is not None and first_unstable < high_watermark:
            return first_unstable
        return high_watermark

    @property
    def recovery_point(self) -> int:
        """Offsets below this are fsynced (the LogManager checkpoints it to skip recovery on restart)."""
        return self._local_log.recovery_point

    @property
    def last_flush_time_ms(self) -> int:
        return self._local_log.last_flush_time_ms

    def update_high_watermark(self, offset: int) -> int:
        """Set the high watermark, clamped to [log start offset, log end offset]; returns it."""
        with self._lock:
            self._high_watermark = min(max(offset, self._log_start_offset), self._local_log.log_end_offset)
            # A completed transaction stops holding the LSO back once its marker is below the HW.
            self.producer_state_manager.on_high_watermark_updated(self._high_watermark)
            return self._high_watermark

    @property
    def log_end_offset_metadata(self) -> LogOffsetMetadata:
        """The LEO with its segment and byte position (DelayedFetch counts bytes against it)."""
        return self._local_log.log_end_offset_metadata

    def convert_to_offset_metadata(self, offset: int) -> LogOffsetMetadata:
        """Where `offset` is on disk (Kafka's convertToOffsetMetadataOrThrow): a zero-byte read."""
        return self.read(offset, 1, min_one_message=False).fetch_offset_metadata

    # ------------------------------------------------------------------------------ leader epochs

    @property
    def latest_epoch(self) -> int:
        return self.leader_epoch_cache.latest_epoch

    def end_offset_for_epoch(self, leader_epoch: int) -> EpochEntry:
        """OffsetsForLeaderEpoch: (the largest epoch <= leader_epoch in this log, where it ends)."""
        return self.leader_epoch_cache.end_offset_for(leader_epoch, self.log_end_offset)

    def maybe_assign_epoch_start_offset(self, leader_epoch: int, start_offset: int) -> None:
        """A new leader records its epoch at its log end offset before it appends anything, so a
        follower asking about the previous epoch learns where it ended (Kafka's makeLeader)."""
        self.leader_epoch_cache.assign(leader_epoch, start_offset)

    # ------------------------------------------------------------------------------ appending

    def append_as_leader(self, records: bytes | bytearray | memoryview, leader_epoch: int = 0,
                         origin: AppendOrigin = AppendOrigin.CLIENT) -> LogAppendInfo:
        """Validate, assign offsets and append one produce request's batches for this partition.

        All or nothing: every batch is checked (CRC, size, counts, every record by the LogValidator,
        and an idempotent producer's epoch and sequence) before a byte is written. Offsets are
        assigned by rewriting each batch's baseOffset in a copy of the request: compressed batches
        are stored as they came. A retried batch is not written again: the answer carries the offsets (and log
        append time) of its first append, with `is_duplicate` set.

        `origin` says who appends: a client (CLIENT) may not write control batches, and its
        sequences are checked; a coordinator (COORDINATOR: transaction markers) has only its epochs
        checked, as Kafka's ProducerAppendInfo does."""
        now_ms = self.time.milliseconds()
        local_log = self._local_log
        config = local_log.config
        # Kafka's LogValidator: CRCs, headers, every record (sizes, offsets, keys, timestamps), the size.
        validated = validate_records(records, config, self.name, now_ms, origin)
        buffer, batches = validated.validated_records, validated.batches
        max_timestamp, log_append_time = validated.max_timestamp, validated.log_append_time
        with self._lock:
            local_log.check_writable()
            first_offset = local_log.log_end_offset
            next_offset = assign_offsets(buffer, batches, first_offset, leader_epoch)
            last_offset = next_offset - 1
            updated_producers, completed_txns, duplicate = analyze_and_validate_producer_state(
                self.producer_state_manager, buffer, batches, origin)
            if duplicate is not None:  # Kafka answers with the first append's timestamp even under CreateTime
                return LogAppendInfo(duplicate.first_offset, duplicate.last_offset, duplicate.timestamp,
                                     duplicate.timestamp, self._log_start_offset, is_duplicate=True)
            try:
                segment = self._maybe_roll(len(buffer), max_timestamp, last_offset)
                local_log.append(last_offset, buffer)
            except OSError as e:
                # ENOSPC, EIO: nothing was appended (LogSegment.append cut its files back; if even that
                # failed, LocalLog refuses appends until a restart recovers the segment).
                raise KafkaStorageError(self.parent_dir, f"error appending to {self.name}: {e}") from e
            update_producer_state(self.producer_state_manager, updated_producers, completed_txns, segment,
                                  next_offset)
            self.leader_epoch_cache.assign(leader_epoch, first_offset)
            log_start_offset = self._log_start_offset
            flush_due = local_log.unflushed_messages() >= config.flush_messages
        if flush_due:
            self.flush()
        return LogAppendInfo(first_offset, last_offset, max_timestamp, log_append_time, log_start_offset,
                             validated.num_messages, len(buffer))

    def append_as_follower(self, records: bytes | bytearray | memoryview) -> LogAppendInfo:
        """Append batches a leader already numbered, keeping their offsets and leader epochs (Kafka's
        appendAsFollower). They must continue this log exactly where it ends."""
        batches = validate_batches(records)
        local_log = self._local_log
        if not batches:
            log_end_offset = local_log.log_end_offset
            return LogAppendInfo(log_end_offset, log_end_offset - 1, -1, -1, self._log_start_offset, 0, 0)
        with self._lock:
            local_log.check_if_closed()
            first_offset, last_offset = batches[0].base_offset, batches[-1].last_offset
            if first_offset != local_log.log_end_offset:
                raise UnexpectedAppendOffsetError(
                    f"{self.name}: a follower append starting at {first_offset} does not continue the "
                    f"log end offset {local_log.log_end_offset}", first_offset, last_offset)
            max_timestamp = max(b.max_timestamp for b in batches)
            # The leader checked these batches: the follower only records its producers' progress.
            updated_producers, completed_txns, _ = analyze_and_validate_producer_state(
                self.producer_state_manager, records, batches, AppendOrigin.REPLICATION)
            segment = self._maybe_roll(len(records), max_timestamp, last_offset)
            local_log.append(last_offset, records)
            update_producer_state(self.producer_state_manager, updated_producers, completed_txns, segment,
                                  last_offset + 1)
            for batch in batches:  # keep the leader's epochs: this log may lead one day
                self.leader_epoch_cache.assign(batch.partition_leader_epoch, batch.base_offset)
        return LogAppendInfo(first_offset, last_offset, max_timestamp, -1, self._log_start_offset,
                             sum(b.records_count for b in batches), len(records))

    # ------------------------------------------------------------------------------ producer state

    def active_producers(self) -> list[ProducerStateEntry]:
        """The producers with state here, for DescribeProducers (Kafka's activeProducers): copies,
        taken under the lock, since appends keep changing the entries."""
        with self._lock:
            return [entry.copy() for entry in self.producer_state_manager.active_producers.values()]

    @property
    def producer_id_count(self) -> int:
        """Producer ids tracked (the ProducerIdCount gauge reads it without the lock)."""
        return self.producer_state_manager.producer_id_count

    def remove_expired_producers(self, current_time_ms: int) -> None:
        """Forget producers silent for producer.id.expiration.ms (the LogManager's periodic check)."""
        with self._lock:
            self.producer_state_manager.remove_expired_producers(current_time_ms)

    def delete_snapshots_after_recovery_point_checkpoint(self) -> int:
        """ProducerStateManager's rule of the same name; a tiered log keeps every segment's snapshot (the
        copier sends it with its segment), as Kafka 4 keeps them all."""
        with self._lock:
            return self.producer_state_manager.delete_snapshots_after_recovery_point_checkpoint(
                self._local_log.view[1], self._local_log.recovery_point, keep_all=self.remote_log_enabled)

    def truncate_to(self, offset: int) -> None:
        """Remove every offset from `offset` on (a follower whose tail diverged from its leader's).
        Whole segments above it go at once; the segment holding it is cut at that batch."""
        with self._lock:
            if offset >= self._local_log.log_end_offset:
                # Nothing to cut, but the epoch cache still is (Kafka's truncateTo): an epoch a leader that
                # never appended left at its log end would make its fetches DivergingEpoch for ever.
                self.leader_epoch_cache.truncate_from_end(self._local_log.log_end_offset)
                return
            offset = max(offset, self._log_start_offset)
            dropped = self._local_log.truncate_to(offset)
            self._high_watermark = min(self._high_watermark, offset)
            self.leader_epoch_cache.truncate_from_end(offset)
            # The producers' last batches may be gone: back to the newest snapshot at or below the new end.
            rebuild_producer_state(self.producer_state_manager, self._local_log.segments,
                                   self._log_start_offset, offset, self.time)
            self.producer_state_manager.on_high_watermark_updated(self._high_watermark)
        LocalLog.delete_segments(dropped)

    def _maybe_roll(self, messages_size: int, max_timestamp: int, max_offset: int) -> LogSegment:
        local_log = self._local_log
        active, config = local_log.active_segment, local_log.config
        roll_due = active.should_roll(messages_size, max_timestamp, max_offset, config.segment_bytes,
                                      config.segment_ms)
        return self._roll() if roll_due else active

    def roll(self) -> LogSegment:
        """Start a new active segment at the log end offset (tools and tests; appends roll by themselves)."""
        with self._lock:
            return self._roll()

    def _roll(self) -> LogSegment:
        active, new_offset = self._local_log.active_segment, self._local_log.log_end_offset
        if active.base_offset == new_offset:
            return active  # already empty and at the LEO
        # The producers at the new segment's first offset: its recovery starts from this snapshot. Kafka
        # takes it just after the roll; here before, as RLMCopyTask lists segments without this lock and
        # copies a rolled one with the snapshot at its end, which must then already exist.
        self.producer_state_manager.update_map_end_offset(new_offset)
        self.producer_state_manager.take_snapshot()
        segment = self._local_log.roll()
        if self.scheduler is not None and self.scheduler.is_started:
            # Kafka's roll: fsync the segment that became inactive off the append path, which moves
            # the recovery point to the new segment (a crash then recovers only the active one).
            self.scheduler.schedule_once("flush-log", lambda: self.flush(new_offset))
        return segment

    def update_config(self, config: LogConfig) -> None:
        """A topic config change: applies to the next append (and to segments created from now on)."""
        with self._lock:
            self._local_log.update_config(config)
            if not self.remote_log_enabled:
                self._log_start_offset = max(self._log_start_offset, self._local_log_start_offset)

    # ------------------------------------------------------------------------------ reading

    def read(self, start_offset: int, max_length: int, isolation_max_offset: int | None = None,
             min_one_message: bool = True, zero_copy: bool = False) -> FetchDataInfo:
        """Whole batches from the one containing `start_offset`, up to `max_length` bytes, none holding
        an offset at or above `isolation_max_offset` (usually the high watermark): LocalLog.read,
        after the check that `start_offset` has not gone below the log start offset."""
        log_start_offset = max(self._log_start_offset, self._local_log_start_offset)
        if start_offset < log_start_offset:  # below the local log start: remote storage may have it
            raise OffsetOutOfRangeError(
                f"offset {start_offset} is out of range for {self.name}: "
                f"log start offset {log_start_offset}, log end offset {self.log_end_offset}")
        return self._local_log.read(start_offset, max_length, isolation_max_offset, min_one_message,
                                    zero_copy)

    def collect_aborted_transactions(self, start_offset: int, upper_bound_offset: int) -> list[AbortedTxn]:
        """The aborted transactions overlapping [start_offset, upper_bound_offset) (LocalLog's)."""
        return self._local_log.collect_aborted_transactions(start_offset, upper_bound_offset)

    def fetch_offset_by_timestamp(self, timestamp: int, remote_offset_reader=None):
        """ListOffsets (Kafka's fetchOffsetByTimestamp): -2 earliest, -1 latest, -3 the record with the max
        timestamp, -4 the local log start, -5 the highest offset in remote storage, -6 the first offset not
        copied yet (KIP-405, 1005, 1023); else the first record whose timestamp is >= `timestamp` (None if
        none). A tiered log's lookup by time runs on remote_offset_reader's pool: its future comes back."""
        with self._lock:
            segments, log_start = self._local_log.view[0], self._log_start_offset
            log_end = self._local_log.log_end_offset
        tiered, copied = self.remote_log_enabled, self.highest_offset_in_remote_storage
        special = {EARLIEST_TIMESTAMP: log_start, LATEST_TIMESTAMP: log_end,
                   EARLIEST_LOCAL_TIMESTAMP: self.local_log_start_offset if tiered else log_start,
                   LATEST_TIERED_TIMESTAMP: copied if tiered else -1,
                   EARLIEST_PENDING_UPLOAD_TIMESTAMP: max(copied + 1, log_start) if tiered and copied >= 0
                   else log_start if tiered and self.local_log_start_offset == log_start else -1}
        if timestamp in special:
            return TimestampAndOffset(-1, special[timestamp])
        if timestamp == MAX_TIMESTAMP:
            return max(segments, key=lambda s: s.max_timestamp_so_far).max_timestamp_and_offset()
        if tiered and log_start != log_end and remote_offset_reader is not None:  # KIP-1075: off this thread
            return remote_offset_reader.async_offset_read(
                TopicPartition(self.topic, self.partition), timestamp, log_start, self.leader_epoch_cache,
                lambda: self._local_log.search_offset_in_local_log(timestamp, self.local_log_start_offset))
        return self._local_log.search_offset_in_local_log(timestamp, log_start)

    # ------------------------------------------------------------------------------ log start offset

    def maybe_increment_log_start_offset(self, new_log_start_offset: int) -> int:
        """Move the first readable offset forward (DeleteRecords, retention); never past the HW.

        Segments wholly below it are deleted by the next retention check, as in Kafka."""
        with self._lock:
            if new_log_start_offset > self._high_watermark:
                raise OffsetOutOfRangeError(
                    f"cannot move the log start offset of {self.name} to {new_log_start_offset}: "
                    f"above the high watermark {self._high_watermark}")
            if self.remote_log_enabled:
                self._local_log_start_offset = max(new_log_start_offset, self._local_log_start_offset)
            if new_log_start_offset > self._log_start_offset:
                self._log_start_offset = new_log_start_offset
                recovery_point = max(self._local_log.recovery_point, new_log_start_offset)
                self._local_log.update_recovery_point(recovery_point)
                self.leader_epoch_cache.truncate_from_start(new_log_start_offset)
                self.producer_state_manager.on_log_start_offset_incremented(new_log_start_offset)
            return self._log_start_offset

    # ------------------------------------------------------------------------------ retention

    def delete_old_segments(self) -> int:
        """Kafka's deleteOldSegments: delete whole segments past retention; returns how many.

        With cleanup.policy=delete: segments older than retention.ms (by their largest timestamp), and the
        oldest while the log is larger than retention.bytes (tiered: local.retention.*, only copied
        segments). Always: those below the (local) log start offset. Never the active one, nor one at or
        above the high watermark."""
        deleted = self._delete_segments_while(self._log_start_offset_breached, "log start offset breach")
        if self.config.delete or (not self.config.compact and self._remote_copy_enabled):
            deleted += self._delete_segments_while(self._retention_ms_breached(), "retention.ms breach")
            deleted += self._delete_segments_while(self._retention_size_breached(), "retention.bytes breach")
        return deleted

    def delete_segments_below_log_start(self) -> int:
        """Only the segments wholly below the log start offset, whatever the retention settings (the
        metadata log: what a snapshot covers may go, nothing else)."""
        return self._delete_segments_while(self._log_start_offset_breached, "log start offset breach")

    def truncate_fully_and_start_at(self, offset: int, log_start_offset: int | None = None) -> None:
        """Drop every segment and start empty at `offset` (a follower that installed a leader's snapshot,
        or whose leader's records below it are remote, from `log_start_offset`: truncateFullyAndStartAt)."""
        with self._lock:
            dropped = self._local_log.truncate_fully_and_start_at(offset)
            self._log_start_offset = offset if log_start_offset is None else log_start_offset
            self._local_log_start_offset = self._high_watermark = offset
            self.leader_epoch_cache.clear()
            self.producer_state_manager.truncate_fully_and_start_at(offset)
            rebuild_producer_state(self.producer_state_manager, self._local_log.segments, offset, offset,
                                   self.time)
            self.producer_state_manager.on_high_watermark_updated(offset)
        LocalLog.delete_segments(dropped)

    def _log_start_offset_breached(self, segment: LogSegment, next_base_offset: int) -> bool:
        start = self._local_log_start_offset if self.remote_log_enabled else self._log_start_offset
        return next_base_offset <= start

    def _retention_ms_breached(self) -> Callable[[LogSegment, int], bool]:
        retention_ms = self.config.effective_local_retention_ms(self._remote_copy_enabled)
        now = self.time.milliseconds()
        return lambda segment, _: retention_ms >= 0 and now - segment.largest_timestamp > retention_ms

    def _retention_size_breached(self) -> Callable[[LogSegment, int], bool]:
        retention_bytes = self.config.effective_local_retention_bytes(self._remote_copy_enabled)
        excess = [self.size_in_bytes - retention_bytes]

        def breached(segment: LogSegment, _: int) -> bool:
            if retention_bytes < 0 or excess[0] < segment.size:
                return False
            excess[0] -= segment.size
            return True
        return breached

    def _eligible_for_deletion(self, next_base: int) -> bool:
        """Kafka's isSegmentEligibleForDeletion: a tiered log's segment waits until its copy finished."""
        return (not self._remote_copy_enabled or next_base - 1 <= self._highest_offset_in_remote_storage
                or self._log_start_offset >= next_base)

    def _delete_segments_while(self, predicate: Callable[[LogSegment, int], bool], reason: str) -> int:
        """Kafka's deleteOldSegments(predicate): the oldest segments while `predicate` holds, never the
        active one nor one holding offsets at or above the high watermark. LocalLog removes them."""
        local_log = self._local_log
        with self._lock:
            if local_log.closed:
                return 0
            segments, base_offsets = local_log.view
            doomed = []
            for index, segment in enumerate(segments[:-1]):  # never the active segment
                next_base_offset = base_offsets[index + 1]
                if (next_base_offset > self._high_watermark or not predicate(segment, next_base_offset)
                        or not self._eligible_for_deletion(next_base_offset)):
                    break
                doomed.append(segment)
            else:  # Kafka rolls a tiered log's expired active segment, to copy it and then delete it
                active, end = segments[-1], self.log_end_offset
                if self.remote_log_enabled and active.size and self._high_watermark >= end \
                        and predicate(active, end):
                    self._roll()
            if not doomed:
                return 0
            local_log.remove_and_rename_segments(doomed)
            self._local_log_start_offset = max(self._local_log_start_offset, local_log.view[1][0])
            if not self._remote_copy_enabled:
                self._log_start_offset = max(self._log_start_offset, local_log.view[1][0])
            local_log.update_recovery_point(max(local_log.recovery_point, self._local_log_start_offset))
            self.leader_epoch_cache.truncate_from_start(self._log_start_offset)
            for segment in doomed:
                # The snapshot at a deleted segment's base describes the log before it: no use any more.
                self.producer_state_manager.remove_and_delete_snapshot(segment.base_offset)
            self.producer_state_manager.on_log_start_offset_incremented(self._log_start_offset)
            log_start_offset, local_start = self._log_start_offset, self._local_log_start_offset
        local_log.delete_segment_files(doomed)
        log.info("deleted old segments", log=self.name, reason=reason, log_start_offset=log_start_offset,
                 segments=[s.base_offset for s in doomed], local_log_start_offset=local_start)
        return len(doomed)

    # ------------------------------------------------------------------------------ compaction

    def new_cleaned_segment(self, base_offset: int) -> LogSegment:
        """An empty `.cleaned` segment for the LogCleaner to fill (LocalLog's)."""
        return self._local_log.new_cleaned_segment(base_offset)

    def replace_segment(self, old: LogSegment, cleaned: LogSegment) -> bool:
        """Swap a cleaned segment in for `old`, atomically on disk (LocalLog's replace_segment)."""
        return self._local_log.replace_segment(old, cleaned)

    # ------------------------------------------------------------------------------ files

    @property
    def segments(self) -> list[LogSegment]:
        return self._local_log.segments

    @property
    def active_segment(self) -> LogSegment:
        return self._local_log.active_segment

    @property
    def num_segments(self) -> int:
        return self._local_log.num_segments

    @property
    def size_in_bytes(self) -> int:
        return self._local_log.size_in_bytes

    def flush(self, up_to_offset: int | None = None) -> None:
        """fsync up to `up_to_offset` (default: the log end offset) and move the recovery point there."""
        self._local_log.flush(up_to_offset)

    def close(self) -> None:
        """Snapshot the producer state at the log end offset (so the next start replays nothing),
        then close every file (the caller flushes first if it wants the bytes on disk)."""
        with self._lock:
            if not self._local_log.closed:
                try:
                    self.producer_state_manager.take_snapshot()
                except OSError as e:  # a failed disk: the next start replays the log instead
                    log.warning("could not snapshot the producer state at close", log=self.name, error=str(e))
        self.close_handlers()

    def close_handlers(self) -> None:
        """Close every file, writing nothing (a log about to be deleted)."""
        self._local_log.close_handlers()

    def delete(self) -> None:
        """Close the log and remove its directory with every segment in it."""
        self._local_log.delete()

    def __repr__(self) -> str:
        return (f"UnifiedLog({self.name}, log_start_offset={self._log_start_offset}, "
                f"log_end_offset={self.log_end_offset}, segments={self.num_segments})")
