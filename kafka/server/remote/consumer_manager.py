"""ConsumerManager: runs the ConsumerTask on its thread and lets writers wait for their events to be read back
(Kafka's org.apache.kafka.server.log.remote.metadata.storage.ConsumerManager).

A write of remote log metadata is done when this broker's own consumer has read it: then this broker's store
shows it, and a reader asking right after the copier's COPY_SEGMENT_FINISHED finds the segment.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from concurrent.futures import Future

from kafka.clients.consumer.kafka_consumer import KafkaConsumer
from kafka.log.remote.remote_partition_metadata_store import RemotePartitionMetadataStore
from kafka.server.remote.consumer_task import ConsumerTask, settle
from kafka.server.remote.remote_log_metadata_topic_partitioner import RemoteLogMetadataTopicPartitioner
from kafka.server.remote.topic_based_remote_log_metadata_manager_config import (
    TopicBasedRemoteLogMetadataManagerConfig,
)
from kafka.utils.time import Time
from kafka.utils.topic_id_partition import TopicIdPartition

POLL_TIMEOUT_MS = 100


class ConsumerManager:
    def __init__(self, config: TopicBasedRemoteLogMetadataManagerConfig, store: RemotePartitionMetadataStore,
                 partitioner: RemoteLogMetadataTopicPartitioner, time: Time) -> None:
        self.config = config
        self.consumer_task = ConsumerTask(store, partitioner, KafkaConsumer(config.consumer_properties),
                                          POLL_TIMEOUT_MS, time)
        self._thread = threading.Thread(target=self.consumer_task.run, name="RLMMConsumerTask", daemon=True)

    def start_consumer_thread(self) -> None:
        self._thread.start()

    def wait_till_consumption_catches_up(self, partition: int, offset: int) -> Future[None]:
        """A future done once the event written at (partition, offset) has been read back; failed with a
        TimeoutError after remote.log.metadata.consume.wait.ms."""
        done: Future[None] = Future()
        if not self.consumer_task.is_metadata_partition_assigned(partition):
            done.set_exception(RuntimeError(
                f"This consumer is not assigned to the target partition {partition}"))
            return done
        self.consumer_task.wait_for_offset(partition, offset, done)
        timer = threading.Timer(self.config.consume_wait_ms / 1000, settle, (done.set_exception, TimeoutError(
            f"Timed out in catching up with the expected offset by consumer: {offset}")))
        timer.daemon = True
        timer.start()
        done.add_done_callback(lambda _: timer.cancel())
        return done

    def add_assignments_for_partitions(self, partitions: Iterable[TopicIdPartition]) -> None:
        self.consumer_task.add_assignments_for_partitions(partitions)

    def remove_assignments_for_partitions(self, partitions: Iterable[TopicIdPartition]) -> None:
        self.consumer_task.remove_assignments_for_partitions(partitions)

    def close(self) -> None:
        self.consumer_task.close()
        self._thread.join(10)
