"""KafkaWriteTask on Arrow record batches, as Spark hands them to the sink, against a real broker
(read back with confluent-kafka); test_kafka_source.py writes through Spark itself."""

from __future__ import annotations

import pyarrow as pa
import pytest
from pyspark.sql.types import BinaryType, IntegerType, StringType, StructField, StructType

from kafka.spark.kafka_record_to_row_converter import HEADERS_TYPE
from kafka.spark.kafka_write_task import KafkaWriteTask
from kafka.spark.kafka_writer import validate_query
from tests.spark.kafka_io import consume, create_topic

SCHEMA = StructType([StructField("topic", StringType()), StructField("key", BinaryType()),
                     StructField("value", StringType()), StructField("headers", HEADERS_TYPE),
                     StructField("partition", IntegerType())])
HEADERS = pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())]))


def batch(topic, rows) -> pa.RecordBatch:
    topics, keys, values, headers, partitions = zip(*rows, strict=True)
    return pa.RecordBatch.from_arrays(
        [pa.array(topics, pa.string()), pa.array(keys, pa.binary()), pa.array(values, pa.string()),
         pa.array(headers, HEADERS), pa.array(partitions, pa.int32())],
        names=["topic", "key", "value", "headers", "partition"])


def test_every_column_of_every_batch_is_sent(spark_broker):
    bootstrap = spark_broker.bootstrap
    topic = create_topic(bootstrap, "wt", 3)
    rows = [(topic, None if i % 4 == 0 else b"k%d" % i, f"v{i}",
             [{"key": "n", "value": b"%d" % i}, {"key": "none", "value": None}] if i % 3 == 0 else None,
             i % 3)
            for i in range(3000)]
    task = KafkaWriteTask({"bootstrap.servers": bootstrap}, validate_query(SCHEMA, None), None)
    assert task.execute([batch(topic, rows[:1000]), batch(topic, rows[1000:])]) == 3000

    written = consume(bootstrap, topic, 3, expected=3000)
    got = sorted((int(m.value()[1:]), m.partition(), m.key(), m.headers()) for m in written)
    assert got == [(i, i % 3, k, [(h["key"], h["value"]) for h in hs] if hs else None)
                   for i, (_, k, _, hs, _) in enumerate(rows)]


def test_a_null_topic_without_the_topic_option_fails_the_task(spark_broker):
    task = KafkaWriteTask({"bootstrap.servers": spark_broker.bootstrap}, validate_query(SCHEMA, None), None)
    with pytest.raises(ValueError, match="null topic present in the data"):
        task.execute([batch(None, [(None, None, "v", None, 0)])])
