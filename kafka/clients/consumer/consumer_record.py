"""ConsumerRecord and ConsumerRecords: what ``poll()`` returns
(Kafka's clients.consumer.ConsumerRecord(s))."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from kafka.utils.topic_partition import TopicPartition

CREATE_TIME = "CreateTime"
LOG_APPEND_TIME = "LogAppendTime"


@dataclass(frozen=True)
class ConsumerRecord:
    topic: str
    partition: int
    offset: int
    timestamp: int
    timestamp_type: str
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]] = field(default_factory=list)

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


class ConsumerRecords:
    """The records of one poll, grouped by partition; iterating yields every record."""

    def __init__(self, by_partition: dict[TopicPartition, list[ConsumerRecord]] | None = None) -> None:
        self._by_partition = by_partition or {}

    def records(self, tp: TopicPartition) -> list[ConsumerRecord]:
        return self._by_partition.get(tp, [])

    def partitions(self) -> set[TopicPartition]:
        return set(self._by_partition)

    def count(self) -> int:
        return sum(len(r) for r in self._by_partition.values())

    def __len__(self) -> int:
        return self.count()

    def __bool__(self) -> bool:
        return self.count() > 0

    def __iter__(self) -> Iterator[ConsumerRecord]:
        for records in self._by_partition.values():
            yield from records
