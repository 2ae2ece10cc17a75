"""Spark's own Kafka connector (spark-sql-kafka-0-10 on the Java client, ``format("kafka")``) reading from the
broker in batch: subscribe, subscribePattern and assign; starting and ending offsets as earliest, latest,
JSON and timestamps; headers; read_committed over aborted transactions; a topic that does not exist.

The input comes from confluent-kafka (librdkafka), so both ends are real clients and neither is ours. The
connector's jars are on the session's classpath (tests/spark/conftest.py, tests/jvm/spark_kafka.py).
"""

from __future__ import annotations

import json
import time

import pytest
from confluent_kafka import Producer

from kafka.clients.admin import AdminClient, NewTopic
from tests.helpers import unique_topic
from tests.spark.kafka_io import create_topic, produce

pytestmark = pytest.mark.timeout(240)  # the first test also starts the session

BASE_MS = 1_700_000_000_000


def read(spark, bootstrap, **options):
    reader = spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap)
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


def offsets(rows) -> list[tuple[str, int, int]]:
    return sorted((r.topic, r.partition, r.offset) for r in rows)


@pytest.fixture(scope="module")
def three_partitions(spark_broker):
    """30 keyed records, 10 a partition, record i at offset i // 3 of partition i % 3 with timestamp
    BASE_MS + i s."""
    topic = create_topic(spark_broker.bootstrap, "sk-read", 3)
    produce(spark_broker.bootstrap, topic, [{"partition": i % 3, "key": b"k%d" % i, "value": b"v%d" % i,
                                             "timestamp": BASE_MS + 1000 * i} for i in range(30)])
    return topic


