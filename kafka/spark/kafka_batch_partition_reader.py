"""KafkaBatchPartitionReader: one Spark task turns one offset range into rows (Spark's class of that name).

This is the executor's half of the source, and the only code that touches record data. It is the
same for batch queries and micro-batches: both hand it a ``KafkaBatchInputPartition`` whose offsets
the driver already fixed, so it needs no state and no conversation with the driver.

It yields Arrow record batches, one per poll, which PySpark passes to the JVM as they are: the
fetched bytes are decoded column by column (record_batch_columns.py) and never become a Python
object per row (docs/spark.md, "How fast the reader is").
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import structlog

from kafka.spark.kafka_data_consumer import KafkaDataConsumer, data_loss_reporter
from kafka.spark.kafka_offset_range import KafkaBatchInputPartition
from kafka.spark.kafka_record_to_row_converter import kafka_arrow_schema, to_arrow_batch
from kafka.spark.record_batch_columns import decode_offset_range
from kafka.utils.time import SYSTEM

log = structlog.get_logger("kafka.spark.KafkaBatchPartitionReader")


class KafkaBatchPartitionReader:
    def __init__(self, partition: KafkaBatchInputPartition) -> None:
        self.partition = partition

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        # Spark plans a batch with no partitions as one InputPartition(None): it reads nothing.
        p = self.partition
        if not isinstance(p, KafkaBatchInputPartition) or p.offset_range.size <= 0:
            return
        tp = p.offset_range.topic_partition
        schema = kafka_arrow_schema(p.include_headers)
        consumer = KafkaDataConsumer(p.executor_kafka_params, SYSTEM)  # a Spark task: the real clock
        report = data_loss_reporter(p.fail_on_data_loss, lambda message: log.warning(message))
        try:
            for batches, from_offset, until_offset in consumer.get_batches(p.offset_range, p.poll_timeout_ms,
                                                                           report):
                columns = decode_offset_range(batches, from_offset, until_offset)
                if len(columns):
                    yield to_arrow_batch(columns, tp.topic, tp.partition, p.include_headers, schema)
        finally:
            consumer.close()
