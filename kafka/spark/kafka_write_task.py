"""KafkaWriteTask: one Spark task sends its rows to Kafka (Spark's kafka010.KafkaWriteTask).

Runs on an executor: one KafkaProducer per task, every row ``send()`` (asynchronous: the records
batch up in the RecordAccumulator), then ``flush()`` and a check that every send succeeded. A
failed send fails the task, and Spark retries it -- so a retried task may write some records
twice. That is the Kafka sink's documented guarantee in Spark too: at least once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kafka.clients.producer import KafkaProducer
from kafka.spark.kafka_writer import KafkaWriteColumns


class KafkaWriteTask:
    def __init__(self, producer_params: Mapping[str, str], columns: KafkaWriteColumns, topic: str | None) -> None:
        self.producer_params = dict(producer_params)
        self.columns = columns
        self.topic = topic
        self.failed: BaseException | None = None

    def execute(self, rows: Iterable) -> int:
        """Send every row; the number sent. Raises the first send that failed."""
        producer = KafkaProducer(self.producer_params)
        count = 0
        try:
            for row in rows:
                self.check_for_errors()
                self.send(producer, row)
                count += 1
            producer.flush()
        finally:
            producer.close()
        self.check_for_errors()
        return count

    def send(self, producer: KafkaProducer, row) -> None:
        c = self.columns
        topic = self.topic if c.topic is None else row[c.topic]
        if topic is None:
            raise ValueError("null topic present in the data. Use the topic option for setting a topic.")
        headers = [(h[0], h[1]) for h in row[c.headers]] if c.headers is not None and row[c.headers] else None
        producer.send(topic, row[c.value], key=None if c.key is None else row[c.key], headers=headers,
                      partition=None if c.partition is None else row[c.partition], callback=self._on_completion)

    def _on_completion(self, metadata, exception: BaseException | None) -> None:
        if exception is not None and self.failed is None:
            self.failed = exception

    def check_for_errors(self) -> None:
        if self.failed is not None:
            raise self.failed
