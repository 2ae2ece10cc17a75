"""Structured Streaming over the broker: the demo's windowed count, its checkpoint, and the sink.

Input is produced with confluent-kafka, output read back with confluent-kafka. Every query runs
with ``trigger(availableNow=True)``: it reads what is there when it starts, then stops, so the
expected results are exact.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime

from kafka.spark.demo.page_view_counts import count_views_per_page, read_page_views, write_window_counts
from kafka.spark.demo.page_view_generator import PAGES
from tests.spark.kafka_io import consume, create_topic, produce

BASE_MS = 1_700_000_000_000  # a multiple of 10 s: windows start at BASE_MS + 10 s * n
WINDOW_MS = WATERMARK_MS = 10_000


def page_views(first: int, count: int) -> list[dict]:
    """View i happens at BASE + i * 500 ms, by user u(i % 7), on a page that cycles unevenly."""
    views = []
    for i in range(first, first + count):
        event_time = datetime.fromtimestamp((BASE_MS + i * 500) / 1000,
                                            UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        user = f"u{i % 7}"
        page = PAGES[(i * i) % len(PAGES)]
        views.append({"key": user.encode(),
                      "value": json.dumps({"user": user, "page": page, "event_time": event_time}),
                      "event_ms": BASE_MS + i * 500, "page": page})
    return views


def closed_window_counts(views: list[dict]) -> Counter:
    """(window start, page) -> views, for the windows the watermark has closed."""
    watermark = max(v["event_ms"] for v in views) - WATERMARK_MS
    counts = Counter()
    for v in views:
        start = v["event_ms"] - v["event_ms"] % WINDOW_MS
        if start + WINDOW_MS <= watermark:
            window = datetime.fromtimestamp(start / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
            counts[(window, v["page"])] += 1
    return counts


def run_once(query) -> int:
    """Wait for an availableNow query; the number of input rows it read."""
    assert query.awaitTermination(60), "the availableNow query did not stop within 60 s"
    assert query.exception() is None
    return sum(p["numInputRows"] for p in query.recentProgress)


def test_windowed_counts_are_exact_and_a_restart_reads_only_new_records(spark, spark_broker, tmp_path):
    bootstrap = spark_broker.bootstrap
    views, counts = create_topic(bootstrap, "views", 3), create_topic(bootstrap, "counts", 1)
    checkpoint = str(tmp_path / "checkpoint")

    def start():
        return write_window_counts(count_views_per_page(read_page_views(spark, bootstrap, views)),
                                   bootstrap, counts, checkpoint).trigger(availableNow=True).start()

    first = page_views(0, 60)  # event times 0 s .. 29.5 s: the watermark (19.5 s) closes [0 s, 10 s)
    produce(bootstrap, views, [{"key": v["key"], "value": v["value"]} for v in first])
    assert run_once(start()) == 60

    second = page_views(60, 40)  # 30 s .. 49.5 s: the watermark (39.5 s) closes [10 s, 20 s) and [20 s, 30 s)
    produce(bootstrap, views, [{"key": v["key"], "value": v["value"]} for v in second])
    assert run_once(start()) == 40  # from the checkpoint: only the new records

    expected = closed_window_counts(first + second)
    assert {w for w, _ in expected} == {"2023-11-14T22:13:20.000Z", "2023-11-14T22:13:30.000Z",
                                        "2023-11-14T22:13:40.000Z"}
    written = [json.loads(m.value()) for m in consume(bootstrap, counts, 1, expected=len(expected))]
    assert Counter({(w["window_start"], w["page"]): w["views"] for w in written}) == expected
    assert all(m["window_end"] > m["window_start"] for m in written)


def test_max_offsets_per_trigger_splits_the_stream_and_the_sink_writes_every_record(spark, spark_broker,
                                                                                    tmp_path):
    bootstrap = spark_broker.bootstrap
    source, sink = create_topic(bootstrap, "in", 3), create_topic(bootstrap, "out", 2)
    records = [{"key": f"k{i}".encode(), "value": f"v{i}".encode()} for i in range(30)]
    produce(bootstrap, source, records)

    events = read_page_views(spark, bootstrap, source, max_offsets_per_trigger=10)
    query = (events.select("key", "value").writeStream.format("kafka-teaching")
             .option("kafka.bootstrap.servers", bootstrap).option("topic", sink)
             .option("checkpointLocation", str(tmp_path / "checkpoint"))
             .trigger(availableNow=True).start())
    assert run_once(query) == 30
    batches = [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]
    assert len(batches) >= 3 and max(batches) <= 10, batches

    written = consume(bootstrap, sink, 2, expected=30)
    assert sorted((m.key(), m.value()) for m in written) == sorted((r["key"], r["value"]) for r in records)
