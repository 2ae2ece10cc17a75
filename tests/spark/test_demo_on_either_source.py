"""The demo's job on either source: the same page views, read and written once with ours (``kafka-teaching``)
and once with Spark's own connector (``kafka``), give the same window counts; and the two checkpoints hold
the same Kafka offsets, batch after batch (lab 10's step 6).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from kafka.spark.demo.checkpoint_offsets import committed_offsets
from kafka.spark.demo.page_view_counts import count_views_per_page, read_page_views, write_window_counts
from tests.spark.kafka_io import consume, create_topic, produce
from tests.spark.test_structured_streaming import closed_window_counts, page_views

pytestmark = pytest.mark.timeout(480)  # four queries; a minute on a quiet machine, minutes on a busy one

FORMATS = ("kafka-teaching", "kafka")


def test_both_sources_count_the_same_windows_from_the_same_offsets(spark_kafka, spark_broker, tmp_path):
    bootstrap = spark_broker.bootstrap
    views = create_topic(bootstrap, "either-views", 3)
    counts = {fmt: create_topic(bootstrap, f"either-counts-{fmt}", 1) for fmt in FORMATS}

    def run(fmt: str) -> int:
        events = read_page_views(spark_kafka, bootstrap, views, fmt=fmt, max_offsets_per_trigger=25)
        query = write_window_counts(count_views_per_page(events), bootstrap, counts[fmt],
                                    str(tmp_path / fmt), fmt=fmt).trigger(availableNow=True).start()
        assert query.awaitTermination(180), (
            f"the availableNow query on format({fmt!r}) did not stop within 180 s")
        assert query.exception() is None, query.exception()
        return sum(p["numInputRows"] for p in query.recentProgress)

    first, second = page_views(0, 60), page_views(60, 40)
    produce(bootstrap, views, [{"key": v["key"], "value": v["value"]} for v in first])
    assert {fmt: run(fmt) for fmt in FORMATS} == {"kafka-teaching": 60, "kafka": 60}
    after_first = {fmt: committed_offsets(tmp_path / fmt) for fmt in FORMATS}
    produce(bootstrap, views, [{"key": v["key"], "value": v["value"]} for v in second])
    assert {fmt: run(fmt) for fmt in FORMATS} == {"kafka-teaching": 40, "kafka": 40}  # from each checkpoint

    expected = closed_window_counts(first + second)
    for fmt in FORMATS:
        written = [json.loads(m.value()) for m in consume(bootstrap, counts[fmt], 1, expected=len(expected))]
        assert Counter({(w["window_start"], w["page"]): w["views"] for w in written}) == expected, fmt

    # The checkpoints: the same offsets of the same topic-partitions, after the first run and at the end.
    ours, sparks = after_first["kafka-teaching"], after_first["kafka"]
    assert ours.offsets == sparks.offsets and sum(ours.offsets.values()) == 60, (ours, sparks)
    ours, sparks = committed_offsets(tmp_path / "kafka-teaching"), committed_offsets(tmp_path / "kafka")
    assert ours.offsets == sparks.offsets and sum(ours.offsets.values()) == 100, (ours, sparks)
