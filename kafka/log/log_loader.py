"""LogLoader: open a partition directory and recover it after a crash (Kafka's LogLoader).

Start-up has two roads, chosen by the log dir's clean-shutdown marker (`.kafka_cleanshutdown`):

- **clean**: the last shutdown fsynced everything. Each segment is opened and its indexes are
  sanity-checked; only a missing or inconsistent index is rebuilt.
- **unclean** (kill -9, power loss): everything below the partition's *recovery point* (from
  `recovery-point-offset-checkpoint`) was fsynced before the crash and is trusted. Every segment from
  the one holding the recovery point on is **recovered**: each batch's size and CRC is checked, the
  indexes are rebuilt, and at the first invalid batch the segment is cut there and every later
  segment deleted: a torn tail never hides valid-looking bytes behind it.

Before either, the loader finishes what a crash interrupted: `.deleted` files are removed, `.cleaned`
files (a compaction still being written) are removed, and `.swap` files (a compaction complete on
disk) replace the segment they were cleaned from.

Last, the idempotent producers' state (KIP-98, seed 004) is rebuilt for the log as loaded
(`rebuild_producer_state`): the newest `.snapshot` at or below the log end offset, then the batch
headers after it. After a clean shutdown the snapshot is at the log end and nothing is replayed;
after kill -9 the active segment (at least) is, so a retry the broker had acknowledged before the
crash is still recognised as one.

Transactions ride on the same replay: a transactional batch reopens its producer's transaction, a
marker completes it, and an ABORT marker's entry goes (back) into its segment's `.txnindex`. After
an unclean shutdown the recovered segments' `.txnindex` entries for markers the replay will read
again are dropped first, so what the replay covers is indexed from the log itself (Kafka rebuilds
the index in LogSegment.recover); below the replay's start the entries are trusted as the segments
are. A `.txnindex` that fails its sanity check is emptied, and the replay starts at or below its
segment.

The leader-epoch cache (`load_leader_epoch_cache`) is cut to the log as loaded: entries past its end
or before its start go, and a missing or damaged `leader-epoch-checkpoint` is rebuilt from the
batches' epochs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

import structlog

from kafka.log.append_origin import AppendOrigin
from kafka.log.errors import CorruptIndexError
from kafka.log.leader_epoch_file_cache import LeaderEpochCheckpointFile, LeaderEpochFileCache
from kafka.log.log_config import LogConfig
from kafka.log.log_file_utils import (
    CLEANED_FILE_SUFFIX,
    DELETED_FILE_SUFFIX,
    INDEX_FILE_SUFFIX,
    LOG_FILE_SUFFIX,
    SWAP_FILE_SUFFIX,
    TIME_INDEX_FILE_SUFFIX,
    TXN_INDEX_FILE_SUFFIX,
    offset_from_file_name,
)
from kafka.log.log_segment import LogSegment
from kafka.log.producer_append_info import ProducerAppendInfo
from kafka.log.producer_state_manager import (
    PRODUCER_SNAPSHOT_FILE_SUFFIX,
    SNAPSHOT_TEMP_SUFFIX,
    ProducerStateManager,
    update_producers,
)
from kafka.protocol.record_batch import NO_PRODUCER_ID, RecordBatch
from kafka.utils.time import Time

log = structlog.get_logger("kafka.log.LogLoader")

_INDEX_SUFFIXES = (INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX, TXN_INDEX_FILE_SUFFIX)


@dataclass
class LoadedLogOffsets:
    """What loading found: the segments, where the log starts and ends, and the recovery point to keep."""

    segments: list[LogSegment]
    log_end_offset: int
    recovery_point: int
    log_start_offset: int = 0
    recovered_segments: int = 0
    truncated_bytes: int = 0
    deleted_segments: int = 0


class LogLoader:
    def __init__(self, dir: str, name: str, config: LogConfig, time: Time, had_clean_shutdown: bool,
                 recovery_point: int, log_start_offset: int = 0,
                 producer_state_manager: ProducerStateManager | None = None,
                 remote_log_enabled: bool = False) -> None:
        self.dir = dir
        self.name = name
        self.config = config
        self.time = time
        self.had_clean_shutdown = had_clean_shutdown
        self.recovery_point = recovery_point
        self.log_start_offset = log_start_offset  # from log-start-offset-checkpoint
        self.producer_state_manager = producer_state_manager
        # A tiered log starts where its checkpoint says, below its first local segment (the rest is remote).
        self.remote_log_enabled = remote_log_enabled
        # The base offset of the first segment whose .txnindex must be written again by the replay.
        self.rebuild_txn_index_from: int | None = None

    def load(self) -> LoadedLogOffsets:
        self.remove_temp_files_and_complete_swaps()
        segments = self.load_segment_files()
        if self.had_clean_shutdown and segments and segments[-1].has_torn_tail():
            # A clean shutdown never leaves half a batch: someone changed the file. Trust nothing after it.
            log.warning("bytes after the last whole batch: recovering the active segment", log=self.name)
            segments[-1].recover()
        result = LoadedLogOffsets(segments, segments[-1].read_next_offset() if segments else 0, 0)
        if not self.had_clean_shutdown and segments:
            self.recover_log(result)
        result.recovery_point = (result.log_end_offset if self.had_clean_shutdown
                                 else min(self.recovery_point, result.log_end_offset))
        if not segments:  # a new log, or every segment was lost: start empty at the log start offset
            segments.append(LogSegment(self.dir, self.log_start_offset, self.config, self.time))
            result.log_end_offset = result.recovery_point = self.log_start_offset
        first_local = self.log_start_offset if self.remote_log_enabled else segments[0].base_offset
        result.log_start_offset = min(max(self.log_start_offset, first_local), result.log_end_offset)
        if self.producer_state_manager is not None:
            self.producer_state_manager.remove_stray_snapshots(s.base_offset for s in segments)
            if self.rebuild_txn_index_from is not None:
                # The replay must start at or below the first segment whose .txnindex was emptied.
                for offset in self.producer_state_manager.snapshot_offsets:
                    if offset > self.rebuild_txn_index_from:
                        self.producer_state_manager.remove_and_delete_snapshot(offset)
            if result.recovered_segments:
                replay_from = max([o for o in self.producer_state_manager.snapshot_offsets
                                   if o <= result.log_end_offset], default=result.log_start_offset)
                for segment in segments[-result.recovered_segments:]:
                    segment.txn_index.truncate_to(replay_from)
            rebuild_producer_state(self.producer_state_manager, segments, result.log_start_offset,
                                   result.log_end_offset, self.time)
        return result

    # ------------------------------------------------------------------------------ leftovers

    def remove_temp_files_and_complete_swaps(self) -> None:
        names = os.listdir(self.dir)
        for name in sorted(n for n in names if n.endswith(LOG_FILE_SUFFIX + SWAP_FILE_SUFFIX)):
            self._complete_swap(offset_from_file_name(name))
        for name in os.listdir(self.dir):
            if name.endswith((DELETED_FILE_SUFFIX, CLEANED_FILE_SUFFIX, SWAP_FILE_SUFFIX,
                              PRODUCER_SNAPSHOT_FILE_SUFFIX + SNAPSHOT_TEMP_SUFFIX)):
                # A deletion, a compaction or a producer snapshot not finished, or half a swap: drop them.
                os.unlink(os.path.join(self.dir, name))
        names = set(os.listdir(self.dir))
        for name in names:
            if name.endswith(_INDEX_SUFFIXES) and name.split(".", 1)[0] + LOG_FILE_SUFFIX not in names:
                os.unlink(os.path.join(self.dir, name))  # an index without its log: Kafka drops it too

    def _complete_swap(self, base_offset: int) -> None:
        """A .log.swap is a cleaned segment written in full: it replaces the segment it came from."""
        prefix = os.path.join(self.dir, f"{base_offset:020d}")
        for suffix in (LOG_FILE_SUFFIX, *_INDEX_SUFFIXES):
            if os.path.exists(prefix + suffix):
                os.unlink(prefix + suffix)
        for suffix in (*_INDEX_SUFFIXES, LOG_FILE_SUFFIX):  # the .log last, as the cleaner renames them
            if os.path.exists(prefix + suffix + SWAP_FILE_SUFFIX):
                os.rename(prefix + suffix + SWAP_FILE_SUFFIX, prefix + suffix)
        log.info("completed an interrupted compaction swap", log=self.name, segment=base_offset)

    # ------------------------------------------------------------------------------ segments

    def load_segment_files(self) -> list[LogSegment]:
        """Open every `%020d.log`; a clean-shutdown segment with a bad index gets the index rebuilt.

        Below the recovery point everything was fsynced before the checkpoint was written, so only
        the indexes' existence is checked there (Kafka skips these sanity checks since KAFKA-7283):
        their entries are read when a reader first needs them, not at start-up (LazyIndex)."""
        log_names = sorted((n for n in os.listdir(self.dir) if n.endswith(LOG_FILE_SUFFIX)
                            and _is_offset_name(n)),
                           key=offset_from_file_name)
        base_offsets = [offset_from_file_name(name) for name in log_names]
        segments = []
        for index, base_offset in enumerate(base_offsets):
            segment = LogSegment(self.dir, base_offset, self.config, self.time)
            flushed = index + 1 < len(base_offsets) and base_offsets[index + 1] <= self.recovery_point
            try:
                if flushed:
                    segment.check_index_files_exist()
                else:
                    segment.sanity_check()
            except (FileNotFoundError, CorruptIndexError) as error:
                log.warning("rebuilding index", log=self.name, segment=segment.base_offset, reason=str(error))
                segment.recover()
            try:
                segment.txn_index.sanity_check()
            except CorruptIndexError as error:
                log.warning("rebuilding transaction index", log=self.name, segment=segment.base_offset,
                            reason=str(error))
                self._reset_txn_index(segment)
            segments.append(segment)
        return segments

    def _reset_txn_index(self, segment: LogSegment) -> None:
        segment.txn_index.reset()
        if self.rebuild_txn_index_from is None or segment.base_offset < self.rebuild_txn_index_from:
            self.rebuild_txn_index_from = segment.base_offset

    def recover_log(self, result: LoadedLogOffsets) -> None:
        """Recover every segment from the one holding the recovery point (Kafka's recoverLog)."""
        segments = result.segments
        first = 0
        for index, segment in enumerate(segments):
            if segment.base_offset <= self.recovery_point:
                first = index
        for index in range(first, len(segments)):
            segment = segments[index]
            truncated = segment.recover()
            result.recovered_segments += 1
            if truncated:
                result.truncated_bytes = truncated
                doomed = segments[index + 1:]
                del segments[index + 1:]
                for later in doomed:
                    later.delete()
                result.deleted_segments = len(doomed)
                log.warning("found an invalid batch: truncated the log", log=self.name,
                            segment=segment.base_offset, truncated_bytes=truncated,
                            deleted_later_segments=len(doomed))
                break
        result.log_end_offset = segments[-1].read_next_offset()
        log.info("recovered log after an unclean shutdown", log=self.name, recovery_point=self.recovery_point,
                 recovered_segments=result.recovered_segments, log_end_offset=result.log_end_offset,
                 truncated_bytes=result.truncated_bytes, deleted_segments=result.deleted_segments)


# ---------------------------------------------------------------------------------- leader epochs

def load_leader_epoch_cache(dir: str, name: str, segments: Iterable[LogSegment], log_start_offset: int,
                            log_end_offset: int) -> LeaderEpochFileCache:
    """The leader-epoch-checkpoint, cut to the log as loading left it (Kafka's LogLoader truncates the
    cache it is given the same way); without one (a log from before epochs were kept, or a damaged
    file) the map is rebuilt from the batches' epochs, as Kafka's LogSegment.recover assigns them."""
    missing = not LeaderEpochCheckpointFile(dir).exists()
    cache = LeaderEpochFileCache.load(name, dir)
    if missing or not cache.entries() and log_end_offset > log_start_offset:
        for segment in segments:
            for batch in segment.batch_headers():
                cache.assign(batch.partition_leader_epoch, batch.base_offset)
    cache.truncate_from_end(log_end_offset)
    cache.truncate_from_start(log_start_offset)
    return cache


# ---------------------------------------------------------------------------------- producer state

def rebuild_producer_state(producer_state_manager: ProducerStateManager, segments: list[LogSegment],
                           log_start_offset: int, last_offset: int, time: Time) -> None:
    """Bring the producer state to `last_offset` (Kafka's UnifiedLog.rebuildProducerState): load the
    newest snapshot at or below it, replay the batch headers from there, then snapshot `last_offset`.

    Replaying writes snapshots at the last two segments' base offsets on the way, so that a later
    truncation into either of them needs no long replay."""
    bases = [segment.base_offset for segment in segments]
    offsets_to_snapshot = {*bases[-2:], last_offset}
    # A log that had no producers and is only cut shorter still has none: skip the replay (what
    # makes truncation free for topics without idempotent producers).
    was_empty = producer_state_manager.is_empty and producer_state_manager.map_end_offset >= last_offset
    producer_state_manager.truncate_and_reload(log_start_offset, last_offset, time.milliseconds())
    if last_offset > producer_state_manager.map_end_offset and not was_empty:
        log.info("rebuilding producer state from the log", partition=producer_state_manager.topic_partition,
                 from_offset=producer_state_manager.map_end_offset, to_offset=last_offset)
        for index, segment in enumerate(segments):
            segment_end = bases[index + 1] if index + 1 < len(bases) else last_offset
            if segment_end <= producer_state_manager.map_end_offset or segment.base_offset >= last_offset:
                continue
            start = max(segment.base_offset, producer_state_manager.map_end_offset, log_start_offset)
            producer_state_manager.update_map_end_offset(start)
            if segment.base_offset in offsets_to_snapshot:
                producer_state_manager.take_snapshot()
            load_producers_from_batches(producer_state_manager, segment.batch_headers(start), last_offset,
                                        segment)
    producer_state_manager.update_map_end_offset(last_offset)
    producer_state_manager.take_snapshot()


def load_producers_from_batches(producer_state_manager: ProducerStateManager, batches: Iterable[RecordBatch],
                                end_offset: int, segment: LogSegment | None = None) -> None:
    """Replay batches already in the log below `end_offset`: what the leader accepted is taken as it
    is, nothing checked again (Kafka's loadProducersFromRecords, origin REPLICATION). A marker
    completes its transaction, and an abort is indexed in `segment` unless it already is there."""
    loaded: dict[int, ProducerAppendInfo] = {}
    for batch in batches:
        if batch.base_offset >= end_offset:
            break
        if batch.producer_id == NO_PRODUCER_ID:
            continue
        completed = update_producers(producer_state_manager, batch, loaded, None, AppendOrigin.REPLICATION)
        if completed is not None:
            # What came before the marker goes into the map first: the LSO the index entry records
            # is the oldest other transaction open at the marker, not one begun after it.
            for append_info in loaded.values():
                producer_state_manager.update(append_info)
            loaded.clear()
            if segment is not None:
                segment.update_txn_index(completed, producer_state_manager.last_stable_offset(completed))
            producer_state_manager.complete_txn(completed)
    for append_info in loaded.values():
        producer_state_manager.update(append_info)


def _is_offset_name(name: str) -> bool:
    prefix = name.split(".", 1)[0]
    return len(prefix) == 20 and prefix.isdigit()
