"""RemoteLogManager: a broker's door to tiered storage (Kafka's
org.apache.kafka.server.log.remote.storage.RemoteLogManager, KIP-405).

It holds the configured RemoteStorageManager (where segments are) and RemoteLogMetadataManager (what is
where), the topic id of each partition this broker leads or follows, and the read side:

    async_read          a consumer fetch below the local log start offset: a RemoteLogReader task on the
                        reader pool (remote.log.reader.threads), whose callback completes the fetch
                        waiting in the ReplicaManager's remote-fetch purgatory
    async_offset_read   a ListOffsets by timestamp on a tiered topic: a RemoteLogOffsetReader task on the
                        same pool, completing a DelayedRemoteListOffsets
    index_cache         the RemoteIndexCache of remote segments' indexes, under the first log dir

Neither call blocks the request thread that makes it: a full pool refuses the task at once
(RejectedExecutionError) and the caller answers that partition with an error.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import Future

import structlog

from kafka.log.file_records import TimestampAndOffset
from kafka.log.remote.async_offset_read_future_holder import AsyncOffsetReadFutureHolder
from kafka.log.remote.remote_index_cache import RemoteIndexCache
from kafka.log.remote.remote_log_metadata_manager import RemoteLogMetadataManager
from kafka.log.remote.remote_log_offset_reader import RemoteLogOffsetReader
from kafka.log.remote.remote_log_read_result import RemoteLogReadResult
from kafka.log.remote.remote_log_reader import RemoteLogReader
from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentMetadata
from kafka.log.remote.remote_storage_fetch_info import RemoteStorageFetchInfo
from kafka.log.remote.remote_storage_manager import RemoteStorageException, RemoteStorageManager
from kafka.log.remote.remote_storage_thread_pool import RemoteStorageThreadPool
from kafka.metrics.kafka_metrics_group import KafkaMetricsGroup
from kafka.metrics.remote_storage_metrics import REMOTE_LOG_READER_FETCH_RATE_AND_TIME
from kafka.utils.time import Time
from kafka.utils.topic_id_partition import TopicIdPartition
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.log.remote.RemoteLogManager")

REMOTE_LOG_READER_THREAD_NAME_PREFIX = "remote-log-reader-"


class RemoteLogManager:
    def __init__(self, config, broker_id: int, log_dir: str, time: Time, fetch_log: Callable,
                 broker_topic_stats, remote_storage_manager: RemoteStorageManager,
                 remote_log_metadata_manager: RemoteLogMetadataManager,
                 metrics_group: KafkaMetricsGroup | None = None) -> None:
        self.broker_id = broker_id
        self.time = time
        self.fetch_log = fetch_log  # TopicPartition -> its UnifiedLog here, or None
        self.broker_topic_stats = broker_topic_stats
        self.remote_storage_manager = remote_storage_manager
        self.remote_log_metadata_manager = remote_log_metadata_manager
        metrics_group = metrics_group if metrics_group is not None else KafkaMetricsGroup()
        self.index_cache = RemoteIndexCache(config.remote_log_index_file_cache_total_size_bytes,
                                            remote_storage_manager, log_dir)
        self.remote_storage_reader_thread_pool = RemoteStorageThreadPool(
            REMOTE_LOG_READER_THREAD_NAME_PREFIX, config.remote_log_reader_threads,
            config.remote_log_reader_max_pending_tasks, metrics_group)
        self.remote_read_timer = metrics_group.new_histogram(REMOTE_LOG_READER_FETCH_RATE_AND_TIME).labels()
        self._topic_ids: dict[TopicPartition, uuid.UUID] = {}
        # Kafka's setDelayedOperationPurgatory, as a callback up: the ReplicaManager completes the
        # DelayedRemoteListOffsets waiting on a partition whose offset lookup finished.
        self.offset_read_listener: Callable[[TopicPartition], None] | None = None

    # ------------------------------------------------------------------ partitions
    def on_leadership_change(self, partitions: Iterable[TopicIdPartition]) -> None:
        """This broker leads or follows these partitions: remember their topic ids (Kafka's
        cacheTopicPartitionIds), by which remote storage names them."""
        for topic_id_partition in partitions:
            self._topic_ids[topic_id_partition.topic_partition] = topic_id_partition.topic_id

    def topic_id_partition(self, tp: TopicPartition) -> TopicIdPartition:
        topic_id = self._topic_ids.get(tp)
        if topic_id is None:
            raise RemoteStorageException(f"No topic id registered for topic partition: {tp}")
        return TopicIdPartition(topic_id, tp.topic, tp.partition)

    def fetch_remote_log_segment_metadata(self, tp: TopicPartition, epoch_for_offset: int,
                                          offset: int) -> RemoteLogSegmentMetadata | None:
        """The finished remote segment of that epoch holding offset (fetchRemoteLogSegmentMetadata)."""
        return self.remote_log_metadata_manager.remote_log_segment_metadata(self.topic_id_partition(tp),
                                                                            epoch_for_offset, offset)

    # ------------------------------------------------------------------ the read side
    def async_read(self, fetch_info: RemoteStorageFetchInfo,
                   callback: Callable[[RemoteLogReadResult], None]) -> Future:
        """Queue a remote read; RejectedExecutionError if remote.log.reader.max.pending.tasks wait already."""
        reader = RemoteLogReader(fetch_info, self, callback, self.broker_topic_stats, self.remote_read_timer)
        return self.remote_storage_reader_thread_pool.submit(reader)

    def async_offset_read(self, tp: TopicPartition, timestamp: int, starting_offset: int, leader_epoch_cache,
                          search_local_log: Callable[[], TimestampAndOffset | None]
                          ) -> AsyncOffsetReadFutureHolder:
        """Queue a ListOffsets lookup by timestamp; the holder's task_future gets its answer (Kafka's
        asyncOffsetRead), and offset_read_listener hears of it."""
        task_future: Future = Future()

        def done(found: TimestampAndOffset | None, error: BaseException | None) -> None:
            if error is None:
                task_future.set_result(found)
            else:
                task_future.set_exception(error)
            if self.offset_read_listener is not None:
                self.offset_read_listener(tp)

        reader = RemoteLogOffsetReader(self, tp, timestamp, starting_offset, leader_epoch_cache,
                                       search_local_log,
                                       done)
        return AsyncOffsetReadFutureHolder(self.remote_storage_reader_thread_pool.submit(reader), task_future)

    def close(self) -> None:
        self.remote_storage_reader_thread_pool.shutdown()
        self.index_cache.close()
