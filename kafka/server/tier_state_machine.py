"""TierStateMachine: a follower that starts from a leader whose early segments are only in remote storage
(Kafka's kafka.server.TierStateMachine, KIP-405).

A new follower, or one that was away long enough, fetches from an offset the leader no longer has in a
local segment; the leader answers OFFSET_MOVED_TO_TIERED_STORAGE. Copying the remote segments would be
pointless (they are in remote storage already) and a follower needs only what lets it continue the
log from the leader's local log start: the leader-epoch cache and the producer state as of there. Both
are stored beside each remote segment. So, on the fetcher thread:

    1. ListOffsets EARLIEST_LOCAL (-4): the leader's local log start offset L and the epoch E that wrote it
    2. the epoch of offset L - 1: E, or (when E is not 0) the epoch before it, if OffsetForLeaderEpoch
       says that one ends after L - 1
    3. the remote segment holding L - 1 in that epoch (the RemoteLogMetadataManager): its end + 1 is
       where this follower's local log starts (L, or later if that segment reaches past it)
    4. truncate the local log fully and start it there, its log start offset the leader's
    5. the leader-epoch cache from that segment's leader-epoch checkpoint, the producer state from its
       producer snapshot
    6. fetch on from there (its lag: the leader's log end offset minus that)

BuildRemoteLogAuxStateRequestsPerSec counts step 1 on; BuildRemoteLogAuxStateErrorsPerSec the failures of
the remote storage part, after which the fetcher backs off and asks again.
"""

from __future__ import annotations

import os

import structlog

from kafka.log.leader_epoch_file_cache import CURRENT_VERSION, EpochEntry
from kafka.log.log_loader import rebuild_producer_state
from kafka.log.producer_state_manager import producer_snapshot_file
from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentMetadata
from kafka.log.remote.remote_storage_manager import IndexType, RemoteStorageException
from kafka.metrics.remote_storage_metrics import (
    BUILD_REMOTE_LOG_AUX_STATE_ERRORS,
    BUILD_REMOTE_LOG_AUX_STATE_REQUESTS,
)
from kafka.protocol.errors import Errors
from kafka.server.partition_errors import PartitionError
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.server.TierStateMachine")


