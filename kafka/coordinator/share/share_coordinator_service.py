"""ShareCoordinatorService: the share coordinator's front, over the coordinator runtime (Kafka's
org.apache.kafka.coordinator.share.ShareCoordinatorService).

KIP-932: a share partition's leader keeps its in-flight records in memory (SharePartition) and
persists them here, so that a new leader resumes exactly. The state of (group, topic, partition)
lives in one partition of ``__share_group_state``, the one its key ``group:topicId:partition`` hashes
to; the broker leading that partition runs its ShareCoordinatorShard on the runtime. This service
holds no state itself: it splits a request into its partitions, hands each to its shard as an event,
and puts the answers back together::

    ShareCoordinatorApis -> service.write_state(request)
        -> per partition: runtime.schedule_write_operation(tp, shard.write_state)
        -> (an event thread) validate, merge, ShareUpdate or ShareSnapshot record -> append -> wait for the HW
        -> every partition's future done -> one response -> the handler sends it

Every operation runs as a write (even the reads: a read records the reader's leader epoch), and each
future holds the answer with errors already mapped (CoordinatorOperationExceptionHelper), so a handler
only adds a callback. Two timer jobs run while share groups are enabled (the share.version feature):
snapshotting share partitions nobody writes, and deleting the records before every partition's
latest snapshot (__share_group_state is not compacted).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future

import structlog

from kafka.coordinator.common.runtime.coordinator_error import CoordinatorError
from kafka.coordinator.common.runtime.coordinator_loader_impl import CoordinatorLoaderImpl
from kafka.coordinator.common.runtime.coordinator_operation_exception_helper import handle_operation_exception
from kafka.coordinator.common.runtime.coordinator_partition_writer import CoordinatorPartitionWriter
from kafka.coordinator.common.runtime.coordinator_runtime import CoordinatorRuntime
from kafka.coordinator.common.runtime.coordinator_runtime_metrics import CoordinatorRuntimeMetrics
from kafka.coordinator.common.runtime.multi_threaded_event_processor import MultiThreadedEventProcessor
from kafka.coordinator.share import share_group_state_responses as responses
from kafka.coordinator.share.share_coordinator_config import ShareCoordinatorConfig
from kafka.coordinator.share.share_coordinator_record_serde import ShareCoordinatorRecordSerde
from kafka.coordinator.share.share_coordinator_shard import ShareCoordinatorShard
from kafka.coordinator.share.share_partition_key import SHARE_GROUP_STATE_TOPIC_NAME, SharePartitionKey
from kafka.protocol.errors import Errors
from kafka.utils.future_utils import all_of, completed, handle
from kafka.utils.time import Time
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.timer.system_timer_reaper import SystemTimerReaper
from kafka.utils.timer.timer_task import TimerTask
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.coordinator.share.ShareCoordinatorService")

NOT_AVAILABLE_MESSAGE = "Share coordinator is not available."
SHARE_VERSION = "share.version"  # the feature that enables share groups (level 1, Kafka 4.1+)


class PeriodicJob(TimerTask):
    """A timer task that runs `job` once, unless the periodic jobs were switched off (or on again,
    which starts a new generation) since it was scheduled."""

    def __init__(self, delay_ms: int, service: ShareCoordinatorService, generation: int,
                 job: Callable[[], None]):
        super().__init__(delay_ms)
        self.service = service
        self.generation = generation
        self.job = job

    def run(self) -> None:
        if self.service.should_run_periodic_job_for_generation(self.generation):
            self.job()


class ShareCoordinatorService:
    def __init__(self, config: ShareCoordinatorConfig, runtime, time: Time,
                 delete_records: Callable[[TopicPartition, int], tuple[Errors, int]] | None = None) -> None:
        """`delete_records(tp, offset)` moves a partition's log start offset (ReplicaManager.delete_records):
        how the prune job drops redundant records; None prunes nothing."""
        self.config = config
        self.runtime = runtime  # CoordinatorRuntime[ShareCoordinatorShard]
        self.time = time
        self.delete_records = delete_records
        self.is_active = threading.Event()
        self.num_partitions = config.state_topic_num_partitions
        self.last_pruned_offsets: dict[TopicPartition, int] = {}
        self.periodic_jobs_enabled = False
        self.periodic_job_generation = 0
        self._lock = threading.Lock()

    @classmethod
    def build(cls, node_id: int, config: ShareCoordinatorConfig, replica_manager, time: Time,
              metrics_group=None) -> ShareCoordinatorService:
        """Kafka's ShareCoordinatorService.Builder, as the BrokerServer wires it: a runtime whose shards
        append through the ReplicaManager and load from it, share.coordinator.threads event threads and
        a timer of its own."""
        metrics = CoordinatorRuntimeMetrics(time, metrics_group)
        serde = ShareCoordinatorRecordSerde()
        runtime = CoordinatorRuntime(
            log_prefix=f"ShareCoordinator id={node_id}", time=time,
            timer=SystemTimerReaper(f"share-coordinator-reaper-{node_id}",
                                    SystemTimer("share-coordinator", time=time)),
            processor=MultiThreadedEventProcessor(f"share-coordinator-event-processor-{node_id}-",
                                                  config.num_threads, time, metrics),
            partition_writer=CoordinatorPartitionWriter(replica_manager),
            loader=CoordinatorLoaderImpl(replica_manager.read_partition_log, serde, time,
                                         load_buffer_size=config.load_buffer_size),
            coordinator_shard_builder=ShareCoordinatorShard.builder(config), serde=serde, metrics=metrics,
            default_write_timeout_ms=config.write_timeout_ms)
        return cls(config, runtime, time, replica_manager.delete_records)

    # ------------------------------------------------------------------ lifecycle and routing
    def startup(self, share_group_topic_partition_count: Callable[[], int] | None = None) -> None:
        """`share_group_topic_partition_count`: how many partitions __share_group_state has (the metadata
        cache's count if it exists, else the config's), read once, as Kafka's startup(IntSupplier)."""
        if self.is_active.is_set():
            log.warning("share coordinator is already running")
            return
        if share_group_topic_partition_count is not None:
            self.num_partitions = share_group_topic_partition_count()
        self.is_active.set()
        log.info("started up", partitions=self.num_partitions)

    def shutdown(self) -> None:
        if not self.is_active.is_set():
            log.warning("share coordinator is already shutting down")
            return
        self.is_active.clear()
        self.periodic_jobs_enabled = False
        self.runtime.close()
        self.runtime.timer.shutdown()
        log.info("shut down")

    def partition_for(self, key: SharePartitionKey) -> int:
        if not self.is_active.is_set():
            raise CoordinatorError(Errors.COORDINATOR_NOT_AVAILABLE, NOT_AVAILABLE_MESSAGE)
        return key.partition_for(self.num_partitions)

    def topic_partition_for(self, key: SharePartitionKey) -> TopicPartition:
        return TopicPartition(SHARE_GROUP_STATE_TOPIC_NAME, self.partition_for(key))

    def share_group_state_topic_configs(self) -> dict[str, str]:
        """How __share_group_state is created: not compacted, kept for ever, pruned by this service."""
        return {"cleanup.policy": "delete", "compression.type": "producer",
                "segment.bytes": str(self.config.state_topic_segment_bytes),
                "min.insync.replicas": str(self.config.state_topic_min_isr), "retention.ms": "-1"}

    def on_election(self, partition: int, partition_epoch: int) -> None:
        """This broker leads the partition now: its shard loads it (COORDINATOR_LOAD_IN_PROGRESS
        meanwhile)."""
        self.runtime.schedule_load_operation(TopicPartition(SHARE_GROUP_STATE_TOPIC_NAME, partition),
                                             partition_epoch)

    def on_resignation(self, partition: int, partition_epoch: int | None) -> None:
        tp = TopicPartition(SHARE_GROUP_STATE_TOPIC_NAME, partition)
        self.last_pruned_offsets.pop(tp, None)
        self.runtime.schedule_unload_operation(tp, partition_epoch)

    def on_metadata_update(self, delta, image) -> None:
        """A new metadata image: to every shard (which topics exist); the share partitions of deleted
        topics are tombstoned; the periodic jobs follow the share.version feature."""
        self.runtime.on_new_metadata_image(image, delta)
        topics_delta = getattr(delta, "topics_delta", None) if delta is not None else None
        if topics_delta is not None and topics_delta.deleted_topic_ids:
            self.handle_topics_deletion(set(topics_delta.deleted_topic_ids))
        enabled = image.features.finalized_versions.get(SHARE_VERSION, 0) >= 1
        with self._lock:
            if enabled == self.periodic_jobs_enabled:
                return
            self.periodic_jobs_enabled = enabled
            self.periodic_job_generation += 1
            generation = self.periodic_job_generation
        if enabled:
            self.setup_periodic_jobs(generation)

    def handle_topics_deletion(self, deleted_topic_ids: set) -> None:
        for future in self.runtime.schedule_write_all_operation(
                "on-topics-deleted", self.config.write_timeout_ms,
                lambda shard: shard.maybe_cleanup_share_state(deleted_topic_ids)):
            future.add_done_callback(lambda f: f.exception() is not None and log.error(
                "received error while trying to clean up deleted topics", error=repr(f.exception())))

    # ------------------------------------------------------------------ the five operations
    def write_state(self, request) -> Future:
        return self._per_partition("write-share-group-state", "write share group state", request,
                                   ShareCoordinatorShard.write_state, check_active_first=False)

    def read_state(self, request) -> Future:
        return self._per_partition("read-update-leader-epoch-state", "read share group state", request,
                                   ShareCoordinatorShard.read_state_and_maybe_update_leader_epoch,
                                   check_active_first=False)

    def read_state_summary(self, request) -> Future:
        return self._per_partition("read-share-group-state-summary", "read share group state summary",
                                   request,
                                   ShareCoordinatorShard.read_state_summary)

    def delete_state(self, request) -> Future:
        return self._per_partition("delete-share-group-state", "delete share group state", request,
                                   ShareCoordinatorShard.delete_state)

    def initialize_state(self, request) -> Future:
        return self._per_partition("initialize-share-group-state", "initialize share group state", request,
                                   ShareCoordinatorShard.initialize_state)

    def _per_partition(self, name: str, doing: str, request, operation: Callable[..., object],
                       check_active_first: bool = True) -> Future:
        """Kafka's shape of all five: a malformed request gets an empty answer; a coordinator not started
        gets COORDINATOR_NOT_AVAILABLE for every partition; else one write event per partition, running
        `operation(shard, group id, topic id, partition data)` on the shard of the partition's key, and
        the answers combined once all are in. (Write and read check the request before the coordinator,
        the other three after, as Kafka's do.)"""
        if check_active_first and not self.is_active.is_set():
            return completed(responses.global_error_response(request, Errors.COORDINATOR_NOT_AVAILABLE,
                                                             NOT_AVAILABLE_MESSAGE))
        if not request.group_id or not request.topics or any(not topic.partitions
                                                             for topic in request.topics):
            log.error("group id, topics and partitions must be given", operation=name,
                      group_id=request.group_id)
            return completed(dict(results=[]))
        if not self.is_active.is_set():
            return completed(responses.global_error_response(request, Errors.COORDINATOR_NOT_AVAILABLE,
                                                             NOT_AVAILABLE_MESSAGE))
        futures = []
        for topic in request.topics:
            for partition in topic.partitions:
                key = SharePartitionKey(request.group_id, topic.topic_id, partition.partition)
                written = self.runtime.schedule_write_operation(
                    name, self.topic_partition_for(key), self.config.write_timeout_ms,
                    lambda shard, t=topic.topic_id, p=partition: operation(shard, request.group_id, t, p))
                futures.append(handle(written, lambda f, t=topic.topic_id, p=partition.partition, k=key:
                                      self._answer_or_error(f, name, doing, k, t, p)))
        return handle(all_of(futures), lambda f: responses.combine(f.result()))

    @staticmethod
    def _answer_or_error(finished: Future, name: str, doing: str, key: SharePartitionKey, topic_id,
                         partition: int):
        exception = finished.exception()
        if exception is None:
            return finished.result()
        error, _ = handle_operation_exception(name, key, exception)
        return responses.error_response(topic_id, partition, error, f"Unable to {doing}: {exception}")

    # ------------------------------------------------------------------ periodic jobs
    def should_run_periodic_job_for_generation(self, generation: int) -> bool:
        return self.periodic_jobs_enabled and generation == self.periodic_job_generation

    def setup_periodic_jobs(self, generation: int) -> None:
        self.setup_record_pruning(generation)
        self.setup_snapshot_cold_partitions(generation)

    def setup_record_pruning(self, generation: int) -> None:
        def prune() -> None:
            futures = [self.perform_record_pruning(tp) for tp in self.runtime.partitions()]

            def again(done: Future) -> None:
                if done.exception() is not None:
                    log.error("received error in share-group state topic prune", error=repr(done.exception()))
                if self.should_run_periodic_job_for_generation(generation):
                    self.setup_record_pruning(generation)
            all_of(futures).add_done_callback(again)
        self.runtime.timer.add(PeriodicJob(self.config.state_topic_prune_interval_ms, self, generation,
                                           prune))

    def perform_record_pruning(self, tp: TopicPartition) -> Future:
        """Delete the records of `tp` before its last redundant offset (once per offset)."""
        looked_up = self.runtime.schedule_write_operation("write-state-record-prune", tp,
                                                          self.config.write_timeout_ms,
                                                          lambda shard: shard.last_redundant_offset())

        def prune(done: Future) -> None:
            error = done.exception()
            if error is not None:
                if getattr(error, "error", None) in (Errors.COORDINATOR_LOAD_IN_PROGRESS,
                                                     Errors.NOT_COORDINATOR):
                    return  # moving or loading: the next round will do
                raise error
            offset = done.result()
            if offset is None or self.last_pruned_offsets.get(tp) == offset or self.delete_records is None:
                return
            log.debug("pruning records", topic_partition=str(tp), before=offset)
            deleted, _ = self.delete_records(tp, offset)
            if deleted != Errors.NONE:
                raise CoordinatorError(deleted, f"deleting the records of {tp} before {offset}")
            self.last_pruned_offsets[tp] = offset
        return handle(looked_up, prune)

    def setup_snapshot_cold_partitions(self, generation: int) -> None:
        def snapshot() -> None:
            futures = self.runtime.schedule_write_all_operation(
                "snapshot-cold-partitions", self.config.write_timeout_ms,
                lambda shard: shard.snapshot_cold_partitions())

            def again(done: Future) -> None:
                if done.exception() is not None:
                    log.error("received error while snapshotting cold partitions",
                              error=repr(done.exception()))
                if self.should_run_periodic_job_for_generation(generation):
                    self.setup_snapshot_cold_partitions(generation)
            all_of(futures).add_done_callback(again)
        self.runtime.timer.add(PeriodicJob(self.config.cold_partition_snapshot_interval_ms, self, generation,
                                           snapshot))
