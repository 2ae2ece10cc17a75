"""TopicBasedRemoteLogMetadataManager: the RemoteLogMetadataManager that keeps its events in the
`__remote_log_metadata` topic (Kafka's
org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager, KIP-405).

Every broker writes the events of the partitions it leads (ProducerManager) and reads those of the
partitions it leads or follows (ConsumerManager) into its RemotePartitionMetadataStore, which answers the
RemoteLogManager's questions. A write is done once this broker has read it back. Because the topic keeps
every event (retention.ms=-1), a new leader or a restarted broker reads a partition's history again and
knows what is remote (`is_ready` from then on).

It reaches the cluster as a client would, through the broker's own listener
(remote.log.metadata.manager.listener.name): the metadata partition of a user partition may live on any
broker. Start-up creates the topic if it is missing (50 partitions, replication factor 3, min ISR 2 by
default) from a thread of its own, retrying until remote.log.metadata.initialization.retry.max.timeout.ms;
writes before then fail, reads find nothing ready.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future

import structlog

from kafka.clients.admin.admin_client import AdminClient
from kafka.clients.admin.descriptions import NewTopic
from kafka.clients.errors import KafkaError
from kafka.log.remote.inmemory_remote_log_metadata_manager import check_transition
from kafka.log.remote.remote_log_metadata_manager import RemoteLogMetadataManager
from kafka.log.remote.remote_log_segment_metadata import (
    RemoteLogSegmentMetadata,
    RemoteLogSegmentMetadataUpdate,
    RemoteLogSegmentState,
    RemotePartitionDeleteMetadata,
)
from kafka.log.remote.remote_partition_metadata_store import RemotePartitionMetadataStore
from kafka.log.remote.remote_storage_manager import RemoteStorageException
from kafka.protocol.errors import Errors
from kafka.server.remote.consumer_manager import ConsumerManager
from kafka.server.remote.producer_manager import ProducerManager
from kafka.server.remote.remote_log_metadata_topic_partitioner import RemoteLogMetadataTopicPartitioner
from kafka.server.remote.topic_based_remote_log_metadata_manager_config import (
    TopicBasedRemoteLogMetadataManagerConfig,
)
from kafka.utils.time import Time
from kafka.utils.topic_id_partition import TopicIdPartition

log = structlog.get_logger(__name__)


class TopicBasedRemoteLogMetadataManager(RemoteLogMetadataManager):
    def __init__(self, time: Time) -> None:
        self.time = time
        self.store = RemotePartitionMetadataStore()
        self.config: TopicBasedRemoteLogMetadataManagerConfig | None = None
        self._lock = threading.Lock()
        self._initialized = threading.Event()
        self._closing = threading.Event()
        self._pending_assign_partitions: set[TopicIdPartition] = set()
        self.producer_manager: ProducerManager | None = None
        self.consumer_manager: ConsumerManager | None = None
        self._initialization_thread: threading.Thread | None = None
        self.initialization_failed = False

    # ------------------------------------------------------------------ start-up

    def configure(self, configs: dict[str, str]) -> None:
        with self._lock:
            if self.config is not None:
                return
            self.config = TopicBasedRemoteLogMetadataManagerConfig(configs)
            self._initialization_thread = threading.Thread(target=self._initialize_resources,
                                                           name="RLMMInitializationThread", daemon=True)
        log.info("configured the topic-based remote log metadata manager",
                 partitions=self.config.metadata_topic_partitions_count,
                 replication_factor=self.config.metadata_topic_replication_factor)

    def on_broker_ready(self) -> None:
        """Kafka's BrokerReadyCallback: the broker serves requests, the topic may be created."""
        if self._initialization_thread is not None and not self._initialization_thread.is_alive():
            self._initialization_thread.start()

    def _initialize_resources(self) -> None:
        config = self.config
        assert config is not None
        start = self.time.milliseconds()
        admin = AdminClient(config.admin_properties)
        try:
            while not self._initialized.is_set() and not self._closing.is_set():
                if self.time.milliseconds() - start > config.initialization_retry_max_timeout_ms:
                    log.error("could not initialize the remote log metadata manager in time",
                              timeout_ms=config.initialization_retry_max_timeout_ms)
                    self.initialization_failed = True
                    return
                try:
                    if self._create_topic(admin) and self._partition_count_ok(admin):
                        self._start_clients()
                        return
                except (KafkaError, OSError) as e:
                    log.info("remote log metadata manager not initialized yet: retrying", error=str(e))
                self._closing.wait(config.initialization_retry_interval_ms / 1000)
        finally:
            admin.close()

    def _create_topic(self, admin: AdminClient) -> bool:
        config = self.config
        assert config is not None
        topic = NewTopic(config.remote_log_metadata_topic_name, config.metadata_topic_partitions_count,
                         config.metadata_topic_replication_factor,
                         {"retention.ms": str(config.metadata_topic_retention_ms), "cleanup.policy": "delete",
                          "remote.storage.enable": "false",
                          "min.insync.replicas": str(config.metadata_topic_min_isr)})
        error = admin.create_topics([topic])[topic.name]
        if error is None or error.error == Errors.TOPIC_ALREADY_EXISTS:
            return True
        log.info("cannot create the remote log metadata topic yet", error=str(error))
        return False

    def _partition_count_ok(self, admin: AdminClient) -> bool:
        config = self.config
        assert config is not None
        description = admin.describe_topics([config.remote_log_metadata_topic_name])[
            config.remote_log_metadata_topic_name]
        count = len(description.partitions)
        if count != config.metadata_topic_partitions_count:
            log.error("the remote log metadata topic has another partition count than configured",
                      existing=count, expected=config.metadata_topic_partitions_count)
            self.initialization_failed = True
            self._closing.set()
            return False
        return True

    def _start_clients(self) -> None:
        config = self.config
        assert config is not None
        partitioner = RemoteLogMetadataTopicPartitioner(config.metadata_topic_partitions_count)
        with self._lock:
            self.producer_manager = ProducerManager(config, partitioner)
            self.consumer_manager = ConsumerManager(config, self.store, partitioner, self.time)
            self.consumer_manager.start_consumer_thread()
            if self._pending_assign_partitions:
                self._assign_partitions(self._pending_assign_partitions)
                self._pending_assign_partitions = set()
            self._initialized.set()
        log.info("initialized the topic-based remote log metadata manager")

    # ------------------------------------------------------------------ writes

    def add_remote_log_segment_metadata(self, metadata: RemoteLogSegmentMetadata) -> Future[None]:
        if metadata.state is not RemoteLogSegmentState.COPY_SEGMENT_STARTED:
            raise ValueError(f"Given remoteLogSegmentMetadata should have state as COPY_SEGMENT_STARTED but "
                             f"it contains state as: {metadata.state.name}")
        return self._store_remote_log_metadata(metadata)

    def update_remote_log_segment_metadata(self, update: RemoteLogSegmentMetadataUpdate) -> Future[None]:
        check_transition(self.store, update)
        return self._store_remote_log_metadata(update)

    def put_remote_partition_delete_metadata(self, metadata: RemotePartitionDeleteMetadata) -> Future[None]:
        return self._store_remote_log_metadata(metadata)

    def _store_remote_log_metadata(self, metadata) -> Future[None]:
        self._ensure_initialized()
        assert self.producer_manager is not None and self.consumer_manager is not None
        done: Future[None] = Future()
        consumer_manager = self.consumer_manager

        def written(produced: Future) -> None:
            try:
                record_metadata = produced.result()
            except Exception as e:
                done.set_exception(RemoteStorageException(f"cannot write remote log metadata: {e}"))
                return
            caught_up = consumer_manager.wait_till_consumption_catches_up(record_metadata.partition,
                                                                         record_metadata.offset)
            caught_up.add_done_callback(lambda f: done.set_exception(f.exception()) if f.exception()
                                        else done.set_result(None))
        self.producer_manager.publish_message(metadata).add_done_callback(written)
        return done

    # ------------------------------------------------------------------ reads

    def remote_log_segment_metadata(self, topic_id_partition: TopicIdPartition, epoch_for_offset: int,
                                    offset: int) -> RemoteLogSegmentMetadata | None:
        self._ensure_initialized()
        return self.store.remote_log_segment_metadata(topic_id_partition, offset, epoch_for_offset)

    def next_segment_with_txn_index(self, topic_id_partition: TopicIdPartition, epoch: int,
                                    offset: int) -> RemoteLogSegmentMetadata | None:
        self._ensure_initialized()
        return self.store.next_segment_with_txn_index(topic_id_partition, epoch, offset)

    def highest_offset_for_epoch(self, topic_id_partition: TopicIdPartition, leader_epoch: int) -> int | None:
        self._ensure_initialized()
        return self.store.highest_log_offset(topic_id_partition, leader_epoch)

    def list_remote_log_segments(self, topic_id_partition: TopicIdPartition,
                                 leader_epoch: int | None = None) -> Iterator[RemoteLogSegmentMetadata]:
        self._ensure_initialized()
        return iter(self.store.list_remote_log_segments(topic_id_partition, leader_epoch))

    def remote_log_size(self, topic_id_partition: TopicIdPartition, leader_epoch: int) -> int:
        return sum(m.segment_size_in_bytes for m in self.store.list_remote_log_segments(topic_id_partition,
                                                                                          leader_epoch))

    def is_ready(self, topic_id_partition: TopicIdPartition) -> bool:
        return self.store.is_initialized(topic_id_partition)

    # ------------------------------------------------------------------ which partitions to follow

    def on_partition_leadership_changes(self, leader_partitions: Iterable[TopicIdPartition],
                                        follower_partitions: Iterable[TopicIdPartition]) -> None:
        partitions = {*leader_partitions, *follower_partitions}
        with self._lock:
            if self._closing.is_set():
                raise RuntimeError("This instance is in closing state")
            if not self._initialized.is_set():
                self._pending_assign_partitions |= partitions
            else:
                self._assign_partitions(partitions)

    def _assign_partitions(self, partitions: set[TopicIdPartition]) -> None:
        for partition in partitions:
            self.store.maybe_load_partition(partition)
        assert self.consumer_manager is not None
        self.consumer_manager.add_assignments_for_partitions(partitions)

    def on_stop_partitions(self, partitions: Iterable[TopicIdPartition]) -> None:
        partitions = set(partitions)
        with self._lock:
            if not self._initialized.is_set():
                self._pending_assign_partitions -= partitions
            elif self.consumer_manager is not None:
                self.consumer_manager.remove_assignments_for_partitions(partitions)

    def _ensure_initialized(self) -> None:
        if not self._initialized.is_set():
            raise RemoteStorageException("This instance is not yet initialized")
        if self._closing.is_set():
            raise RemoteStorageException("This instance is in closing state")

    def close(self) -> None:
        self._closing.set()
        with self._lock:
            producer, consumer = self.producer_manager, self.consumer_manager
        if producer is not None:
            producer.close()
        if consumer is not None:
            consumer.close()
        if self._initialization_thread is not None and self._initialization_thread.is_alive():
            self._initialization_thread.join(10)
        self.store.close()
