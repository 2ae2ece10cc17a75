"""Batch reads and writes through the ``kafka-teaching`` source, against a real broker."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from tests.spark.kafka_io import consume, create_topic, produce

BASE_MS = 1_700_000_000_000


def read(spark, bootstrap, **options):
    reader = spark.read.format("kafka-teaching").option("kafka.bootstrap.servers", bootstrap)
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


def test_batch_read_between_explicit_offsets_returns_exactly_those_records(spark, spark_broker):
    topic = create_topic(spark_broker.bootstrap, "batch", 3)
    produce(spark_broker.bootstrap, topic, [
        {"partition": p, "key": f"k{p}-{i}".encode(), "value": f"v{p}-{i}".encode(), "timestamp": BASE_MS + i}
        for p in range(3) for i in range(10)])

    # Partition 0 from 2 to 7, partition 1 from the start (-2) to 4, partition 2 from 5 to the end (-1).
    df = read(spark, spark_broker.bootstrap, subscribe=topic,
              startingOffsets=json.dumps({topic: {"0": 2, "1": -2, "2": 5}}),
              endingOffsets=json.dumps({topic: {"0": 7, "1": 4, "2": -1}}))
    rows = df.collect()

    assert df.columns == ["key", "value", "topic", "partition", "offset", "timestamp", "timestampType"]
    expected = {(p, i) for p, lo, hi in ((0, 2, 7), (1, 0, 4), (2, 5, 10)) for i in range(lo, hi)}
    assert sorted((r.partition, r.offset) for r in rows) == sorted(expected)
    for r in rows:
        assert (r.topic, bytes(r.key), bytes(r.value)) == (topic, f"k{r.partition}-{r.offset}".encode(),
                                                           f"v{r.partition}-{r.offset}".encode())
        assert r.timestamp.replace(tzinfo=UTC) == datetime.fromtimestamp((BASE_MS + r.offset) / 1000, UTC)
        assert r.timestampType == 0  # CreateTime: the producer's timestamp

    # The same range read again gives the same records: read() is deterministic.
    assert sorted(map(tuple, df.collect())) == sorted(map(tuple, rows))


def test_assign_pattern_and_headers(spark, spark_broker):
    topic = create_topic(spark_broker.bootstrap, "hdr", 2)
    produce(spark_broker.bootstrap, topic, [
        {"partition": 1, "value": b"a", "headers": [("trace", b"t1"), ("empty", None)]},
        {"partition": 0, "value": b"b"}])

    assigned = read(spark, spark_broker.bootstrap, assign=json.dumps({topic: [1]}),
                    includeHeaders="true").collect()
    assert len(assigned) == 1 and bytes(assigned[0].value) == b"a" and assigned[0].key is None
    assert [(h.key, h.value and bytes(h.value)) for h in assigned[0].headers] == [("trace", b"t1"),
                                                                                  ("empty", None)]

    by_pattern = read(spark, spark_broker.bootstrap, subscribePattern=topic.replace("hdr-", "h.r-")).collect()
    assert sorted(bytes(r.value) for r in by_pattern) == [b"a", b"b"]


@pytest.mark.parametrize(("options", "message"), [
    ({"subscribe": "t", "startingOffsets": "latest"}, "starting offset can't be latest for batch queries"),
    ({"subscribe": "t", "minPartitions": "0"}, "minPartitions must be positive"),
])
def test_bad_options_reach_the_user_with_a_message_that_names_them(spark, spark_broker, options, message):
    # The rest of the option checks are in test_offsets.py, without a Spark round trip each.
    with pytest.raises(Exception, match=message):
        read(spark, spark_broker.bootstrap, **options).collect()


def test_batch_write_sends_key_value_and_topic_columns(spark, spark_broker):
    topic = create_topic(spark_broker.bootstrap, "bw", 2)
    df = spark.createDataFrame([(f"k{i}", f"v{i}", topic) for i in range(20)],
                               "key string, value string, topic string")
    # Spark's Kafka sink also accepts the default mode; a Python data source needs append spelled out.
    df.write.format("kafka-teaching").mode("append").option("kafka.bootstrap.servers",
                                                            spark_broker.bootstrap).save()

    records = consume(spark_broker.bootstrap, topic, 2, expected=20)
    expected = [(f"k{i}".encode(), f"v{i}".encode()) for i in range(20)]
    assert sorted((m.key(), m.value()) for m in records) == sorted(expected)


def test_write_without_a_value_column_is_refused(spark, spark_broker):
    df = spark.createDataFrame([("k",)], "key string")
    with pytest.raises(Exception, match="Required attribute 'value' not found"):
        (df.write.format("kafka-teaching").mode("append")
         .option("kafka.bootstrap.servers", spark_broker.bootstrap).option("topic", "x").save())
