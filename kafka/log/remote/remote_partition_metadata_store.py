"""RemotePartitionMetadataStore: the remote log metadata of the partitions this broker follows, one
RemoteLogMetadataCache each (Kafka's org.apache.kafka.server.log.remote.metadata.storage.
RemotePartitionMetadataStore and its RemotePartitionMetadataEventHandler).

The TopicBasedRemoteLogMetadataManager's consumer thread hands every event it reads from
`__remote_log_metadata` to `handle_remote_log_metadata`; readers ask by partition. A partition's cache exists
from the moment this broker starts following it (`maybe_load_partition`) and is ready for readers once the
consumer has read its metadata partition up to the end (`mark_initialized`): until then a lookup waits a
little, then fails with ReplicaNotAvailableError, which callers retry.
"""

from __future__ import annotations

import threading

import structlog

from kafka.log.remote.remote_log_metadata_cache import RemoteLogMetadataCache
from kafka.log.remote.remote_log_segment_metadata import (
    RemoteLogSegmentMetadata,
    RemoteLogSegmentMetadataUpdate,
    RemotePartitionDeleteMetadata,
    RemotePartitionDeleteState,
)
from kafka.log.remote.remote_storage_manager import RemoteResourceNotFoundException, RemoteStorageException
from kafka.utils.topic_id_partition import TopicIdPartition

log = structlog.get_logger(__name__)

RemoteLogMetadata = RemoteLogSegmentMetadata | RemoteLogSegmentMetadataUpdate | RemotePartitionDeleteMetadata
AWAIT_INITIALIZED_S = 0.1  # Kafka waits 100 ms for a cache being loaded before answering "not yet"


class ReplicaNotAvailableError(RemoteStorageException):
    """The partition's remote log metadata is still being read (Kafka's ReplicaNotAvailableException, a
    retriable error): the copier skips this run, a reader answers the fetch with an error to retry."""


class RemotePartitionMetadataStore:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._caches: dict[TopicIdPartition, RemoteLogMetadataCache] = {}
        self._partition_deletes: dict[TopicIdPartition, RemotePartitionDeleteMetadata] = {}

    # --- events (Kafka's RemotePartitionMetadataEventHandler)

    def handle_remote_log_metadata(self, metadata: RemoteLogMetadata) -> None:
        if isinstance(metadata, RemoteLogSegmentMetadata):
            self.handle_remote_log_segment_metadata(metadata)
        elif isinstance(metadata, RemoteLogSegmentMetadataUpdate):
            self.handle_remote_log_segment_metadata_update(metadata)
        else:
            self.handle_remote_partition_delete_metadata(metadata)

    def handle_remote_log_segment_metadata(self, metadata: RemoteLogSegmentMetadata) -> None:
        self._loaded(metadata.topic_id_partition).add_copy_in_progress_segment(metadata)

    def handle_remote_log_segment_metadata_update(self, update: RemoteLogSegmentMetadataUpdate) -> None:
        try:
            self._loaded(update.remote_log_segment_id.topic_id_partition).update_remote_log_segment_metadata(update)
        except RemoteResourceNotFoundException as e:
            log.warning("cannot update a remote segment", update=str(update), error=str(e))

    def handle_remote_partition_delete_metadata(self, metadata: RemotePartitionDeleteMetadata) -> None:
        with self._lock:
            self._partition_deletes[metadata.topic_id_partition] = metadata
            if metadata.state is RemotePartitionDeleteState.DELETE_PARTITION_FINISHED:
                self._caches.pop(metadata.topic_id_partition, None)
                self._partition_deletes.pop(metadata.topic_id_partition, None)

    def clear_topic_partition(self, topic_id_partition: TopicIdPartition) -> None:
        with self._lock:
            self._caches.pop(topic_id_partition, None)

    def maybe_load_partition(self, topic_id_partition: TopicIdPartition) -> None:
        with self._lock:
            self._caches.setdefault(topic_id_partition, RemoteLogMetadataCache())

    def mark_initialized(self, topic_id_partition: TopicIdPartition) -> None:
        cache = self._caches.get(topic_id_partition)
        if cache is not None:
            cache.mark_initialized()

    def is_initialized(self, topic_id_partition: TopicIdPartition) -> bool:
        cache = self._caches.get(topic_id_partition)
        return cache is not None and cache.is_initialized()

    # --- reads

    def list_remote_log_segments(self, topic_id_partition: TopicIdPartition,
                                 leader_epoch: int | None = None) -> list[RemoteLogSegmentMetadata]:
        cache = self.remote_log_metadata_cache(topic_id_partition)
        if leader_epoch is None:
            return cache.list_all_remote_log_segments()
        return cache.list_remote_log_segments(leader_epoch)

    def remote_log_segment_metadata(self, topic_id_partition: TopicIdPartition, offset: int,
                                    epoch_for_offset: int) -> RemoteLogSegmentMetadata | None:
        cache = self.remote_log_metadata_cache(topic_id_partition)
        return cache.remote_log_segment_metadata(epoch_for_offset, offset)

    def next_segment_with_txn_index(self, topic_id_partition: TopicIdPartition, epoch: int,
                                    offset: int) -> RemoteLogSegmentMetadata | None:
        return self.remote_log_metadata_cache(topic_id_partition).next_segment_with_txn_index(epoch, offset)

    def highest_log_offset(self, topic_id_partition: TopicIdPartition, leader_epoch: int) -> int | None:
        return self.remote_log_metadata_cache(topic_id_partition).highest_offset_for_epoch(leader_epoch)

    def remote_log_metadata_cache(self, topic_id_partition: TopicIdPartition) -> RemoteLogMetadataCache:
        """Kafka's getRemoteLogMetadataCache: the partition's cache once it is read up to date."""
        cache = self._caches.get(topic_id_partition)
        if cache is None:
            raise RemoteResourceNotFoundException(f"No resource found for partition: {topic_id_partition}")
        if not cache.is_initialized() and not cache.await_initialized(AWAIT_INITIALIZED_S):
            raise ReplicaNotAvailableError(
                f"Remote log metadata cache is not initialized for partition: {topic_id_partition}")
        return cache

    def _loaded(self, topic_id_partition: TopicIdPartition) -> RemoteLogMetadataCache:
        cache = self._caches.get(topic_id_partition)
        if cache is None:
            raise RemoteStorageException(f"No partition metadata found for : {topic_id_partition}")
        return cache

    def close(self) -> None:
        with self._lock:
            self._caches = {}
            self._partition_deletes = {}
