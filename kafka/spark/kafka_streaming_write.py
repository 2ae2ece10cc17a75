"""KafkaStreamingWrite and KafkaBatchWrite: the sink's driver half (Spark's classes of those names).

The constructor only checks the columns (``KafkaWriter.validate_query``), so it is cheap; Spark
pickles the object to the executors, where ``write()`` runs a KafkaWriteTask per partition of the
data. ``commit()`` on the driver has nothing to do: the records are already in Kafka. A
micro-batch that Spark replays after a crash is therefore written again (at least once).

Both are PySpark's Arrow writers (``DataSourceArrowWriter``, ``DataSourceStreamArrowWriter``):
``write()`` gets the task's rows as Arrow record batches, not as a Row object per row.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import pyarrow as pa
from pyspark.sql.datasource import DataSourceArrowWriter, DataSourceStreamArrowWriter, WriterCommitMessage
from pyspark.sql.types import StructType

from kafka.spark.kafka_write_task import KafkaWriteTask
from kafka.spark.kafka_writer import validate_query


@dataclass
class KafkaWriterCommitMessage(WriterCommitMessage):
    records: int


class KafkaWrite:
    """What the batch and the streaming sink share: the columns checked once on the driver, and a
    KafkaWriteTask for each partition of the data on the executors."""

    def __init__(self, topic: str | None, producer_params: Mapping[str, str], schema: StructType) -> None:
        self.topic = topic
        self.producer_params = dict(producer_params)
        self.columns = validate_query(schema, topic)

    def write(self, iterator: Iterator[pa.RecordBatch]) -> KafkaWriterCommitMessage:
        task = KafkaWriteTask(self.producer_params, self.columns, self.topic)
        return KafkaWriterCommitMessage(task.execute(iterator))


class KafkaStreamingWrite(KafkaWrite, DataSourceStreamArrowWriter):
    def commit(self, messages: list, batchId: int) -> None:
        """Nothing to do: every record was acknowledged by the broker before its task finished."""

    def abort(self, messages: list, batchId: int) -> None:
        """Nothing to undo: Kafka has no way to take back records, so a retry may duplicate some."""


class KafkaBatchWrite(KafkaWrite, DataSourceArrowWriter):
    """df.write: the same tasks; Spark's default commit and abort (nothing to do) apply."""
