"""Lab 10, Spark Structured Streaming over the broker (docs/labs/10-spark.md): `committed_offsets` in
kafka/spark/demo/checkpoint_offsets.py, a streaming query's position read from its checkpoint's
offsets/ and commits/, first on checkpoint files written as Spark writes them, then on a real
query's checkpoint against a real broker's log end offsets.

Seed 002: consumers read a partition by offset, and it is the consumer, not the broker, that
remembers how far it has read. A Spark query remembers in its checkpoint: offsets/N holds the end
offsets of batch N before it runs, commits/N says it is done.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.producer import KafkaProducer
from kafka.spark.demo.checkpoint_offsets import committed_offsets
from kafka.utils.topic_partition import TopicPartition

# What Spark 4 writes (the conf line shortened): the version, the batch's metadata, one line per source.
METADATA = {"batchWatermarkMs": 0, "batchTimestampMs": 1795579728003,
            "conf": {"spark.sql.shuffle.partitions": "2"}}


def write_batch(checkpoint, batch_id: int, source: dict, committed: bool = True) -> None:
    """offsets/N (and commits/N if ``committed``), in Spark's OffsetSeqLog and CommitLog formats."""
    (checkpoint / "offsets").mkdir(parents=True, exist_ok=True)
    (checkpoint / "commits").mkdir(parents=True, exist_ok=True)
    (checkpoint / "offsets" / str(batch_id)).write_text(f"v1\n{json.dumps(METADATA)}\n{json.dumps(source)}")
    (checkpoint / "offsets" / f".{batch_id}.crc").write_bytes(b"crc\0")
    if committed:
        (checkpoint / "commits" / str(batch_id)).write_text('v1\n{"nextBatchWatermarkMs":0}')


def views(p0: int, p1: int, p2: int) -> dict:
    return {"page-views": {"2": p2, "1": p1, "0": p0}}  # Spark's order is its own: not sorted


def test_the_position_is_the_last_committed_batch(tmp_path):
    """the position is the end offsets of the last committed batch, one offset per TopicPartition"""
    for batch_id, ends in enumerate([(0, 0, 0), (5, 3, 4), (9, 7, 8)]):
        write_batch(tmp_path, batch_id, views(*ends))
    batch = committed_offsets(tmp_path)
    assert batch is not None, "three batches are committed: the position is batch 2's"
    assert batch.batch_id == 2, f"batch 2 is the last committed, not {batch.batch_id}"
    assert batch.offsets == {TopicPartition("page-views", 0): 9, TopicPartition("page-views", 1): 7,
                             TopicPartition("page-views",
                                            2): 8}, f"batch 2's end offsets, got {batch.offsets}"


def test_a_batch_not_committed_is_run_again(tmp_path):
    """a batch in offsets/ without its commits/ file is not the position: a restart runs it again"""
    write_batch(tmp_path, 0, views(4, 4, 4))
    write_batch(tmp_path, 1, views(10, 10, 10), committed=False)  # the query died while batch 1 ran
    batch = committed_offsets(tmp_path)
    assert batch is not None and batch.batch_id == 0, "offsets/1 has no commits/1: batch 0 is the last done"
    assert set(batch.offsets.values()) == {4}, f"batch 0 ended at 4 in each partition, got {batch.offsets}"


def test_batch_ids_are_numbers(tmp_path):
    """batch ids are numbers, not names: batch 10 comes after batch 9"""
    for batch_id in range(11):
        write_batch(tmp_path, batch_id, views(batch_id, batch_id, batch_id))
    batch = committed_offsets(tmp_path)
    assert batch is not None and batch.batch_id == 10, "'10' < '9' as strings; as batch ids 10 > 9"
    assert batch.offsets[TopicPartition("page-views", 0)] == 10


def test_several_topics_and_partition_ten(tmp_path):
    """every topic and partition of the source's offset is read, partition numbers as ints"""
    write_batch(tmp_path, 0, {"a": {"10": 100, "2": 20}, "b": {"0": 7}})
    batch = committed_offsets(tmp_path)
    assert batch is not None
    assert batch.offsets == {TopicPartition("a", 10): 100, TopicPartition("a", 2): 20,
                             TopicPartition("b", 0): 7}


def test_a_new_query_has_no_position(tmp_path):
    """a checkpoint with no committed batch
    (a new query, or one that died in its first batch) has no position"""
    assert committed_offsets(tmp_path / "never-started") is None
    write_batch(tmp_path, 0, views(3, 3, 3), committed=False)
    assert committed_offsets(tmp_path) is None


