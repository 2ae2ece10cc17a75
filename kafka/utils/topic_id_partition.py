"""TopicIdPartition: a topic's id and name with a partition number (Kafka's
org.apache.kafka.common.TopicIdPartition).

Share requests and tiered storage name topics by id (KIP-516); the broker adds the name from its
metadata, and the name is None when the id is unknown here (answered UNKNOWN_TOPIC_ID).
"""

from __future__ import annotations

import uuid
from typing import NamedTuple

from kafka.utils.topic_partition import TopicPartition


class TopicIdPartition(NamedTuple):
    topic_id: uuid.UUID
    topic: str | None
    partition: int

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic or "", self.partition)

    def __str__(self) -> str:
        return f"{self.topic_id}:{self.topic}-{self.partition}"
