"""The demo's audit (kafka/spark/demo/window_audit.py) without Spark: it must say "match" only when
each closed window's count equals the page views in the topic, and catch a view lost, a view
counted twice, a window never written, and an acknowledged view missing from the topic."""

from __future__ import annotations

import json

from kafka.clients.consumer import ConsumerRecord
from kafka.spark.demo.page_view_generator import PageView
from kafka.spark.demo.window_audit import acknowledged_are_in_topic, audit_windows, iso_ms
from kafka.utils.topic_partition import TopicPartition

T0 = iso_ms("2026-01-01T00:00:00.000Z")


def view_record(offset: int, second: float, page: str) -> ConsumerRecord:
    return ConsumerRecord("page-views", 0, offset, 0, "CreateTime", b"u1",
                          PageView("u1", page, T0 + int(second * 1000)).value())


def count_record(window_second: int, page: str, views: int) -> ConsumerRecord:
    start = f"2026-01-01T00:00:{window_second:02d}.000Z"
    value = {"window_start": start, "window_end": start, "page": page, "views": views}
    return ConsumerRecord("page-view-counts", 0, 0, 0, "CreateTime", page.encode(),
                          json.dumps(value).encode())


VIEWS = [view_record(0, 1, "/"), view_record(1, 2.5, "/"), view_record(2, 3, "/cart"),
         view_record(3, 12, "/"),
         view_record(4, 31, "/")]  # the last one moves the event time on; the watermark is given below
WATERMARK = T0 + 25_000  # closes [0 s, 10 s) and [10 s, 20 s), not [30 s, 40 s)


def test_exact_counts_match_and_a_repeated_write_is_harmless():
    counts = [count_record(0, "/", 2), count_record(0, "/cart", 1), count_record(10, "/", 1),
              count_record(10, "/", 1)]
    audit = audit_windows(VIEWS, counts, WATERMARK)
    assert audit.window(T0) == (3, 3, True)
    assert audit.window(T0 + 10_000) == (1, 1, True)
    assert audit.repeated == 1 and audit.conflicts == [] and audit.unwritten() == []


def test_a_lost_view_a_double_count_and_an_unwritten_window_are_caught():
    lost = audit_windows(VIEWS,
                         [count_record(0, "/", 1), count_record(0, "/cart", 1), count_record(10, "/", 1)],
                         WATERMARK)
    assert lost.window(T0) == (3, 2, False)
    doubled = audit_windows(VIEWS,
                            [count_record(0, "/", 2), count_record(0, "/cart", 2), count_record(10, "/", 1)],
                            WATERMARK)
    assert doubled.window(T0) == (3, 4, False)
    unwritten = audit_windows(VIEWS, [count_record(0, "/", 2), count_record(0, "/cart", 1)], WATERMARK)
    assert unwritten.unwritten() == [T0 + 10_000]
    conflict = audit_windows(VIEWS,
                             [count_record(0, "/", 2), count_record(0, "/", 3), count_record(0, "/cart", 1),
                              count_record(10, "/", 1)], WATERMARK)
    assert conflict.conflicts == [(T0, "/", [2, 3])] and conflict.window(T0)[2] is False


def test_acknowledged_views_are_found_once_after_the_run_s_start_offsets():
    acknowledged = [PageView("u1", "/", T0 + 12_000), PageView("u1", "/", T0 + 31_000)]
    start = {TopicPartition("page-views", 0): 3}
    assert acknowledged_are_in_topic(acknowledged, VIEWS, start) == (2, 2, 0)
    assert acknowledged_are_in_topic(acknowledged, VIEWS[:4], start) == (2, 1, 1), (
        "one acknowledged view is missing")
    twice = VIEWS + [view_record(5, 31, "/")]
    assert acknowledged_are_in_topic(acknowledged, twice, start) == (2, 2, 1), (
        "one view is in the topic twice")
