"""SharePartitionKey: one share group's view of one partition (Kafka's
org.apache.kafka.server.share.SharePartitionKey).

The key of the SharePartition cache, and what the share coordinator's records are keyed by
("group:topicId:partition", Kafka's asCoordinatorKey).
"""

from __future__ import annotations

from typing import NamedTuple

from kafka.utils.topic_id_partition import TopicIdPartition


class SharePartitionKey(NamedTuple):
    group_id: str
    topic_id_partition: TopicIdPartition

    def as_coordinator_key(self) -> str:
        return f"{self.group_id}:{self.topic_id_partition.topic_id}:{self.topic_id_partition.partition}"

    def __str__(self) -> str:
        return f"{self.group_id}-{self.topic_id_partition}"