def test_subscribe_reads_every_record_with_kafka_s_schema(spark_kafka, spark_broker, three_partitions):
    rows = read(spark_kafka, spark_broker.bootstrap, subscribe=three_partitions).collect()
    assert offsets(rows) == sorted((three_partitions, i % 3, i // 3) for i in range(30))
    by_value = {bytes(r.value): r for r in rows}
    assert set(by_value) == {b"v%d" % i for i in range(30)}
    v7 = by_value[b"v7"]
    assert (bytes(v7.key), v7.partition, v7.offset, v7.timestampType) == (b"k7", 1, 2, 0)
    assert int(v7.timestamp.timestamp() * 1000) == BASE_MS + 7000  # the session clock is UTC


def test_subscribe_pattern_and_assign(spark_kafka, spark_broker):
    bootstrap = spark_broker.bootstrap
    prefix = unique_topic("sk-pattern")
    a, b = f"{prefix}-a", f"{prefix}-b"
    for topic in (a, b):
        with AdminClient({"bootstrap.servers": bootstrap}) as admin:
            admin.create_topics([NewTopic(topic, 2, 1)])
        produce(bootstrap, topic, [{"partition": i % 2, "value": f"{topic}/{i}".encode()} for i in range(6)])

    pattern = read(spark_kafka, bootstrap, subscribePattern=f"{prefix}-.*").collect()
    assert offsets(pattern) == sorted((t, p, o) for t in (a, b) for p in (0, 1) for o in range(3))

    assigned = read(spark_kafka, bootstrap, assign=json.dumps({a: [1], b: [0]})).collect()
    assert offsets(assigned) == sorted([(a, 1, o) for o in range(3)] + [(b, 0, o) for o in range(3)])


def test_starting_and_ending_offsets(spark_kafka, spark_broker, three_partitions):
    bootstrap, topic = spark_broker.bootstrap, three_partitions
    explicit = read(spark_kafka, bootstrap, subscribe=topic,
                    startingOffsets=json.dumps({topic: {"0": 2, "1": -2, "2": 9}}),
                    endingOffsets=json.dumps({topic: {"0": 5, "1": 3, "2": -1}})).collect()
    assert offsets(explicit) == sorted([(topic, 0, o) for o in range(2, 5)] + [(topic, 1, o)
                                                                               for o in range(3)]
                                       + [(topic, 2, 9)])
    earliest_latest = read(spark_kafka, bootstrap, subscribe=topic, startingOffsets="earliest",
                           endingOffsets="latest").count()
    assert earliest_latest == 30
    # Spark refuses these two for a batch query itself, before asking the broker anything.
    with pytest.raises(Exception, match="starting offset can't be latest for batch queries"):
        read(spark_kafka, bootstrap, subscribe=topic, startingOffsets="latest").count()
    with pytest.raises(Exception, match="ending offset can't be earliest for batch queries"):
        read(spark_kafka, bootstrap, subscribe=topic, endingOffsets="earliest").count()


def test_starting_offsets_by_timestamp(spark_kafka, spark_broker, three_partitions):
    """ListOffsets by timestamp: the first offset whose record is at or after the timestamp, per partition."""
    bootstrap, topic = spark_broker.bootstrap, three_partitions
    # Partition 0 holds i = 0, 3, ..., 27 at offsets 0..9; i = 12 is its offset 4. Partition 1 from
    # i = 22 (offset 7); partition 2 from its earliest.
    by_timestamp = json.dumps({topic: {"0": BASE_MS + 12_000, "1": BASE_MS + 20_500, "2": BASE_MS - 1}})
    rows = read(spark_kafka, bootstrap, subscribe=topic, startingOffsetsByTimestamp=by_timestamp,
                endingOffsetsByTimestamp=json.dumps({topic: {"0": BASE_MS + 21_000, "1": BASE_MS + 99_000,
                                                             "2": BASE_MS + 6_000}})).collect()
    assert offsets(rows) == sorted([(topic, 0, o) for o in range(4, 7)] + [(topic, 1, o)
                                                                           for o in range(7, 10)]
                                   + [(topic, 2, o) for o in range(0, 2)])
    # A starting timestamp no record reaches: Spark's error (startingOffsetsByTimestampStrategy=error).
    with pytest.raises(Exception, match="No offset matched from request"):
        read(spark_kafka, bootstrap, subscribe=topic, startingTimestamp=str(BASE_MS + 999_000)).count()


def test_include_headers(spark_kafka, spark_broker):
    bootstrap = spark_broker.bootstrap
    topic = create_topic(bootstrap, "sk-headers", 1)
    produce(bootstrap, topic, [
        {"value": b"two", "headers": [("trace", b"t-1"), ("trace", b"t-2")]},
        {"value": b"null-header", "headers": [("empty", None)]},
        {"value": b"none"}])
    rows = read(spark_kafka, bootstrap, subscribe=topic, includeHeaders="true").collect()
    headers = {bytes(r.value): [(h.key, None if h.value is None else bytes(h.value)) for h in r.headers or []]
               for r in rows}
    assert headers == {b"two": [("trace", b"t-1"), ("trace", b"t-2")], b"null-header": [("empty", None)],
                       b"none": []}


def test_read_committed_skips_aborted_transactions(spark_kafka, spark_broker):
    """librdkafka's transactional producer: committed, aborted, committed, and one left open while Spark
    reads."""
    bootstrap = spark_broker.bootstrap
    topic = create_topic(bootstrap, "sk-rc", 1)
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": unique_topic("sk-txn")})
    producer.init_transactions(30)
    for values, commit in (([b"c0", b"c1", b"c2"], True), ([b"a0", b"a1"], False), ([b"c3", b"c4"], True)):
        producer.begin_transaction()
        for value in values:
            producer.produce(topic, value, partition=0)
        producer.flush(30)
        producer.commit_transaction(30) if commit else producer.abort_transaction(30)
    producer.begin_transaction()
    producer.produce(topic, b"open", partition=0)
    producer.flush(30)
    try:
        committed = read(spark_kafka, bootstrap, subscribe=topic,
                         **{"kafka.isolation.level": "read_committed"}).collect()
        # c0-c2 at 0-2, COMMIT 3, a0 a1 4-5, ABORT 6, c3 c4 7-8, COMMIT 9, open 10: the batch ends at the LSO.
        assert [(r.offset, bytes(r.value)) for r in committed] == [
            (0, b"c0"), (1, b"c1"), (2, b"c2"), (7, b"c3"), (8, b"c4")]
        uncommitted = read(spark_kafka, bootstrap, subscribe=topic).collect()
        assert [bytes(r.value) for r in uncommitted] == [b"c0", b"c1", b"c2", b"a0", b"a1", b"c3", b"c4",
                                                         b"open"]
    finally:
        producer.abort_transaction(30)


@pytest.mark.parametrize("option", ["subscribe", "assign"])
def test_a_topic_that_does_not_exist_fails_with_spark_s_error(spark_kafka, spark_broker, option):
    """Spark's own error, in seconds, not a hang; and the broker does not create the topic behind its back."""
    bootstrap = spark_broker.bootstrap
    missing = unique_topic("sk-missing")
    value = missing if option == "subscribe" else json.dumps({missing: [0]})
    started = time.monotonic()
    # The driver's AdminClient describes the topic (Metadata, no auto-creation): Spark retries three
    # times a second apart (fetchOffset.numRetries) and fails with the Java client's exception.
    with pytest.raises(Exception, match="UnknownTopicOrPartitionException"):
        read(spark_kafka, bootstrap, **{option: value}).collect()
    took = time.monotonic() - started
    assert took < 30, f"the query took {took:.0f} s to fail"
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        assert missing not in admin.list_topics()
