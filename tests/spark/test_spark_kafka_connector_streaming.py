"""Spark's own Kafka connector (``format("kafka")``) streaming from the broker and writing to it: a query
with a checkpoint, stopped mid-stream and restarted, that sees every record exactly once under
maxOffsetsPerTrigger and minPartitions; the sink in batch and streaming (key, value, headers, a topic
column), read back whole with confluent-kafka; a streaming query on a topic that does not exist.
"""

from __future__ import annotations

import threading

import pytest
from pyspark.sql import Row
from pyspark.sql.types import ArrayType, BinaryType, StringType, StructField, StructType

from tests.helpers import BrokerProcess, unique_topic, wait_until
from tests.spark.kafka_io import consume, create_topic, produce

# each waits for its queries with deadlines of minutes, for busy machines
pytestmark = pytest.mark.timeout(420)


def read_stream(spark, bootstrap, **options):
    reader = spark.readStream.format("kafka").option("kafka.bootstrap.servers", bootstrap)
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


class BatchesById:
    """An idempotent foreachBatch sink: a batch Spark runs again replaces its first run, as an exactly-once
    sink keyed by batch id does. Keeps each batch's offsets and how many tasks read it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.batches: dict[int, tuple[int, list[tuple[int, int]]]] = {}

    def __call__(self, df, batch_id: int) -> None:
        tasks = df.rdd.getNumPartitions()
        rows = [(r.partition, r.offset) for r in df.select("partition", "offset").collect()]
        with self.lock:
            self.batches[batch_id] = (tasks, rows)

    def offsets(self) -> list[tuple[int, int]]:
        with self.lock:
            return sorted(o for _, rows in self.batches.values() for o in rows)


def test_stream_stopped_and_restarted_reads_every_record_once(spark_kafka, spark_broker, tmp_path):
    bootstrap = spark_broker.bootstrap
    topic = create_topic(bootstrap, "sk-stream", 3)
    produce(bootstrap, topic, [{"partition": i % 3, "value": b"a%d" % i} for i in range(60)])
    sink, checkpoint = BatchesById(), str(tmp_path / "checkpoint")

    def start(trigger: dict):
        stream = read_stream(spark_kafka, bootstrap, subscribe=topic, startingOffsets="earliest",
                             maxOffsetsPerTrigger="20", minPartitions="6")
        return (stream.writeStream.foreachBatch(sink).option("checkpointLocation", checkpoint)
                .trigger(**trigger).start())

    query = start({"processingTime": "1 second"})
    try:  # stopped after its first batch, with 40 records still to read
        wait_until(lambda: sink.batches or query.exception(), timeout=90, message="the first micro-batch")
    finally:
        query.stop()
    assert query.exception() is None, query.exception()
    produce(bootstrap, topic, [{"partition": i % 3, "value": b"b%d" % i} for i in range(30)])

    query = start({"availableNow": True})  # the same checkpoint: on from where the first one stopped
    assert query.awaitTermination(120), "the restarted availableNow query did not finish in 120 s"
    assert query.exception() is None, query.exception()

    assert sink.offsets() == sorted((p, o) for p in range(3) for o in range(30)), "each offset exactly once"
    sizes = {batch_id: len(rows) for batch_id, (_, rows) in sink.batches.items()}
    assert sorted(sizes) == list(range(len(sizes))) and len(sizes) >= 5, f"batch ids and sizes: {sizes}"
    assert max(sizes.values()) <= 20, f"maxOffsetsPerTrigger 20, batches of {sizes}"  # 6 a partition: 18
    # minPartitions 6 over 3 topic-partitions: Spark's KafkaOffsetRangeCalculator cuts each range in parts.
    tasks = {batch_id: n for batch_id, (n, rows) in sink.batches.items() if len(rows) >= 15}
    assert tasks and set(tasks.values()) == {6}, f"tasks per batch of 15 or more: {tasks}, sizes {sizes}"


HEADERS = ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())]))
SINK_SCHEMA = StructType([StructField("topic", StringType()), StructField("key", StringType()),
                          StructField("value", BinaryType()), StructField("headers", HEADERS)])


def test_batch_write_with_a_topic_column_and_headers(spark_kafka, spark_broker):
    bootstrap = spark_broker.bootstrap
    left, right = create_topic(bootstrap, "sk-sink-l", 2), create_topic(bootstrap, "sk-sink-r", 1)
    rows = [Row(topic=left if i % 3 else right, key=None if i % 5 == 0 else f"k{i}", value=b"v%d" % i,
                headers=[Row(key="n", value=b"%d" % i), Row(key="empty", value=None)] if i % 2 else None)
            for i in range(40)]
    (spark_kafka.createDataFrame(rows, SINK_SCHEMA).write.format("kafka")
     .option("kafka.bootstrap.servers", bootstrap).mode("append").save())

    written = consume(bootstrap, left, 2, 26) + consume(bootstrap, right, 1, 14)
    got = {msg.value(): (msg.topic(), msg.key(), msg.headers()) for msg in written}
    assert got == {b"v%d" % i: (left if i % 3 else right, None if i % 5 == 0 else b"k%d" % i,
                                [("n", b"%d" % i), ("empty", None)] if i % 2 else None)
                   for i in range(40)}


def test_stream_from_a_topic_to_another(spark_kafka, spark_broker, tmp_path):
    """format("kafka") on both ends: key, value and headers copied, every record once, across a restart."""
    bootstrap = spark_broker.bootstrap
    source, target = create_topic(bootstrap, "sk-copy-in", 3), create_topic(bootstrap, "sk-copy-out", 1)

    def run() -> None:
        query = (read_stream(spark_kafka, bootstrap, subscribe=source, startingOffsets="earliest",
                             includeHeaders="true")
                 .selectExpr("key", "value", "headers")
                 .writeStream.format("kafka").option("kafka.bootstrap.servers", bootstrap).option("topic",
                                                                                                  target)
                 .option("checkpointLocation",
                         str(tmp_path / "checkpoint")).trigger(availableNow=True).start())
        assert query.awaitTermination(120), "the availableNow query did not finish in 120 s"
        assert query.exception() is None, query.exception()

    produce(bootstrap, source, [{"key": b"k%d" % i, "value": b"v%d" % i, "headers": [("i", b"%d" % i)]}
                                for i in range(30)])
    run()
    produce(bootstrap, source, [{"key": b"k%d" % i, "value": b"v%d" % i, "headers": [("i", b"%d" % i)]}
                                for i in range(30, 45)])
    run()
    copied = consume(bootstrap, target, 1, 45)
    assert sorted((m.key(), m.value(), tuple(m.headers())) for m in copied) == sorted(
        (b"k%d" % i, b"v%d" % i, (("i", b"%d" % i),)) for i in range(45))


def test_a_stream_on_a_topic_that_does_not_exist_fails(spark_kafka, spark_broker, tmp_path):
    query = (read_stream(spark_kafka, spark_broker.bootstrap, subscribe=unique_topic("sk-nothing"))
             .writeStream.format("noop").option("checkpointLocation", str(tmp_path / "checkpoint")).start())
    try:
        with pytest.raises(Exception, match="UnknownTopicOrPartitionException"):
            query.awaitTermination(60)
        assert not query.isActive
    finally:
        query.stop()


def test_a_broker_stopped_under_a_running_query_and_started_again(spark_kafka, tmp_path):
    """The query reads on from its checkpoint after the broker comes back on the same port: every record once.
    Spark's connector fails the query if the outage outlasts its retries; such a query is started again."""
    broker = BrokerProcess(tmp_path / "broker")
    sink, checkpoint, restarts = BatchesById(), str(tmp_path / "checkpoint"), []
    query = None

    def start():
        return (read_stream(spark_kafka, broker.bootstrap, subscribe=topic, startingOffsets="earliest")
                .writeStream.foreachBatch(sink).option("checkpointLocation", checkpoint)
                .trigger(processingTime="1 second").start())

    def running() -> bool:
        nonlocal query
        # failed while the broker was away: on from the checkpoint, as an operator would
        if not query.isActive:
            restarts.append(str(query.exception())[:300])
            query = start()
        return True

    try:
        topic = create_topic(broker.bootstrap, "sk-outage", 2)
        produce(broker.bootstrap, topic, [{"partition": i % 2, "value": b"a%d" % i} for i in range(20)])
        query = start()
        wait_until(lambda: len(sink.offsets()) == 20 or query.exception(), timeout=120,
                   message="the first 20")
        broker.stop()
        broker = BrokerProcess(tmp_path / "broker", port=broker.port)  # the same log, the same address
        produce(broker.bootstrap, topic, [{"partition": i % 2, "value": b"b%d" % i} for i in range(20)])
        wait_until(lambda: running() and len(sink.offsets()) >= 40, timeout=180, message="all 40 records",
                   interval=0.5)
        assert sink.offsets() == sorted((p, o) for p in range(2) for o in range(20)), restarts
        print(f"restarts after the outage: {restarts}")
    finally:
        if query is not None:
            query.stop()
        broker.stop()
