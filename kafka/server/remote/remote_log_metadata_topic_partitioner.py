"""RemoteLogMetadataTopicPartitioner: which partition of `__remote_log_metadata` holds a user partition's
remote log metadata (Kafka's org.apache.kafka.server.log.remote.metadata.storage.
RemoteLogMetadataTopicPartitioner).

Every event of one user partition goes to one metadata partition, so they are read back in the order they
were written. The choice is Kafka's to the bit: murmur2 of the four big-endian bytes of Java's
Objects.hash(topicId.leastSignificantBits, topicId.mostSignificantBits, partition), so a JVM broker in the
same cluster reads a partition's metadata where this one wrote it.
"""

from __future__ import annotations

from kafka.clients.producer.partitioner import murmur2, to_positive
from kafka.utils.topic_id_partition import TopicIdPartition

_INT = 0xFFFFFFFF


def _long_hash(value: int) -> int:
    """Java's Long.hashCode: the two halves xor-ed, as an int."""
    value &= 0xFFFFFFFFFFFFFFFF
    return (value ^ (value >> 32)) & _INT


def java_objects_hash(*ints: int) -> int:
    """Java's Objects.hash over already-hashed values: 31 * h + v, from 1, in 32 bits."""
    h = 1
    for value in ints:
        h = (31 * h + value) & _INT
    return h


class RemoteLogMetadataTopicPartitioner:
    def __init__(self, num_metadata_topic_partitions: int) -> None:
        self.num_metadata_topic_partitions = num_metadata_topic_partitions

    def metadata_partition(self, topic_id_partition: TopicIdPartition) -> int:
        bits = topic_id_partition.topic_id.int
        most, least = bits >> 64, bits & 0xFFFFFFFFFFFFFFFF
        h = java_objects_hash(_long_hash(least), _long_hash(most), topic_id_partition.partition & _INT)
        return to_positive(murmur2(h.to_bytes(4, "big"))) % self.num_metadata_topic_partitions
