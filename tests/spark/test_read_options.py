"""Spark's read options through a SparkSession: read_committed over a real transactional producer,
and a batch between two timestamps split over more tasks than the topic has partitions."""

from __future__ import annotations

from kafka.clients.producer import KafkaProducer
from tests.helpers import unique_topic
from tests.spark.kafka_io import create_topic, produce

BASE_MS = 1_700_000_000_000


def read(spark, bootstrap, **options):
    reader = spark.read.format("kafka-teaching").option("kafka.bootstrap.servers", bootstrap)
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


def test_read_committed_batch_returns_committed_records_only(spark, spark_broker):
    bootstrap = spark_broker.bootstrap
    topic = create_topic(bootstrap, "rc", 1)
    producer = KafkaProducer({"bootstrap.servers": bootstrap, "transactional.id": unique_topic("spark-txn")})
    try:
        producer.init_transactions()
        for values, commit in (([b"c0", b"c1", b"c2"], True), ([b"a0", b"a1"], False),
                               ([b"c3", b"c4"], True)):
            producer.begin_transaction()
            for value in values:
                producer.send(topic, value)
            producer.flush()
            producer.commit_transaction() if commit else producer.abort_transaction()
        producer.begin_transaction()
        producer.send(topic, b"open")  # a transaction still open while Spark reads
        producer.flush()

        committed = read(spark, bootstrap, subscribe=topic,
                         **{"kafka.isolation.level": "read_committed"}).collect()
        # Offsets: c0-c2 0-2, COMMIT marker 3, a0 a1 4-5, ABORT marker 6, c3 c4 7-8, COMMIT 9, open 10.
        # Markers and the aborted records are skipped; the open one is past the LSO (10), the batch's end.
        assert [(r.offset, bytes(r.value)) for r in committed] == [
            (0, b"c0"), (1, b"c1"), (2, b"c2"), (7, b"c3"), (8, b"c4")]

        uncommitted = read(spark, bootstrap, subscribe=topic).collect()
        assert [bytes(r.value) for r in uncommitted] == [b"c0", b"c1", b"c2", b"a0", b"a1", b"c3", b"c4",
                                                         b"open"]
        producer.abort_transaction()
    finally:
        producer.close()


def test_batch_between_timestamps_split_by_min_partitions(spark, spark_broker):
    bootstrap = spark_broker.bootstrap
    topic = create_topic(bootstrap, "tsb", 2)
    produce(bootstrap, topic, [{"partition": i % 2, "value": b"v%d" % i, "timestamp": BASE_MS + 1000 * i}
                               for i in range(20)])

    df = read(spark, bootstrap, subscribe=topic, startingTimestamp=str(BASE_MS + 4000),
              endingOffsetsByTimestamp=f'{{"{topic}": {{"0": {BASE_MS + 16_000}, "1": {BASE_MS + 30_000}}}}}',
              minPartitions="5")
    # Partition 0 holds even i at offset i/2, partition 1 odd i: from i=4 on, until i=16 in 0 and the end in
    # 1.
    assert df.rdd.getNumPartitions() == 5
    assert sorted(bytes(r.value) for r in df.collect()) == sorted(
        [b"v%d" % i for i in range(4, 16, 2)] + [b"v%d" % i for i in range(5, 20, 2)])
