"""What the read side's tests build on: a RemoteLogMetadataManager over the real RemoteLogMetadataCache
(Kafka's test InmemoryRemoteLogMetadataManager), and a rolled segment of a real UnifiedLog copied to a real
RemoteStorageManager as the copier copies it: its metadata added, its files and indexes stored (with the
leader-epoch checkpoint up to its end and the producer snapshot at its end), its copy marked finished."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from concurrent.futures import Future

from kafka.log.producer_state_manager import producer_snapshot_file
from kafka.log.remote.remote_log_metadata_cache import RemoteLogMetadataCache
from kafka.log.remote.remote_log_metadata_manager import RemoteLogMetadataManager
from kafka.log.remote.remote_log_segment_metadata import (
    RemoteLogSegmentId,
    RemoteLogSegmentMetadata,
    RemoteLogSegmentMetadataUpdate,
    RemoteLogSegmentState,
    RemotePartitionDeleteMetadata,
)
from kafka.log.remote.remote_storage_manager import LogSegmentData, RemoteStorageManager
from kafka.utils.topic_id_partition import TopicIdPartition

TOPIC_ID = uuid.UUID("3f1c2b9a-7d6e-4a5b-8c9d-0e1f2a3b4c5d")


def done() -> Future:
    future: Future = Future()
    future.set_result(None)
    return future


class InmemoryRemoteLogMetadataManager(RemoteLogMetadataManager):
    """One RemoteLogMetadataCache per partition, events applied at once."""

    def __init__(self) -> None:
        self.caches: dict[TopicIdPartition, RemoteLogMetadataCache] = {}

    def _cache(self, tidp: TopicIdPartition) -> RemoteLogMetadataCache:
        return self.caches.setdefault(tidp, RemoteLogMetadataCache())

    def add_remote_log_segment_metadata(self, metadata: RemoteLogSegmentMetadata) -> Future[None]:
        self._cache(metadata.topic_id_partition).add_copy_in_progress_segment(metadata)
        return done()

    def update_remote_log_segment_metadata(self, update: RemoteLogSegmentMetadataUpdate) -> Future[None]:
        self._cache(update.remote_log_segment_id.topic_id_partition).update_remote_log_segment_metadata(update)
        return done()

    def remote_log_segment_metadata(self, tidp, epoch_for_offset, offset):
        return self._cache(tidp).remote_log_segment_metadata(epoch_for_offset, offset)

    def highest_offset_for_epoch(self, tidp, leader_epoch):
        return self._cache(tidp).highest_offset_for_epoch(leader_epoch)

    def put_remote_partition_delete_metadata(self, metadata: RemotePartitionDeleteMetadata) -> Future[None]:
        return done()

    def list_remote_log_segments(self, tidp, leader_epoch=None) -> Iterator[RemoteLogSegmentMetadata]:
        cache = self._cache(tidp)
        return iter(cache.list_all_remote_log_segments() if leader_epoch is None
                    else cache.list_remote_log_segments(leader_epoch))

    def on_partition_leadership_changes(self, leader_partitions: Iterable[TopicIdPartition],
                                        follower_partitions: Iterable[TopicIdPartition]) -> None:
        for tidp in (*leader_partitions, *follower_partitions):
            self._cache(tidp).mark_initialized()

    def on_stop_partitions(self, partitions: Iterable[TopicIdPartition]) -> None:
        pass

    def remote_log_size(self, tidp, leader_epoch) -> int:
        return sum(m.segment_size_in_bytes for m in self._cache(tidp).list_remote_log_segments(leader_epoch)
                   if m.state is RemoteLogSegmentState.COPY_SEGMENT_FINISHED)

    def is_ready(self, tidp) -> bool:
        return True


def topic_id_partition(log) -> TopicIdPartition:
    return TopicIdPartition(TOPIC_ID, log.topic, log.partition)


def copy_segment(log, index: int, rsm: RemoteStorageManager, rlmm: RemoteLogMetadataManager,
                 broker_id: int = 0) -> RemoteLogSegmentMetadata:
    """Copy the log's rolled segment number `index` as the copier would (Kafka's copyLogSegment)."""
    segments = log.segments
    segment, next_base_offset = segments[index], segments[index + 1].base_offset
    entries = log.leader_epoch_cache.entries()
    epochs = {e.epoch: max(e.start_offset, segment.base_offset) for i, e in enumerate(entries)
              if e.start_offset < next_base_offset
              and (i + 1 == len(entries) or entries[i + 1].start_offset > segment.base_offset)}
    checkpoint = [e for e in entries if e.start_offset < next_base_offset]
    metadata = RemoteLogSegmentMetadata(
        RemoteLogSegmentId.generate_new(topic_id_partition(log)), segment.base_offset, next_base_offset - 1,
        segment.max_timestamp_so_far, broker_id, log.time.milliseconds(), segment.size, epochs,
        txn_index_empty=not segment.txn_index.all_aborted_txns())
    rlmm.add_remote_log_segment_metadata(metadata).result()
    text = "\n".join(["0", str(len(checkpoint)), *(f"{e.epoch} {e.start_offset}" for e in checkpoint)]) + "\n"
    snapshot = producer_snapshot_file(log.dir, next_base_offset)  # taken when the segment rolled
    rsm.copy_log_segment_data(metadata, LogSegmentData(
        segment.log_path, segment.offset_index.path, segment.time_index.path,
        segment.txn_index.path if segment.txn_index.exists else None, snapshot, text.encode()))
    rlmm.update_remote_log_segment_metadata(RemoteLogSegmentMetadataUpdate(
        metadata.remote_log_segment_id, log.time.milliseconds(), None,
        RemoteLogSegmentState.COPY_SEGMENT_FINISHED,
        broker_id)).result()
    return metadata
