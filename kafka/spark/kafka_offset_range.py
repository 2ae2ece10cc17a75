"""KafkaOffsetRange and KafkaBatchInputPartition: one Spark task's slice of one partition.

Spark's ``KafkaOffsetRange`` (in KafkaOffsetRangeCalculator.scala) and ``KafkaBatchInputPartition``.
The driver decides the exact offsets, ``[from_offset, until_offset)``, and ships this small object
to an executor (pickled). The executor needs nothing else to read its records, so reading the same
partition twice -- Spark does, when it retries a task or replays a batch after a restart --
returns the same records.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pyspark.sql.datasource import InputPartition

from kafka.utils.topic_partition import TopicPartition


@dataclass(frozen=True)
class KafkaOffsetRange:
    topic_partition: TopicPartition
    from_offset: int
    until_offset: int

    @property
    def size(self) -> int:
        return self.until_offset - self.from_offset


@dataclass
class KafkaBatchInputPartition(InputPartition):
    offset_range: KafkaOffsetRange
    executor_kafka_params: dict[str, str] = field(default_factory=dict)
    poll_timeout_ms: int = 120000
    fail_on_data_loss: bool = True
    include_headers: bool = False
