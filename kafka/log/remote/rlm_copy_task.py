"""RLMCopyTask: a leader copying its rolled segments to remote storage (Kafka's
RemoteLogManager.RLMCopyTask, KIP-405).

Every `remote.log.manager.task.interval.ms`, on a copier thread: take the segments after the highest offset
already copied whose records are all below the last stable offset (the active segment never, an open
transaction's records not yet), and copy each, oldest first:

    COPY_SEGMENT_STARTED  the segment's metadata (a fresh id, its offsets, size, leader epochs) is written
                          to the RemoteLogMetadataManager, and waited for
    copy                  the RemoteStorageManager stores the .log, .index, .timeindex, .txnindex (if any
                          transaction was aborted in it), the producer snapshot at the segment's end and the
                          leader epochs up to its end
    COPY_SEGMENT_FINISHED written and waited for; only now may readers use the copy and local retention
                          delete the local segment (UnifiedLog.update_highest_offset_in_remote_storage)

A new leader first finds where its predecessors got to: the highest offset copied in its own leader-epoch
lineage (RemoteLogManager.find_highest_remote_offset), so it neither copies a segment twice nor trusts
a copy of records a previous leader wrote and this one truncated. A failed copy is deleted again (by the
same id) and the next run retries.
"""

from __future__ import annotations

import os
from pathlib import Path

import structlog

from kafka.log.leader_epoch_file_cache import EpochEntry
from kafka.log.log_segment import LogSegment
from kafka.log.remote.remote_log_segment_metadata import (
    RemoteLogSegmentId,
    RemoteLogSegmentMetadata,
    RemoteLogSegmentMetadataUpdate,
    RemoteLogSegmentState,
)
from kafka.log.remote.remote_storage_manager import LogSegmentData, RemoteStorageException
from kafka.log.remote.rlm_task import OffsetAndEpoch, RLMTask
from kafka.log.unified_log import UnifiedLog
from kafka.metrics import remote_storage_metrics as r

log = structlog.get_logger(__name__)


class CustomMetadataSizeLimitExceededError(Exception):
    """The RemoteStorageManager returned more custom metadata than
    remote.log.metadata.custom.metadata.max.bytes: the copy is deleted and this partition's copying stops
    (Kafka's CustomMetadataSizeLimitExceededException)."""


