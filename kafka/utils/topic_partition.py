"""TopicPartition: a topic name and a partition number (Kafka's org.apache.kafka.common.TopicPartition)."""

from __future__ import annotations

from typing import NamedTuple


class TopicPartition(NamedTuple):
    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"
