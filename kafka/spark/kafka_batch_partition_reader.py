"""KafkaBatchPartitionReader: one Spark task turns one offset range into rows (Spark's class of that name).

This is the executor's half of the source, and the only code that touches record data. It is the
same for batch queries and micro-batches: both hand it a ``KafkaBatchInputPartition`` whose offsets
the driver already fixed, so it needs no state and no conversation with the driver.
"""

from __future__ import annotations

from collections.abc import Iterator

import structlog

from kafka.spark.kafka_data_consumer import KafkaDataConsumer, data_loss_reporter
from kafka.spark.kafka_offset_range import KafkaBatchInputPartition
from kafka.spark.kafka_record_to_row_converter import to_row

log = structlog.get_logger("kafka.spark.KafkaBatchPartitionReader")


class KafkaBatchPartitionReader:
    def __init__(self, partition: KafkaBatchInputPartition) -> None:
        self.partition = partition

    def __iter__(self) -> Iterator[tuple]:
        # Spark plans a batch with no partitions as one InputPartition(None): it reads nothing.
        p = self.partition
        if not isinstance(p, KafkaBatchInputPartition) or p.offset_range.size <= 0:
            return
        consumer = KafkaDataConsumer(p.executor_kafka_params)
        report = data_loss_reporter(p.fail_on_data_loss, lambda message: log.warning(message))
        try:
            for record in consumer.get(p.offset_range, p.poll_timeout_ms, report):
                yield to_row(record, p.include_headers)
        finally:
            consumer.close()