class TierStateMachine:
    def __init__(self, leader, replica_manager) -> None:
        self.leader = leader  # the fetcher's RemoteLeaderEndPoint
        self.replica_manager = replica_manager

    def start(self, tp: TopicPartition, current_leader_epoch: int,
              leader_log_start_offset: int) -> tuple[int, int]:
        """Build this follower's state from remote storage; (the offset to fetch from, the lag)."""
        leader_local_log_start_offset, epoch = self.leader.fetch_earliest_local_offset(tp,
                                                                                       current_leader_epoch)
        rlm = self.replica_manager.remote_log_manager
        if rlm is None:
            raise RemoteStorageException("RemoteLogManager is not yet instantiated")
        stats = rlm.stats  # the BrokerTopicMetrics of tiered storage
        stats.mark(BUILD_REMOTE_LOG_AUX_STATE_REQUESTS, tp.topic)
        partition = self.replica_manager.get_partition(tp)
        if partition is None:
            raise PartitionError(Errors.NOT_LEADER_OR_FOLLOWER, f"{tp} is no longer hosted here")
        try:
            offset_to_fetch = self.build_remote_log_aux_state(tp, partition, current_leader_epoch,
                                                              leader_local_log_start_offset, epoch,
                                                              leader_log_start_offset)
        except RemoteStorageException:
            stats.mark(BUILD_REMOTE_LOG_AUX_STATE_ERRORS, tp.topic)
            raise
        leader_end_offset = self.leader.fetch_latest_offset(tp, current_leader_epoch)
        return offset_to_fetch, leader_end_offset - offset_to_fetch

    def build_remote_log_aux_state(self, tp: TopicPartition, partition, current_leader_epoch: int,
                                   leader_local_log_start_offset: int,
                                   epoch_for_leader_local_log_start_offset: int,
                                   leader_log_start_offset: int) -> int:
        """Kafka's buildRemoteLogAuxState: the leader-epoch cache and producer state as of the end of the
        remote segment before the leader's local log; returns the offset after that segment."""
        unified_log = partition.log
        if not unified_log.remote_log_enabled:
            # Not a tiered log here (yet: the topic config may not have reached this broker): retry later.
            raise RemoteStorageException(f"Couldn't build the state from remote store for partition {tp}, "
                                         f"as remote log storage is not yet enabled")
        rlm = self.replica_manager.remote_log_manager
        previous_offset = leader_local_log_start_offset - 1
        target_epoch = epoch_for_leader_local_log_start_offset
        if target_epoch != 0:
            # The epoch before the one that wrote L, if it reaches L - 1 (epochs may have gaps: its answer
            # is the latest epoch below it that wrote anything).
            earlier_epoch, earlier_end_offset = self._fetch_earlier_epoch_end_offset(
                tp, target_epoch, current_leader_epoch)
            if earlier_end_offset > previous_offset:
                target_epoch = earlier_epoch
        metadata = rlm.fetch_remote_log_segment_metadata(tp, target_epoch, previous_offset)
        if metadata is None:
            raise RemoteStorageException(
                f"Couldn't build the state from remote store for partition: {tp}, currentLeaderEpoch: "
                f"{current_leader_epoch}, leaderLocalLogStartOffset: {leader_local_log_start_offset}, "
                f"leaderLogStartOffset: {leader_log_start_offset}, epoch: {target_epoch} as the previous "
                f"remote log segment metadata was not found")
        next_offset = metadata.end_offset + 1
        partition.truncate_fully_and_start_at(next_offset, leader_log_start_offset)
        epochs = self._read_leader_epoch_checkpoint(rlm, metadata)
        for entry in epochs:
            unified_log.leader_epoch_cache.assign(entry.epoch, entry.start_offset)
        log.info("updated the epoch cache from the remote tier", partition=str(tp),
                 leader_local_log_start_offset=leader_local_log_start_offset, epochs=len(epochs))
        self._build_producer_snapshot_file(rlm, unified_log, next_offset, metadata)
        log.info("built the leader epoch cache and producer state from the remote tier", partition=str(tp),
                 producers=unified_log.producer_id_count, log_start_offset=leader_log_start_offset,
                 log_end_offset=next_offset)
        return next_offset

    def _fetch_earlier_epoch_end_offset(self, tp: TopicPartition, epoch: int,
                                        current_leader_epoch: int) -> tuple[int, int]:
        answers = self.leader.fetch_epoch_end_offsets({tp: (current_leader_epoch, epoch - 1)})
        error, leader_epoch, end_offset = answers.get(tp, (Errors.UNKNOWN_SERVER_ERROR, -1, -1))
        if error != Errors.NONE:
            raise PartitionError(error, f"OffsetForLeaderEpoch of {tp}, epoch {epoch - 1}: {error.name}")
        return leader_epoch, end_offset

    @staticmethod
    def _read_leader_epoch_checkpoint(rlm, metadata: RemoteLogSegmentMetadata) -> list[EpochEntry]:
        """The leader-epoch checkpoint stored beside the segment (the leader-epoch-checkpoint format)."""
        with rlm.remote_storage_manager.fetch_index(metadata, IndexType.LEADER_EPOCH) as stream:
            lines = stream.read().decode("utf-8").splitlines()
        if not lines or int(lines[0]) != CURRENT_VERSION:
            raise RemoteStorageException(f"the leader-epoch checkpoint of {metadata.remote_log_segment_id} "
                                         f"has no known version")
        return [EpochEntry(*map(int, line.split())) for line in lines[2:2 + int(lines[1])]]

    @staticmethod
    def _build_producer_snapshot_file(rlm, unified_log, next_offset: int,
                                      metadata: RemoteLogSegmentMetadata) -> None:
        """The segment's producer snapshot becomes this log's snapshot at next_offset (written to a
        temporary file, renamed when whole), and the producer state is loaded from it."""
        snapshot = producer_snapshot_file(unified_log.dir, next_offset)
        temporary = snapshot + ".tmp"
        with rlm.remote_storage_manager.fetch_index(metadata, IndexType.PRODUCER_SNAPSHOT) as stream, \
                open(temporary, "wb") as file:
            file.write(stream.read())
        os.replace(temporary, snapshot)
        producer_state_manager = unified_log.producer_state_manager
        producer_state_manager.truncate_fully_and_reload_snapshots()
        rebuild_producer_state(producer_state_manager, unified_log.segments, unified_log.log_start_offset,
                               next_offset, unified_log.time)
