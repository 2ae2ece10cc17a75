"""What a FetchRequest asks, as the broker reads it (Kafka's common.requests.FetchRequest: fetchData,
forgottenTopics, replicaId and replicaEpoch).

Up to v12 a Fetch names each topic; from v13 (KIP-516) it names the topic's id instead, and the
broker looks the name up in its metadata. An id it does not know keeps no name (None): such a
partition is answered UNKNOWN_TOPIC_ID and never read. So before v13 the partitions are
TopicPartitions, from v13 TopicIdPartitions, and the fetch session keys them the same way
(fetch_session.py).
"""

from __future__ import annotations

import uuid

from kafka.protocol.messages.fetch import replica_id_and_epoch
from kafka.server.fetch_partition_data import FetchPartitionInfo
from kafka.server.fetch_session import SessionPartition
from kafka.utils.topic_id_partition import TopicIdPartition
from kafka.utils.topic_partition import TopicPartition

FIRST_VERSION_WITH_TOPIC_IDS = 13

__all__ = ["fetch_data", "forgotten_topics", "replica_id_and_epoch", "uses_topic_ids"]


def uses_topic_ids(version: int) -> bool:
    return version >= FIRST_VERSION_WITH_TOPIC_IDS


def _partition(version: int, topic, partition: int, topic_names: dict[uuid.UUID, str]) -> SessionPartition:
    if not uses_topic_ids(version):
        return TopicPartition(topic.topic, partition)
    return TopicIdPartition(topic.topic_id, topic_names.get(topic.topic_id), partition)


def fetch_data(body, version: int, topic_names: dict[uuid.UUID, str]
               ) -> dict[SessionPartition, FetchPartitionInfo]:
    """Kafka's FetchRequest.fetchData(topicNames): each partition asked, in the order asked."""
    return {_partition(version, topic, p.partition, topic_names):
            FetchPartitionInfo(p.fetch_offset, p.partition_max_bytes, p.current_leader_epoch,
                               p.last_fetched_epoch)
            for topic in body.topics for p in topic.partitions}


def forgotten_topics(body, version: int, topic_names: dict[uuid.UUID, str]) -> list[SessionPartition]:
    """Kafka's FetchRequest.forgottenTopics(topicNames): the partitions an incremental fetch drops."""
    return [_partition(version, topic, p, topic_names) for topic in body.forgotten_topics_data
            for p in topic.partitions]