@pytest.fixture(scope="module")
def lab_spark():
    """One session for the module's real queries, with Spark's own Kafka connector on its classpath
    (resolved by Maven, tests/jvm/spark_kafka.py) beside ours; None, and the reason, if it is missing."""
    pytest.importorskip("pyspark", reason="the Spark check needs the spark extra: pip install -e '.[spark]'")
    from kafka.spark.local_spark_session import local_spark_session, stop_spark_session
    from tests.jvm.spark_kafka import spark_conf

    conf, missing = spark_conf()
    spark = local_spark_session("lab10-check", conf=conf)
    try:
        yield spark, missing
    finally:
        stop_spark_session(spark)


def lab_topic(bootstrap: str, topic: str) -> Callable[[int], dict[TopicPartition, int]]:
    """Create ``topic`` (3 partitions); a function that produces n records round the partitions and
    returns the log end offsets."""
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        admin.create_topics([NewTopic(topic, 3, 1)])

    def produce(count: int) -> dict[TopicPartition, int]:
        with KafkaProducer({"bootstrap.servers": bootstrap}) as producer:
            for i in range(count):
                producer.send(topic, f"view {i}".encode(), partition=i % 3)
            producer.flush(30)
        with AdminClient({"bootstrap.servers": bootstrap}) as admin:
            ends = admin.list_offsets({TopicPartition(topic, p): "latest" for p in range(3)})
        return {tp: offset for tp, (offset, _) in ends.items()}

    return produce


def run_query(spark, fmt: str, bootstrap: str, topic: str, checkpoint, **options) -> None:
    """The lab's query, to Spark's noop sink, until it has read what is there (availableNow)."""
    reader = (spark.readStream.format(fmt).option("kafka.bootstrap.servers", bootstrap)
              .option("subscribe", topic).option("startingOffsets", "earliest"))
    for key, value in options.items():
        reader = reader.option(key, value)
    query = (reader.load().writeStream.format("noop").option("checkpointLocation", str(checkpoint))
             .trigger(availableNow=True).start())
    assert query.awaitTermination(90), f"the availableNow query on format({fmt!r}) did not finish in 90 s"
    assert query.exception() is None, query.exception()


@pytest.mark.timeout(240)  # Spark starts a JVM and Python workers: a minute under load
def test_a_real_query_s_checkpoint_matches_the_log_end_offsets(lab_spark, broker, tmp_path):
    """a real Spark query's checkpoint, read with committed_offsets,
    equals the log end offsets, and moves on after a restart"""
    spark, _ = lab_spark
    bootstrap, topic = broker.bootstrap, "lab10"
    produce = lab_topic(bootstrap, topic)

    ends = produce(30)
    run_query(spark, "kafka-teaching", bootstrap, topic, tmp_path / "checkpoint")
    first = committed_offsets(tmp_path / "checkpoint")
    assert first is not None, "the query committed a batch: its checkpoint has a position"
    assert first.offsets == ends, f"the checkpoint says {first.offsets}, the log end offsets are {ends}"

    ends = produce(12)
    run_query(spark, "kafka-teaching", bootstrap, topic, tmp_path / "checkpoint")
    second = committed_offsets(tmp_path / "checkpoint")
    assert second is not None and second.batch_id > first.batch_id, (
        "the restarted query committed a new batch")
    assert second.offsets == ends, f"after the restart the checkpoint says {second.offsets}, the log {ends}"


@pytest.mark.timeout(240)
def test_spark_s_own_connector_keeps_the_same_offsets(lab_spark, broker, tmp_path):
    """step 6: the same query on Spark's own connector, format("kafka"),
    leaves the same Kafka offsets in its checkpoint, batch by batch"""
    spark, missing = lab_spark
    if missing is not None:
        pytest.fail(f"step 6 needs Spark's own Kafka connector: {missing}", pytrace=False)
    bootstrap, topic = broker.bootstrap, "lab10-both"
    ends = lab_topic(bootstrap, topic)(21)
    for fmt, checkpoint in (("kafka-teaching", "ours"), ("kafka", "sparks")):
        run_query(spark, fmt, bootstrap, topic, tmp_path / checkpoint, maxOffsetsPerTrigger="4")
    ours, sparks = committed_offsets(tmp_path / "ours"), committed_offsets(tmp_path / "sparks")
    assert ours is not None and sparks is not None, "both queries committed batches"
    assert sparks.offsets == ours.offsets == ends, (
        f"Spark's connector's checkpoint says {sparks.offsets}, ours {ours.offsets}, the log end offsets "
        f"{ends}")
    assert sparks.batch_id == ours.batch_id, (
        f"maxOffsetsPerTrigger 4 cut both streams alike: batch {sparks.batch_id} against {ours.batch_id}")
    for batch_id in range(ours.batch_id + 1):  # each batch ended at the same offsets: the same last line
        theirs = (tmp_path / "sparks" / "offsets" / str(batch_id)).read_text().splitlines()[-1]
        mine = (tmp_path / "ours" / "offsets" / str(batch_id)).read_text().splitlines()[-1]
        assert json.loads(theirs) == json.loads(mine), f"offsets/{batch_id}: Spark's {theirs}, ours {mine}"
