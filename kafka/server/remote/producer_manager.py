"""ProducerManager: writes remote log metadata events to `__remote_log_metadata` (Kafka's
org.apache.kafka.server.log.remote.metadata.storage.ProducerManager).

One idempotent producer with acks=all; each event goes, keyless, to the metadata partition of its user
partition (RemoteLogMetadataTopicPartitioner), as Kafka's serialized bytes. The returned future holds the
partition and offset it was written at, which the writer then waits to read back.
"""

from __future__ import annotations

from concurrent.futures import Future

from kafka.clients.producer.kafka_producer import KafkaProducer
from kafka.log.remote import remote_log_metadata_serde as serde
from kafka.log.remote.inmemory_remote_log_metadata_manager import metadata_partition
from kafka.server.remote.remote_log_metadata_topic_partitioner import RemoteLogMetadataTopicPartitioner
from kafka.server.remote.topic_based_remote_log_metadata_manager_config import (
    TopicBasedRemoteLogMetadataManagerConfig,
)

CLOSE_TIMEOUT_S = 1.0


class ProducerManager:
    def __init__(self, config: TopicBasedRemoteLogMetadataManagerConfig,
                 partitioner: RemoteLogMetadataTopicPartitioner) -> None:
        self.config = config
        self.partitioner = partitioner
        self.producer = KafkaProducer(config.producer_properties)

    def publish_message(self, metadata) -> Future:
        """Send one event; the future gives its RecordMetadata (partition, offset) or the error."""
        partition = self.partitioner.metadata_partition(metadata_partition(metadata))
        if partition >= self.config.metadata_topic_partitions_count:
            raise ValueError(f"Chosen partition no {partition} must be less than the partition count: "
                             f"{self.config.metadata_topic_partitions_count}")
        return self.producer.send(self.config.remote_log_metadata_topic_name, serde.serialize(metadata),
                                  partition=partition)

    def close(self) -> None:
        # The broker stops its own listener before this: what is not sent within a moment will not be.
        self.producer.close(CLOSE_TIMEOUT_S)
