"""Stopping a streaming query (``query.stop()``) and starting it again from its checkpoint resumes
exactly where it stopped: every record produced before, during and after the first run is read
once, by offset. The sink is Spark's file sink, which is exactly-once itself (its ``_spark_metadata``
log keeps a replayed batch from being written twice), so any duplicate or gap is the source's.
"""

from __future__ import annotations

from tests.helpers import wait_until
from tests.spark.kafka_io import create_topic, produce

MAX_OFFSETS_PER_TRIGGER = 8


def rows_read(query) -> int:
    return sum(p["numInputRows"] for p in query.recentProgress)


def test_a_stopped_query_restarts_from_its_checkpoint_and_reads_every_record_once(spark, spark_broker,
                                                                                  tmp_path):
    bootstrap = spark_broker.bootstrap
    topic = create_topic(bootstrap, "resume", 3)
    out, checkpoint = str(tmp_path / "out"), str(tmp_path / "checkpoint")

    def records(first: int, count: int) -> list[dict]:
        return [{"key": b"k%d" % i, "value": b"v%d" % i} for i in range(first, first + count)]

    def start(**trigger):
        events = (spark.readStream.format("kafka-teaching").option("kafka.bootstrap.servers", bootstrap)
                  .option("subscribe", topic).option("startingOffsets", "earliest")
                  .option("maxOffsetsPerTrigger", MAX_OFFSETS_PER_TRIGGER).load())
        return (events.select("partition", "offset", "value").writeStream.format("parquet")
                .option("path", out).option("checkpointLocation", checkpoint).trigger(**trigger).start())

    produce(bootstrap, topic, records(0, 40))
    query = start(processingTime="100 milliseconds")
    try:
        wait_until(lambda: query.exception() is not None or rows_read(query) > 0, timeout=120,
                   message="the first micro-batch")
        assert query.exception() is None
        produce(bootstrap, topic, records(40, 10))  # while the query runs
    finally:
        query.stop()  # interrupts the query wherever it is: between batches or inside one
    first_run = len(spark.read.parquet(out).collect())  # only the batches the sink committed

    produce(bootstrap, topic, records(50, 15))  # while it is stopped
    again = start(availableNow=True)
    assert again.awaitTermination(120), "the restarted query did not finish within 120 s"
    assert again.exception() is None

    rows = spark.read.parquet(out).collect()
    offsets = sorted((r.partition, r.offset) for r in rows)
    assert len(offsets) == len(set(offsets)) == 65, f"{len(offsets)} rows, {len(set(offsets))} distinct"
    assert sorted(bytes(r.value) for r in rows) == sorted(b"v%d" % i for i in range(65))
    # The restart began at the checkpoint, not at startingOffsets: it read what the first run had
    # not committed (plus, at most, the one batch the stop interrupted, replayed with the same offsets).
    assert 65 - first_run <= rows_read(again) <= 65 - first_run + MAX_OFFSETS_PER_TRIGGER, (first_run,
                                                                                            rows_read(again))
