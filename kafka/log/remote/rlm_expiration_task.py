"""RLMExpirationTask: a leader deleting its remote segments past retention (Kafka's
RemoteLogManager.RLMExpirationTask with its RemoteLogRetentionHandler, RetentionSizeData and
RetentionTimeData).

Every `remote.log.manager.task.interval.ms`, on an expiration thread, the partition's remote segments are
walked oldest first, leader epoch by leader epoch of this replica's lineage. A segment goes when

    its records are all below the log start offset (a DeleteRecords moved it, or remote retention did),
    its newest record is older than retention.ms, or
    the whole log, local segments not yet copied plus remote ones, is larger than retention.bytes,

and the walk stops at the first segment that stays (retention deletes from the start of the log, never
from its middle). Each goes DELETE_SEGMENT_STARTED -> RemoteStorageManager delete ->
DELETE_SEGMENT_FINISHED, and the log start offset moves past the last one deleted. Segments a deposed
leader copied of epochs this log no longer has are deleted once those fall below its oldest epoch.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from kafka.log.leader_epoch_file_cache import EpochEntry
from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentMetadata, RemoteLogSegmentState
from kafka.log.remote.rlm_task import RLMTask
from kafka.log.unified_log import UnifiedLog
from kafka.metrics import remote_storage_metrics as r

log = structlog.get_logger(__name__)
S = RemoteLogSegmentState


@dataclass
class RemoteLogRetentionHandler:
    """What one run may still delete, and the log start offset the deletions leave."""

    retention_bytes: int  # < 0: no size limit
    remaining_breached_size: int  # bytes over retention.bytes, local and remote together
    cleanup_until_ms: int | None  # segments whose newest record is at or before this are past retention.ms
    log_start_offset: int | None = None

    def is_segment_breached_by_retention_size(self, metadata: RemoteLogSegmentMetadata) -> bool:
        if self.retention_bytes < 0 or self.remaining_breached_size - metadata.segment_size_in_bytes < 0:
            return False
        self.remaining_breached_size -= metadata.segment_size_in_bytes
        self._moved_past(metadata)
        return True

    def is_segment_breached_by_retention_time(self, metadata: RemoteLogSegmentMetadata) -> bool:
        if self.cleanup_until_ms is None or metadata.max_timestamp_ms > self.cleanup_until_ms:
            return False
        self.remaining_breached_size = max(0, self.remaining_breached_size - metadata.segment_size_in_bytes)
        self._moved_past(metadata)
        return True

    @staticmethod
    def is_segment_breach_by_log_start_offset(metadata: RemoteLogSegmentMetadata, log_start_offset: int,
                                              leader_epochs: dict[int, int]) -> bool:
        first_epoch = min(leader_epochs) if leader_epochs else None
        return (first_epoch is not None and all(e <= first_epoch for e in metadata.segment_leader_epochs)
                and metadata.end_offset < log_start_offset)

    def _moved_past(self, metadata: RemoteLogSegmentMetadata) -> None:
        if self.log_start_offset is None or self.log_start_offset < metadata.end_offset + 1:
            self.log_start_offset = metadata.end_offset + 1


class RLMExpirationTask(RLMTask):
    def execute(self, unified_log: UnifiedLog) -> None:
        self.cleanup_expired_remote_log_segments(unified_log)

    def cleanup_expired_remote_log_segments(self, unified_log: UnifiedLog) -> None:
        rlm, tip = self.rlm, self.topic_id_partition
        if self.is_cancelled:
            return
        all_segments = list(rlm.remote_log_metadata_manager.list_remote_log_segments(tip))
        counted = [m for m in all_segments if m.state in (S.COPY_SEGMENT_FINISHED, S.DELETE_SEGMENT_STARTED)]
        rlm.record_metadata_count_and_size(tip, len(all_segments),
                                           sum(m.segment_size_in_bytes for m in counted))
        if not all_segments:
            return
        epochs = build_filtered_leader_epoch_map(unified_log.leader_epoch_cache.entries())
        self._maybe_seed_highest_offset_in_remote_storage(unified_log)
        log_start_offset, log_end_offset = unified_log.log_start_offset, unified_log.log_end_offset
        handler = self._retention_handler(unified_log, epochs, log_end_offset)
        to_delete: list[RemoteLogSegmentMetadata] = []
        deletable_bytes = 0
        can_process = True
        for epoch in sorted(epochs):
            for metadata in rlm.remote_log_metadata_manager.list_remote_log_segments(tip, epoch):
                if not can_process:
                    break
                if self.is_cancelled:
                    return
                if metadata.remote_log_segment_id in rlm.segment_ids_being_copied:
                    can_process = False  # a copy in progress: nothing from here on may go
                    continue
                if metadata.state is S.DELETE_SEGMENT_STARTED:
                    to_delete.append(metadata)  # a deletion interrupted earlier: finish it
                    continue
                if metadata.state is S.DELETE_SEGMENT_FINISHED or metadata in to_delete:
                    continue
                delete = handler.is_segment_breach_by_log_start_offset(metadata, log_start_offset, epochs)
                valid = False
                if not delete:
                    valid = is_remote_segment_within_leader_epochs(metadata, log_end_offset, epochs)
                    if valid:
                        delete = (handler.is_segment_breached_by_retention_time(metadata)
                                  or handler.is_segment_breached_by_retention_size(metadata))
                if delete:
                    to_delete.append(metadata)
                    deletable_bytes += metadata.segment_size_in_bytes
                can_process = delete or not valid
            if not can_process:
                break
        if handler.log_start_offset is not None:
            rlm.update_remote_log_start_offset(tip.topic_partition, handler.log_start_offset)
        self._delete(to_delete, deletable_bytes)
        self._delete_segments_of_truncated_epochs(unified_log, all_segments)

    def _retention_handler(self, unified_log: UnifiedLog, epochs: dict[int, int],
                           log_end_offset: int) -> RemoteLogRetentionHandler:
        config, now = unified_log.config, self.rlm.time.milliseconds()
        breached = 0
        if config.retention_bytes >= 0:
            start = self.rlm.time.hi_res_clock_ms()
            rlmm, tip = self.rlm.remote_log_metadata_manager, self.topic_id_partition
            visited = {m.remote_log_segment_id: m for epoch in epochs
                       for m in rlmm.list_remote_log_segments(tip, epoch)
                       if m.state is S.COPY_SEGMENT_FINISHED
                       and is_remote_segment_within_leader_epochs(m, log_end_offset, epochs)}
            remote_bytes = sum(m.segment_size_in_bytes for m in visited.values())
            self.rlm.stats.record(r.REMOTE_LOG_SIZE_COMPUTATION_TIME, self.topic_id_partition.topic or "",
                                  self.topic_id_partition.partition, self.rlm.time.hi_res_clock_ms() - start)
            copied = unified_log.highest_offset_in_remote_storage
            local_only = sum(s.size for s in unified_log.segments if s.base_offset > copied)
            breached = max(0, local_only + remote_bytes - config.retention_bytes)
        cleanup_until = now - config.retention_ms
        time_limited = config.retention_ms > -1 and cleanup_until >= 0
        return RemoteLogRetentionHandler(config.retention_bytes if breached > 0 else -1, breached,
                                         cleanup_until if time_limited else None)

    def _delete(self, to_delete: list[RemoteLogSegmentMetadata], deletable_bytes: int) -> None:
        left = len(to_delete)
        self.rlm.record_delete_lag(self.topic_id_partition, deletable_bytes, left)
        for metadata in to_delete:
            if self.rlm.delete_remote_log_segment(metadata, lambda _: not self.is_cancelled):
                left -= 1
                deletable_bytes -= metadata.segment_size_in_bytes
                self.rlm.record_delete_lag(self.topic_id_partition, deletable_bytes, left)

    def _delete_segments_of_truncated_epochs(self, unified_log: UnifiedLog,
                                             segments: list[RemoteLogSegmentMetadata]) -> None:
        """Remote segments written in epochs older than the oldest this log still has (Kafka's
        deleteLogSegmentsDueToLeaderEpochCacheTruncation): nothing will ever read them."""
        entries = unified_log.leader_epoch_cache.entries()
        if not entries:
            return
        earliest = entries[0].epoch
        for metadata in segments:
            if self.is_cancelled:
                return
            if metadata.state is not S.DELETE_SEGMENT_FINISHED and all(
                    e < earliest for e in metadata.segment_leader_epochs):
                self.rlm.delete_remote_log_segment(metadata, lambda _: not self.is_cancelled)

    def _maybe_seed_highest_offset_in_remote_storage(self, unified_log: UnifiedLog) -> None:
        """A leader whose copying is disabled still learns what is remote, for local retention's sake."""
        if unified_log.highest_offset_in_remote_storage == -1:
            highest = self.rlm.find_highest_remote_offset(self.topic_id_partition, unified_log)
            if highest.offset >= 0:
                unified_log.update_highest_offset_in_remote_storage(highest.offset)

    def cancel(self) -> None:
        super().cancel()
        tip = self.topic_id_partition
        self.rlm.stats.remove_partition(tip.topic or "", tip.partition)


