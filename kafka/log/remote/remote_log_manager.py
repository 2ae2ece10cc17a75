"""RemoteLogManager: tiered storage on a broker (Kafka's
org.apache.kafka.server.log.remote.storage.RemoteLogManager, KIP-405).

The ReplicaManager tells it which partitions this broker now leads or follows (`on_leadership_change`).
For each partition of a topic with `remote.storage.enable=true` it keeps tasks on three thread pools:

    leader    RLMCopyTask        copies rolled segments below the last stable offset to remote storage
              RLMExpirationTask  deletes remote segments past retention.ms / retention.bytes and moves the
                                 log start offset
    follower  RLMFollowerTask    tracks how far the leader has copied, for the follower's local retention

What is remote is known only through the RemoteLogMetadataManager: a new leader or a restarted broker reads
it back (`is_ready`) before it copies anything, then resumes from the highest offset copied in its own
leader-epoch lineage (`find_highest_remote_offset`). The segments themselves go through the
RemoteStorageManager. A deleted topic's remote segments are deleted too (`stop_partitions`).

The read side runs on its reader pool (remote.log.reader.threads, queue bounded by
remote.log.reader.max.pending.tasks: a full pool refuses a task at once, RejectedExecutionError):

    async_read          a consumer fetch below the local log start offset: a RemoteLogReader task, whose
                        callback completes the fetch waiting in the ReplicaManager's RemoteFetch purgatory
    async_offset_read   a ListOffsets by timestamp on a tiered log: a RemoteLogOffsetReader task, completing
                        the DelayedRemoteListOffsets (through offset_read_listener)
    index_cache         the RemoteIndexCache of remote segments' indexes, under the log dir

Each asks which remote segment holds an offset (`fetch_remote_log_segment_metadata`) and reads through the
`remote_storage_manager`.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import Future

import structlog

from kafka.log.file_records import TimestampAndOffset
from kafka.log.leader_epoch_file_cache import EpochEntry
from kafka.log.remote.async_offset_read_future_holder import AsyncOffsetReadFutureHolder
from kafka.log.remote.remote_index_cache import RemoteIndexCache
from kafka.log.remote.remote_log_manager_config import RemoteLogManagerConfig
from kafka.log.remote.remote_log_metadata_manager import RemoteLogMetadataManager
from kafka.log.remote.remote_log_offset_reader import RemoteLogOffsetReader
from kafka.log.remote.remote_log_read_result import RemoteLogReadResult
from kafka.log.remote.remote_log_reader import RemoteLogReader
from kafka.log.remote.remote_log_segment_metadata import (
    RemoteLogSegmentMetadata,
    RemoteLogSegmentMetadataUpdate,
    RemoteLogSegmentState,
)
from kafka.log.remote.remote_storage_fetch_info import RemoteStorageFetchInfo
from kafka.log.remote.remote_storage_manager import RemoteStorageException, RemoteStorageManager
from kafka.log.remote.remote_storage_thread_pool import RemoteStorageThreadPool
from kafka.log.remote.rlm_copy_task import RLMCopyTask
from kafka.log.remote.rlm_expiration_task import RLMExpirationTask
from kafka.log.remote.rlm_follower_task import RLMFollowerTask
from kafka.log.remote.rlm_quota_manager import RLMQuotaManager
from kafka.log.remote.rlm_scheduled_thread_pool import RLMScheduledThreadPool
from kafka.log.remote.rlm_task import OffsetAndEpoch, RLMTask, RLMTaskWithFuture
from kafka.log.remote.stop_partition import StopPartition
from kafka.log.remote.topic_partition_log import TopicPartitionLog
from kafka.log.unified_log import UnifiedLog
from kafka.metrics import remote_storage_metrics as r
from kafka.metrics.remote_log_manager_stats import RemoteLogManagerStats
from kafka.utils.time import Time
from kafka.utils.topic_id_partition import TopicIdPartition
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger(__name__)
S = RemoteLogSegmentState
REMOTE_LOG_READER_THREAD_NAME_PREFIX = "remote-log-reader-"
QUOTA_TIMEOUT_S = 1.0  # a throttled copier looks at the quota again this often (Kafka's quotaTimeout)


class RemoteLogManager:
    def __init__(self, config: RemoteLogManagerConfig, broker_id: int, time: Time,
                 fetch_log: Callable[[TopicPartition], UnifiedLog | None],
                 update_remote_log_start_offset: Callable[[TopicPartition, int], None],
                 remote_storage_manager: RemoteStorageManager,
                 remote_log_metadata_manager: RemoteLogMetadataManager,
                 stats: RemoteLogManagerStats | None = None, log_dir: str | None = None) -> None:
        self.config = config
        self.broker_id = broker_id
        self.time = time
        self.fetch_log = fetch_log
        self._update_remote_log_start_offset = update_remote_log_start_offset
        self.remote_storage_manager = remote_storage_manager
        self.remote_log_metadata_manager = remote_log_metadata_manager
        self._stats = stats if stats is not None else RemoteLogManagerStats()
        self.segment_ids_being_copied: set = set()
        self.topic_id_by_partition: dict[TopicPartition, uuid.UUID] = {}
        self._tasks_lock = threading.Lock()
        self.leader_copy_rlm_tasks: dict[TopicIdPartition, RLMTaskWithFuture] = {}
        self.leader_expiration_rlm_tasks: dict[TopicIdPartition, RLMTaskWithFuture] = {}
        self.follower_rlm_tasks: dict[TopicIdPartition, RLMTaskWithFuture] = {}
        self.rlm_copy_quota_manager = RLMQuotaManager(config.copy_max_bytes_per_second,
                                                      config.copy_quota_window_num,
                                                      config.copy_quota_window_size_seconds, time)
        self._copy_quota_condition = threading.Condition()
        self.rlm_copy_thread_pool = RLMScheduledThreadPool(
            config.copier_thread_pool_size, "RLMCopyThreadPool", "kafka-rlm-copy-thread-pool-", time)
        self.rlm_expiration_thread_pool = RLMScheduledThreadPool(
            config.expiration_thread_pool_size, "RLMExpirationThreadPool",
            "kafka-rlm-expiration-thread-pool-", time)
        self.follower_thread_pool = RLMScheduledThreadPool(
            config.follower_thread_pool_size, "RLMFollowerScheduledThreadPool",
            "kafka-rlm-follower-thread-pool-", time)
        self._stats.register_idle_gauge(self.rlm_copy_thread_pool.idle_percent)
        self._closed = False
        # The read side: the reader pool, and the indexes of remote segments cached under the log dir.
        self.index_cache = (RemoteIndexCache(config.index_file_cache_total_size_bytes, remote_storage_manager,
                                             log_dir) if log_dir is not None else None)
        self.remote_storage_reader_thread_pool = RemoteStorageThreadPool(
            REMOTE_LOG_READER_THREAD_NAME_PREFIX, config.reader_threads, config.reader_max_pending_tasks,
            self.stats.group)
        read_timer = self.stats.group.new_histogram(r.REMOTE_LOG_READER_FETCH_RATE_AND_TIME)
        self.remote_read_timer = read_timer.labels()  # RemoteLogReaderFetchRateAndTimeMs
        # Kafka's setDelayedOperationPurgatory, as a callback up: the ReplicaManager completes the
        # DelayedRemoteListOffsets waiting on a partition whose offset lookup finished.
        self.offset_read_listener: Callable[[TopicPartition], None] | None = None

    @property
    def stats(self) -> RemoteLogManagerStats:
        return self._stats

    @stats.setter
    def stats(self, stats: RemoteLogManagerStats) -> None:
        """The broker's exported metrics replace the private ones (as the ReplicaManager's are replaced)."""
        stats.register_idle_gauge(self.rlm_copy_thread_pool.idle_percent)
        self.remote_storage_reader_thread_pool.register_metrics(stats.group)
        self.remote_read_timer = stats.group.new_histogram(r.REMOTE_LOG_READER_FETCH_RATE_AND_TIME).labels()
        self._stats = stats

    # ------------------------------------------------------------------ leadership

    def on_leadership_change(self, partitions_become_leader: Iterable[TopicPartitionLog],
                             partitions_become_follower: Iterable[TopicPartitionLog],
                             topic_ids: dict[str, uuid.UUID]) -> None:
        """Kafka's onLeadershipChange: start (or keep) the tasks of the tiered partitions whose role changed
        here; the metadata manager starts following their metadata."""
        leaders = self._tiered(partitions_become_leader, topic_ids)
        followers = self._tiered(partitions_become_follower, topic_ids)
        if not leaders and not followers:
            return
        for tip in [*leaders, *followers]:
            self._cache_topic_partition_id(tip)
        self.remote_log_metadata_manager.on_partition_leadership_changes(leaders.keys(), followers.keys())
        for tip in followers:
            self.do_handle_follower_partition(tip)
        for tip, copy_disabled in leaders.items():
            self.do_handle_leader_partition(tip, copy_disabled)

    def on_partition_leadership_change(self, partition, topic_id: uuid.UUID, leader: bool) -> None:
        """One partition (anything with a topic_partition and a log, as the ReplicaManager's Partition)."""
        changed = [TopicPartitionLog(partition.topic_partition, partition.log)]
        self.on_leadership_change(changed if leader else [], [] if leader else changed,
                                  {partition.topic_partition.topic: topic_id})

    @staticmethod
    def _tiered(partitions: Iterable[TopicPartitionLog], topic_ids: dict[str, uuid.UUID]
                ) -> dict[TopicIdPartition, bool]:
        """The partitions whose log is tiered, each with its remote.log.copy.disable."""
        return {TopicIdPartition(topic_ids[p.topic_partition.topic], p.topic_partition.topic,
                                 p.topic_partition.partition): p.unified_log.config.remote_log_copy_disable
                for p in partitions if p.unified_log is not None and p.unified_log.remote_log_enabled
                and p.topic_partition.topic in topic_ids}

    def _cache_topic_partition_id(self, tip: TopicIdPartition) -> None:
        previous = self.topic_id_by_partition.get(tip.topic_partition)
        if previous is not None and previous != tip.topic_id:
            log.info("a partition's topic id changed (the topic was recreated)",
                     partition=str(tip.topic_partition))
        self.topic_id_by_partition[tip.topic_partition] = tip.topic_id

    def do_handle_leader_partition(self, tip: TopicIdPartition, remote_log_copy_disable: bool) -> None:
        with self._tasks_lock:
            follower_task = self.follower_rlm_tasks.pop(tip, None)
            if follower_task is not None:
                follower_task.cancel()
            if not remote_log_copy_disable and tip not in self.leader_copy_rlm_tasks:
                task = RLMCopyTask(self, tip, self.config.custom_metadata_max_bytes)
                self.leader_copy_rlm_tasks[tip] = self._schedule(self.rlm_copy_thread_pool, task)
            if tip not in self.leader_expiration_rlm_tasks:
                self.leader_expiration_rlm_tasks[tip] = self._schedule(self.rlm_expiration_thread_pool,
                                                                       RLMExpirationTask(self, tip))

    def do_handle_follower_partition(self, tip: TopicIdPartition) -> None:
        with self._tasks_lock:
            for tasks in (self.leader_copy_rlm_tasks, self.leader_expiration_rlm_tasks):
                task = tasks.pop(tip, None)
                if task is not None:
                    task.cancel()
            if tip not in self.follower_rlm_tasks:
                self.follower_rlm_tasks[tip] = self._schedule(self.follower_thread_pool,
                                                              RLMFollowerTask(self, tip))
        self.stats.remove_partition(tip.topic or "", tip.partition)

    def _schedule(self, pool: RLMScheduledThreadPool, task: RLMTask) -> RLMTaskWithFuture:
        log.info("scheduling a remote log task", task=str(task), interval_ms=self.config.task_interval_ms)
        return RLMTaskWithFuture(task, pool.schedule_with_fixed_delay(str(task), task.run, 0,
                                                                      self.config.task_interval_ms))

    def stop_leader_copy_rlm_tasks(self, partitions: Iterable[TopicPartition]) -> None:
        """remote.log.copy.disable turned on: copying stops, expiration goes on."""
        for tp in partitions:
            tip = self.topic_id_partition(tp)
            with self._tasks_lock:
                task = self.leader_copy_rlm_tasks.pop(tip, None) if tip is not None else None
            if task is not None:
                task.cancel()
                self.record_copy_lag(tip, 0, 0)

    def stop_partitions(self, stop_partitions: Iterable[StopPartition],
                        error_handler: Callable[[TopicPartition, Exception], None] | None = None) -> None:
        """Kafka's stopPartitions: this broker no longer hosts these partitions; their tasks stop, and a
        deleted topic's remote segments are deleted (DELETE_SEGMENT_STARTED, delete,
        DELETE_SEGMENT_FINISHED)."""
        stop_partitions = list(stop_partitions)
        for stop in stop_partitions:
            tip = self.topic_id_partition(stop.topic_partition)
            if tip is None:
                continue
            try:
                with self._tasks_lock:
                    for tasks in (self.leader_copy_rlm_tasks, self.leader_expiration_rlm_tasks,
                                  self.follower_rlm_tasks):
                        task = tasks.pop(tip, None)
                        if task is not None:
                            task.cancel()
                self.stats.remove_partition(tip.topic or "", tip.partition)
                if stop.delete_remote_log:
                    log.info("deleting the remote log segments of a deleted partition", partition=str(tip))
                    self._delete_remote_log_partition(tip)
            except Exception as e:
                if error_handler is not None:
                    error_handler(stop.topic_partition, e)
                log.exception("error stopping a partition", partition=str(stop.topic_partition))
        pending = [self.topic_id_partition(s.topic_partition) for s in stop_partitions
                   if s.stop_remote_log_metadata_manager or s.delete_local_log]
        pending = [tip for tip in pending if tip is not None]
        if pending:
            for tip in pending:
                self.topic_id_by_partition.pop(tip.topic_partition, None)
            self.remote_log_metadata_manager.on_stop_partitions(pending)

    def _delete_remote_log_partition(self, tip: TopicIdPartition) -> None:
        segments = list(self.remote_log_metadata_manager.list_remote_log_segments(tip))
        self._publish(segments, S.DELETE_SEGMENT_STARTED)
        for metadata in segments:
            self.remote_storage_manager.delete_log_segment_data(metadata)
        self._publish(segments, S.DELETE_SEGMENT_FINISHED)

    def _publish(self, segments: list[RemoteLogSegmentMetadata], state: RemoteLogSegmentState) -> None:
        rlmm, now = self.remote_log_metadata_manager, self.time.milliseconds()
        futures = [rlmm.update_remote_log_segment_metadata(RemoteLogSegmentMetadataUpdate(
            m.remote_log_segment_id, now, m.custom_metadata, state, self.broker_id))
            for m in segments if m.state is not state]
        for future in futures:
            future.result()

    def topic_id_partition(self, tp: TopicPartition) -> TopicIdPartition | None:
        topic_id = self.topic_id_by_partition.get(tp)
        return TopicIdPartition(topic_id, tp.topic, tp.partition) if topic_id is not None else None

    # ------------------------------------------------------------------ what is remote

    def fetch_remote_log_segment_metadata(self, tp: TopicPartition, epoch_for_offset: int,
                                          offset: int) -> RemoteLogSegmentMetadata | None:
        """The remote segment holding offset, written in that leader epoch (the read path's first step)."""
        tip = self.topic_id_partition(tp)
        if tip is None:
            raise RemoteStorageException(f"No topic id registered for topic partition: {tp}")
        return self.remote_log_metadata_manager.remote_log_segment_metadata(tip, epoch_for_offset, offset)

    def is_partition_ready(self, tp: TopicPartition) -> bool:
        tip = self.topic_id_partition(tp)
        return tip is not None and self.remote_log_metadata_manager.is_ready(tip)

    def find_highest_remote_offset(self, tip: TopicIdPartition, unified_log: UnifiedLog) -> OffsetAndEpoch:
        """Kafka's findHighestRemoteOffset: from this log's latest leader epoch back, the first epoch with
        copied segments gives the highest offset copied, capped at where this log says the epoch ends (a
        deposed leader may have copied records of that epoch this log never had)."""
        entries = unified_log.leader_epoch_cache.entries()
        for entry in reversed(entries):
            highest = self.remote_log_metadata_manager.highest_offset_for_epoch(tip, entry.epoch)
            if highest is not None:
                end = unified_log.leader_epoch_cache.end_offset_for(entry.epoch, unified_log.log_end_offset)
                if end.start_offset <= highest:
                    return OffsetAndEpoch(end.start_offset - 1, end.epoch)
                return OffsetAndEpoch(highest, entry.epoch)
        return OffsetAndEpoch(-1, -1)

    def find_log_start_offset(self, tip: TopicIdPartition, unified_log: UnifiedLog) -> int:
        """Kafka's findLogStartOffset: the first remote segment of the oldest epoch that has one, else the
        local log start offset."""
        for entry in unified_log.leader_epoch_cache.entries():
            for metadata in self.remote_log_metadata_manager.list_remote_log_segments(tip, entry.epoch):
                return metadata.start_offset
        return unified_log.local_log_start_offset

    def update_remote_log_start_offset(self, tp: TopicPartition, offset: int) -> None:
        self._update_remote_log_start_offset(tp, offset)

    @staticmethod
    def leader_epoch_entries(unified_log: UnifiedLog, start_offset: int, end_offset: int) -> list[EpochEntry]:
        """Kafka's epochEntriesInRange: the epochs of [start_offset, end_offset), the first starting at
        start_offset (all of them up to end_offset when start_offset is -1)."""
        entries = unified_log.leader_epoch_cache.entries()
        if start_offset >= 0:
            below = [e for e in entries if e.start_offset <= start_offset]
            entries = ([EpochEntry(below[-1].epoch, start_offset)] if below else []) + \
                [e for e in entries if e.start_offset > start_offset]
        return [e for e in entries if e.start_offset < end_offset]

    def delete_remote_log_segment(self, metadata: RemoteLogSegmentMetadata,
                                  predicate: Callable[[RemoteLogSegmentMetadata], bool]) -> bool:
        """Kafka's deleteRemoteLogSegment: DELETE_SEGMENT_STARTED, delete the data, DELETE_SEGMENT_FINISHED
        (a deletion interrupted after its first step picks up at the second)."""
        if not predicate(metadata):
            return False
        rlmm, topic = self.remote_log_metadata_manager, metadata.topic_id_partition.topic or ""
        if metadata.state is not S.DELETE_SEGMENT_STARTED:
            rlmm.update_remote_log_segment_metadata(RemoteLogSegmentMetadataUpdate(
                metadata.remote_log_segment_id, self.time.milliseconds(), metadata.custom_metadata,
                S.DELETE_SEGMENT_STARTED, self.broker_id)).result()
        self.stats.mark(r.REMOTE_DELETE_REQUESTS, topic)
        try:
            self.remote_storage_manager.delete_log_segment_data(metadata)
        except RemoteStorageException:
            self.stats.mark(r.REMOTE_DELETE_ERRORS, topic)
            raise
        rlmm.update_remote_log_segment_metadata(RemoteLogSegmentMetadataUpdate(
            metadata.remote_log_segment_id, self.time.milliseconds(), metadata.custom_metadata,
            S.DELETE_SEGMENT_FINISHED, self.broker_id)).result()
        log.debug("deleted a remote segment", segment_id=str(metadata.remote_log_segment_id))
        return True

    # ------------------------------------------------------------------ the read side

    def async_read(self, fetch_info: RemoteStorageFetchInfo,
                   callback: Callable[[RemoteLogReadResult], None]) -> Future:
        """Queue a remote read (Kafka's asyncRead); RejectedExecutionError when the queue is full."""
        reader = RemoteLogReader(fetch_info, self, callback, self.stats, self.remote_read_timer)
        return self.remote_storage_reader_thread_pool.submit(reader)

    def async_offset_read(self, tp: TopicPartition, timestamp: int, starting_offset: int, leader_epoch_cache,
                          search_local_log: Callable[[], TimestampAndOffset | None]
                          ) -> AsyncOffsetReadFutureHolder:
        """Queue a ListOffsets lookup by timestamp (Kafka's asyncOffsetRead): its task_future gets the answer,
        and offset_read_listener hears of it."""
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

    # ------------------------------------------------------------------ copy quota and metrics

    def await_copy_quota(self, size: int) -> None:
        """Wait while copying is over remote.log.manager.copy.max.bytes.per.second, then count `size`."""
        with self._copy_quota_condition:
            quota = self.rlm_copy_quota_manager
            while (throttle_ms := quota.get_throttle_time_ms()) > 0 and not self._closed:
                log.debug("copy quota exceeded: waiting", throttle_ms=throttle_ms)
                self._copy_quota_condition.wait(min(QUOTA_TIMEOUT_S, throttle_ms / 1000))
            quota.record(size)
            self._copy_quota_condition.notify_all()

    def record_copy_lag(self, tip: TopicIdPartition, lag_bytes: int, lag_segments: int) -> None:
        self.stats.record(r.REMOTE_COPY_LAG_BYTES, tip.topic or "", tip.partition, lag_bytes)
        self.stats.record(r.REMOTE_COPY_LAG_SEGMENTS, tip.topic or "", tip.partition, lag_segments)

    def record_delete_lag(self, tip: TopicIdPartition, lag_bytes: int, lag_segments: int) -> None:
        self.stats.record(r.REMOTE_DELETE_LAG_BYTES, tip.topic or "", tip.partition, lag_bytes)
        self.stats.record(r.REMOTE_DELETE_LAG_SEGMENTS, tip.topic or "", tip.partition, lag_segments)

    def record_metadata_count_and_size(self, tip: TopicIdPartition, count: int, size: int) -> None:
        self.stats.record(r.REMOTE_LOG_METADATA_COUNT, tip.topic or "", tip.partition, count)
        self.stats.record(r.REMOTE_LOG_SIZE_BYTES, tip.topic or "", tip.partition, size)

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        with self._tasks_lock:
            if self._closed:
                return
            self._closed = True
            tasks = [*self.leader_copy_rlm_tasks.values(), *self.leader_expiration_rlm_tasks.values(),
                     *self.follower_rlm_tasks.values()]
            self.leader_copy_rlm_tasks, self.leader_expiration_rlm_tasks, self.follower_rlm_tasks = {}, {}, {}
        for task in tasks:
            task.cancel()
        with self._copy_quota_condition:
            self._copy_quota_condition.notify_all()
        # The metadata manager first: a task waiting for a metadata write fails at once, its thread is free.
        self.remote_log_metadata_manager.close()
        for pool in (self.rlm_copy_thread_pool, self.rlm_expiration_thread_pool, self.follower_thread_pool):
            pool.close()
        self.remote_storage_reader_thread_pool.shutdown()
        if self.index_cache is not None:
            self.index_cache.close()
        self.remote_storage_manager.close()