class RLMCopyTask(RLMTask):
    def __init__(self, rlm, topic_id_partition, custom_metadata_size_limit: int) -> None:
        super().__init__(rlm, topic_id_partition)
        self.custom_metadata_size_limit = custom_metadata_size_limit
        self.copied_offset: OffsetAndEpoch | None = None  # the highest copied record
        self._log_start_offset_updated = False
        self._log_directory: str | None = None

    def execute(self, unified_log: UnifiedLog) -> None:
        if unified_log.parent_dir != self._log_directory:
            # A new leadership, or the log moved to another log dir: look everything up again.
            self.copied_offset = None
            self._log_start_offset_updated = False
            self._log_directory = unified_log.parent_dir
        self.copy_log_segments_to_remote(unified_log)

    def _maybe_update_log_start_offset_on_becoming_leader(self, unified_log: UnifiedLog) -> None:
        if not self._log_start_offset_updated:
            log_start_offset = self.rlm.find_log_start_offset(self.topic_id_partition, unified_log)
            self.rlm.update_remote_log_start_offset(self.topic_id_partition.topic_partition,
                                                    log_start_offset)
            self._log_start_offset_updated = True
            log.info("found the log start offset after becoming leader",
                     partition=str(self.topic_id_partition), log_start_offset=log_start_offset)

    def _maybe_update_copied_offset(self, unified_log: UnifiedLog) -> None:
        if self.copied_offset is None:
            self.copied_offset = self.rlm.find_highest_remote_offset(self.topic_id_partition, unified_log)
            log.info("found the highest offset copied after becoming leader",
                     partition=str(self.topic_id_partition), offset=self.copied_offset.offset,
                     epoch=self.copied_offset.epoch)
            unified_log.update_highest_offset_in_remote_storage(self.copied_offset.offset)

    def candidate_log_segments(self, unified_log: UnifiedLog, from_offset: int,
                               last_stable_offset: int) -> list[tuple[LogSegment, int]]:
        """Kafka's candidateLogSegments: (segment, next segment's base offset) for the segments from the
        one holding from_offset whose successor starts at or below the LSO, while each passes
        remote.copy.lag.*."""
        segments = unified_log.segments
        nexts = [s.base_offset for s in segments[1:]]
        first = max((i for i, s in enumerate(segments) if s.base_offset <= from_offset), default=0)
        segments, nexts = segments[first:], nexts[first:]
        config, now = unified_log.config, self.rlm.time.milliseconds()
        total_size = sum(s.size for s in segments)
        candidates, cumulative = [], 0
        for segment, next_base in zip(segments, nexts, strict=False):
            if next_base > last_stable_offset:
                break
            cumulative += segment.size
            if not _eligible_for_upload(config, segment, now, total_size, cumulative):
                break
            candidates.append((segment, next_base))
        return candidates

    def copy_log_segments_to_remote(self, unified_log: UnifiedLog) -> None:
        if self.is_cancelled:
            return
        topic = self.topic_id_partition.topic or ""
        try:
            self._maybe_update_log_start_offset_on_becoming_leader(unified_log)
            self._maybe_update_copied_offset(unified_log)
            assert self.copied_offset is not None
            copied_offset = self.copied_offset.offset
            lso = unified_log.last_stable_offset
            if lso <= 0 or copied_offset >= lso:
                return
            from_offset = max(copied_offset + 1, unified_log.log_start_offset)
            for segment, next_base in self.candidate_log_segments(unified_log, from_offset, lso):
                if self.is_cancelled:
                    return
                self.rlm.await_copy_quota(segment.size)
                segment_id = RemoteLogSegmentId.generate_new(self.topic_id_partition)
                self.rlm.segment_ids_being_copied.add(segment_id)
                try:
                    self.copy_log_segment(unified_log, segment, segment_id, next_base)
                finally:
                    self.rlm.segment_ids_being_copied.discard(segment_id)
        except CustomMetadataSizeLimitExceededError:
            self.rlm.stats.mark(r.REMOTE_COPY_ERRORS, topic)
            self.cancel()
        except Exception:
            if not self.is_cancelled:
                self.rlm.stats.mark(r.REMOTE_COPY_ERRORS, topic)
                log.exception("error copying log segments", partition=str(self.topic_id_partition))
        finally:
            self.record_lag_stats(unified_log)

    def copy_log_segment(self, unified_log: UnifiedLog, segment: LogSegment, segment_id: RemoteLogSegmentId,
                         next_segment_base_offset: int) -> None:
        rlm, topic = self.rlm, self.topic_id_partition.topic or ""
        log.info("copying a segment to remote storage", segment=os.path.basename(segment.log_path),
                 partition=str(self.topic_id_partition))
        end_offset = next_segment_base_offset - 1
        snapshot = unified_log.producer_state_manager.fetch_snapshot(next_segment_base_offset)
        if snapshot is None:
            raise RemoteStorageException(f"no producer snapshot at {next_segment_base_offset} "
                                         f"for {unified_log.name}")
        epoch_entries = rlm.leader_epoch_entries(unified_log, segment.base_offset, next_segment_base_offset)
        txn_entries = segment.txn_index.all_aborted_txns()
        started = RemoteLogSegmentMetadata(
            segment_id, segment.base_offset, end_offset, segment.largest_timestamp, rlm.broker_id,
            rlm.time.milliseconds(), segment.size, {e.epoch: e.start_offset for e in epoch_entries},
            txn_index_empty=not txn_entries)
        rlm.remote_log_metadata_manager.add_remote_log_segment_metadata(started).result()
        data = LogSegmentData(
            Path(segment.log_path), _existing(segment.offset_index.path), _existing(segment.time_index.path),
            Path(segment.txn_index.path) if txn_entries else None, Path(snapshot),
            epoch_entries_as_bytes(rlm.leader_epoch_entries(unified_log, -1, next_segment_base_offset)))
        rlm.stats.mark(r.REMOTE_COPY_REQUESTS, topic)
        try:
            custom_metadata = rlm.remote_storage_manager.copy_log_segment_data(started, data)
        except RemoteStorageException:
            log.info("copy failed: deleting what was copied", segment_id=str(segment_id))
            try:
                rlm.delete_remote_log_segment(started, lambda _: not self.is_cancelled)
            except RemoteStorageException as e:
                log.info("cleanup failed: retried later", segment_id=str(segment_id), error=str(e))
            raise
        if self.is_cancelled:  # the partition changed hands or was deleted meanwhile: leave nothing behind
            rlm.remote_storage_manager.delete_log_segment_data(started)
            return
        finished = RemoteLogSegmentMetadataUpdate(segment_id, rlm.time.milliseconds(), custom_metadata,
                                                  RemoteLogSegmentState.COPY_SEGMENT_FINISHED, rlm.broker_id)
        if custom_metadata is not None and len(custom_metadata) > self.custom_metadata_size_limit:
            log.info("custom metadata over the limit: copying stops and the copy is deleted",
                     size=len(custom_metadata), limit=self.custom_metadata_size_limit)
            try:
                rlm.delete_remote_log_segment(started.create_with_update(finished),
                                              lambda _: not self.is_cancelled)
            except RemoteStorageException as e:
                log.info("cleanup failed: retried later", segment_id=str(segment_id), error=str(e))
            raise CustomMetadataSizeLimitExceededError()
        rlm.remote_log_metadata_manager.update_remote_log_segment_metadata(finished).result()
        rlm.stats.mark(r.REMOTE_COPY_BYTES, topic, started.segment_size_in_bytes)
        self.copied_offset = OffsetAndEpoch(end_offset, epoch_entries[-1].epoch)
        unified_log.update_highest_offset_in_remote_storage(end_offset)
        log.info("copied a segment to remote storage", segment=os.path.basename(segment.log_path),
                 segment_id=str(segment_id))

    def record_lag_stats(self, unified_log: UnifiedLog) -> None:
        """RemoteCopyLagBytes and RemoteCopyLagSegments: the rolled segments not copied yet."""
        if self.is_cancelled:
            return
        copied = unified_log.highest_offset_in_remote_storage
        local_only = [s for s in unified_log.segments if s.base_offset > copied]
        self.rlm.record_copy_lag(self.topic_id_partition, max(0, sum(s.size for s in local_only[:-1])),
                                 max(0, len(local_only) - 1))

    def reset_lag_stats(self) -> None:
        self.rlm.record_copy_lag(self.topic_id_partition, 0, 0)


def _eligible_for_upload(config, segment: LogSegment, now_ms: int, total_size: int, cumulative: int) -> bool:
    """Kafka 4.4's isEligibleForUpload: with remote.copy.lag.ms and .bytes both set, a segment waits until
    it is old enough, or enough newer data follows it, whichever comes first."""
    lag_ms, lag_bytes = config.effective_remote_copy_lag_ms, config.effective_remote_copy_lag_bytes
    if lag_ms == 0 or lag_bytes == 0:
        return True
    age_ms = now_ms - segment.largest_timestamp
    if lag_ms > 0 and (age_ms < 0 or age_ms >= lag_ms):
        return True
    return lag_bytes > 0 and total_size - cumulative >= lag_bytes


def _existing(path: str) -> Path:
    """An index file to copy: one the segment never wrote to is empty, and copied as such."""
    if not os.path.exists(path):
        open(path, "ab").close()
    return Path(path)


def epoch_entries_as_bytes(entries: list[EpochEntry]) -> bytes:
    """Kafka's epochEntriesAsByteBuffer: the entries as a leader-epoch-checkpoint file's text."""
    lines = ["0", str(len(entries)), *(f"{e.epoch} {e.start_offset}" for e in entries)]
    return ("\n".join(lines) + "\n").encode()
