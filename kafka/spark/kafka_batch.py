"""KafkaBatch: a batch query over fixed offsets (Spark's kafka010.KafkaBatch).

``spark.read.format("kafka-teaching")`` reads from ``startingOffsets`` (default ``earliest``) to
``endingOffsets`` (default ``latest``), or from and to timestamps. Spark calls ``partitions()``
once, on the driver: that is when both ends are resolved to real offsets, one range per
topic-partition, split further when ``minPartitions`` or ``maxRecordsPerPartition`` asks for more
tasks. ``read()`` runs on the executors, one call per range.
"""

from __future__ import annotations

from collections.abc import Iterator

from pyspark.sql.datasource import DataSourceReader, InputPartition

from kafka.spark.consumer_strategy import ConsumerStrategy
from kafka.spark.kafka_batch_partition_reader import KafkaBatchPartitionReader
from kafka.spark.kafka_offset_range import KafkaBatchInputPartition
from kafka.spark.kafka_offset_range_calculator import KafkaOffsetRangeCalculator
from kafka.spark.kafka_offset_range_limit import KafkaOffsetRangeLimit
from kafka.spark.kafka_offset_reader import KafkaOffsetReaderAdmin


class KafkaBatch(DataSourceReader):
    def __init__(self, strategy: ConsumerStrategy, driver_kafka_params: dict[str, str],
                 executor_kafka_params: dict[str, str], starting_offsets: KafkaOffsetRangeLimit,
                 ending_offsets: KafkaOffsetRangeLimit, fail_on_data_loss: bool, include_headers: bool,
                 poll_timeout_ms: int, range_calculator: KafkaOffsetRangeCalculator | None = None) -> None:
        # Only remember the options: Spark builds this object in more than one process.
        self.strategy = strategy
        self.driver_kafka_params = driver_kafka_params
        self.executor_kafka_params = executor_kafka_params
        self.starting_offsets = starting_offsets
        self.ending_offsets = ending_offsets
        self.fail_on_data_loss = fail_on_data_loss
        self.include_headers = include_headers
        self.poll_timeout_ms = poll_timeout_ms
        self.range_calculator = range_calculator or KafkaOffsetRangeCalculator()

    def partitions(self) -> list[InputPartition]:
        reader = KafkaOffsetReaderAdmin(self.strategy, self.driver_kafka_params, self.range_calculator)
        try:
            ranges = reader.get_offset_ranges_from_unresolved_offsets(self.starting_offsets,
                                                                      self.ending_offsets)
        finally:
            reader.close()
        return [KafkaBatchInputPartition(r, self.executor_kafka_params, self.poll_timeout_ms,
                                         self.fail_on_data_loss, self.include_headers) for r in ranges]

    def read(self, partition: InputPartition) -> Iterator[tuple]:
        return iter(KafkaBatchPartitionReader(partition))