def build_filtered_leader_epoch_map(entries) -> dict[int, int]:
    """Kafka's buildFilteredLeaderEpochMap: epoch -> start offset, without epochs that hold no records (an
    epoch starting where the next one starts: a leader elected that appended nothing)."""
    result: dict[int, int] = {}
    previous = None
    for entry in entries:
        if previous is not None and previous.start_offset != entry.start_offset:
            result[previous.epoch] = previous.start_offset
        previous = entry
    if previous is not None:
        result[previous.epoch] = previous.start_offset
    return result


def is_remote_segment_within_leader_epochs(metadata: RemoteLogSegmentMetadata, log_end_offset: int,
                                           leader_epochs: dict[int, int]) -> bool:
    """Kafka's isRemoteSegmentWithinLeaderEpochs: whether every epoch of the remote segment is one of this
    log's, starting and ending where this log says (a segment of a deposed leader's truncated records is
    not), and the segment ends below the log end offset."""
    if not leader_epochs:
        return False
    segment_epochs = build_filtered_leader_epoch_map(
        _entries(sorted(metadata.segment_leader_epochs.items())))
    epochs = sorted(leader_epochs)
    segment_last = max(segment_epochs)
    if not epochs[0] <= segment_last <= epochs[-1]:
        return False
    later = [e for e in sorted(segment_epochs) if e >= epochs[0]]
    if not later:
        return False
    segment_first = later[0]
    for epoch, offset in sorted(segment_epochs.items()):
        if epoch < segment_first:
            continue
        if epoch not in leader_epochs:
            return False
        if epoch == segment_first and epoch > epochs[0] and offset < leader_epochs[epoch]:
            return False
        next_epochs = [e for e in epochs if e > epoch]
        if epoch == segment_last:
            if next_epochs and metadata.end_offset > leader_epochs[next_epochs[0]] - 1:
                return False
        else:
            segment_next = min(e for e in segment_epochs if e > epoch)
            if not next_epochs or (next_epochs[0], leader_epochs[next_epochs[0]]) != (
                    segment_next, segment_epochs[segment_next]):
                return False
    return metadata.end_offset < log_end_offset


def _entries(pairs) -> list[EpochEntry]:
    return [EpochEntry(epoch, offset) for epoch, offset in pairs]
