"""The streaming job: views per page in 10-second event-time windows, from one topic to another.

Everything here is plain Structured Streaming against Spark's Kafka schema; the format name is a
parameter. With ``fmt="kafka"`` and Spark's spark-sql-kafka package on the classpath the same
code runs on Spark's own connector (docs/spark.md says what changes; it was not run here).

The windows use *event time*, the time inside each JSON value, not the time the record reached
Kafka. The watermark (the newest event time seen, minus ``watermark``) tells Spark when a window
can get no more events; in ``append`` mode a window's count is written once, when the watermark
passes the window's end. The state of the open windows lives in the checkpoint, so a restarted
query picks up its open windows as well as its offsets.
"""

from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.functions import col, from_json, struct, to_json, window
from pyspark.sql.streaming import DataStreamWriter

PAGE_VIEW_SCHEMA = "user STRING, page STRING, event_time TIMESTAMP"


def read_page_views(spark: SparkSession, bootstrap_servers: str, topic: str, fmt: str = "kafka-teaching",
                    starting_offsets: str = "earliest",
                    max_offsets_per_trigger: int | None = None) -> DataFrame:
    reader = (spark.readStream.format(fmt)
              .option("kafka.bootstrap.servers", bootstrap_servers)
              .option("subscribe", topic)
              .option("startingOffsets", starting_offsets))
    if max_offsets_per_trigger is not None:
        reader = reader.option("maxOffsetsPerTrigger", max_offsets_per_trigger)
    return reader.load()


def count_views_per_page(events: DataFrame, window_duration: str = "10 seconds",
                         watermark: str = "10 seconds") -> DataFrame:
    """Kafka rows (value = JSON page view) -> Kafka rows (key = page, value = JSON window count)."""
    views = events.select(from_json(col("value").cast("string"),
                                    PAGE_VIEW_SCHEMA).alias("view")).select("view.*")
    counts = (views.withWatermark("event_time", watermark)
              .groupBy(window("event_time", window_duration), col("page"))
              .count())
    return counts.select(
        col("page").alias("key"),
        to_json(struct(col("window.start").alias("window_start"), col("window.end").alias("window_end"),
                       col("page"), col("count").alias("views"))).alias("value"))


def write_window_counts(counts: DataFrame, bootstrap_servers: str, topic: str, checkpoint: str,
                        fmt: str = "kafka-teaching") -> DataStreamWriter:
    """The sink, not yet started: the caller picks the trigger."""
    return (counts.writeStream.format(fmt)
            .option("kafka.bootstrap.servers", bootstrap_servers)
            .option("topic", topic)
            .option("checkpointLocation", checkpoint)
            .outputMode("append"))
