"""KafkaWriteTask: one Spark task sends its rows to Kafka (Spark's kafka010.KafkaWriteTask).

Runs on an executor: one KafkaProducer per task, every row ``send()`` (asynchronous: the records
batch up in the RecordAccumulator, ``linger.ms`` and ``batch.size`` as the ``kafka.*`` options
set them, and the Sender ships a batch per partition while the task goes on), then ``flush()``
and a check that every send succeeded. A failed send fails the task, and Spark retries it -- so a
retried task may write some records twice. That is the Kafka sink's documented guarantee in
Spark too: at least once.

Spark hands the task Arrow record batches (the sink is a ``DataSourceArrowWriter``): each column
becomes a Python list in one call, instead of PySpark building a Row object per row first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import repeat

import pyarrow as pa

from kafka.clients.producer import KafkaProducer
from kafka.spark.kafka_writer import KafkaWriteColumns


class KafkaWriteTask:
    def __init__(self, producer_params: Mapping[str, str], columns: KafkaWriteColumns,
                 topic: str | None) -> None:
        self.producer_params = dict(producer_params)
        self.columns = columns
        self.topic = topic
        self.failed: BaseException | None = None

    def execute(self, batches: Iterable[pa.RecordBatch]) -> int:
        """Send every row; the number sent. Raises the first send that failed."""
        producer = KafkaProducer(self.producer_params)
        count = 0
        try:
            for batch in batches:
                self.check_for_errors()
                count += self.send_batch(producer, batch)
            producer.flush()
        finally:
            producer.close()
        self.check_for_errors()
        return count

    def column(self, batch: pa.RecordBatch, index: int | None, default=None) -> Iterable:
        return repeat(default, batch.num_rows) if index is None else batch.column(index).to_pylist()

    def send_batch(self, producer: KafkaProducer, batch: pa.RecordBatch) -> int:
        c = self.columns
        rows = zip(self.column(batch, c.topic, self.topic), self.column(batch, c.key),
                   self.column(batch, c.value),
                   self.column(batch, c.headers), self.column(batch, c.partition), strict=False)
        send, on_completion = producer.send, self._on_completion
        for topic, key, value, headers, partition in rows:
            if topic is None:
                raise ValueError("null topic present in the data. Use the topic option for setting a topic.")
            send(topic, value, key=key, headers=[(h["key"], h["value"]) for h in headers] if headers
                 else None,
                 partition=partition, callback=on_completion)
        return batch.num_rows

    def _on_completion(self, metadata, exception: BaseException | None) -> None:
        if exception is not None and self.failed is None:
            self.failed = exception

    def check_for_errors(self) -> None:
        if self.failed is not None:
            raise self.failed
