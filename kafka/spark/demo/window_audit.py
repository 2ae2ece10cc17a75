"""Produced against counted, window by window: did the query lose or double-count a page view?

Not a Spark class: the demo's own audit, done with plain consumers after the query has stopped.

1. This run's page views, as the generator got them acknowledged, against what ``page-views`` holds
   after the offsets the run started from: each must be there exactly once (an idempotent producer
   with ``acks=all`` neither loses nor duplicates a record when a leader dies).
2. Every record of ``page-views`` counted into its 10-second event-time window, for the windows
   the query's watermark has closed, against the counts the query wrote to ``page-view-counts``.
   A window written twice with the same count is the at-least-once sink repeating a batch; with a
   different count, or a count that differs from the input's, something was lost or read twice.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime

from kafka.clients.admin import AdminClient
from kafka.clients.consumer import ConsumerRecord, KafkaConsumer
from kafka.clients.errors import KafkaError
from kafka.spark.demo.page_view_generator import PageView
from kafka.utils.topic_partition import TopicPartition


def list_offsets(bootstrap: str, topic: str, spec: str = "latest",
                 timeout_s: float = 30) -> dict[TopicPartition, int]:
    """Each partition's ``earliest`` or ``latest`` offset (ListOffsets, as kafka-get-offsets asks). A
    retriable answer (a topic just created, whose leader has not heard of it yet; a leader just
    moved) is asked again, as Kafka's admin client does, until ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        while True:
            try:
                partitions = admin.describe_topics([topic])[topic].partitions
                tps = [TopicPartition(topic, p.partition) for p in partitions]
                return {tp: offset
                        for tp, (offset, *_) in admin.list_offsets({tp: spec for tp in tps}).items()}
            except KafkaError as e:
                if not e.retriable or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)


def end_offsets(bootstrap: str, topic: str) -> dict[TopicPartition, int]:
    return list_offsets(bootstrap, topic, "latest")


def read_topic(bootstrap: str, topic: str, timeout_s: float = 60) -> list[ConsumerRecord]:
    """Every record of ``topic``, from each partition's start to its end offset now."""
    starts, ends = list_offsets(bootstrap, topic, "earliest"), end_offsets(bootstrap, topic)
    records: list[ConsumerRecord] = []
    deadline = time.monotonic() + timeout_s
    with KafkaConsumer({"bootstrap.servers": bootstrap}) as consumer:
        consumer.assign(list(ends))
        for tp, offset in starts.items():
            consumer.seek(tp, offset)
        while any(consumer.position(tp) < end for tp, end in ends.items()):
            if time.monotonic() > deadline:
                raise TimeoutError(f"could not read {topic} to its end offsets {ends} in {timeout_s:g} s")
            records.extend(consumer.poll(200))
    return records


def iso_ms(text: str) -> int:
    """``2026-11-25T04:08:30.000Z`` (Spark's JSON timestamps, the watermark in a query's progress) in ms."""
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def hhmmss(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%H:%M:%S")


@dataclass
class WindowAudit:
    window_ms: int
    produced: Counter  # (window start ms, page) -> page views in page-views, closed windows only
    counted: dict  # (window start ms, page) -> the views the query wrote
    conflicts: list  # (window start ms, page, [counts]) written more than once with different counts
    repeated: int  # window counts written again with the same count (the at-least-once sink)

    def window(self, start_ms: int) -> tuple[int, int, bool]:
        """(produced, counted, every page matches) for one window."""
        keys = {k for k in self.produced if k[0] == start_ms} | {k for k in self.counted if k[0] == start_ms}
        produced = sum(self.produced.get(k, 0) for k in keys)
        counted = sum(self.counted.get(k, 0) for k in keys)
        exact = all(self.produced.get(k, 0) == self.counted.get(k, 0) for k in keys) and not any(
            c[0] == start_ms for c in self.conflicts)
        return produced, counted, exact


    def unwritten(self) -> list[int]:
        """Closed windows (any run's) with page views in the topic but no count in the output topic."""
        written = {start for start, _ in self.counted}
        return sorted({start for start, _ in self.produced} - written)


def audit_windows(page_views: list[ConsumerRecord], window_counts: list[ConsumerRecord], watermark_ms: int,
                  window_ms: int = 10_000) -> WindowAudit:
    produced: Counter = Counter()
    for record in page_views:
        view = json.loads(record.value)
        event_ms = iso_ms(view["event_time"])
        start = event_ms - event_ms % window_ms
        # Spark's append mode: written once the watermark passes the end
        if start + window_ms <= watermark_ms:
            produced[(start, view["page"])] += 1
    written: dict[tuple[int, str], list[int]] = {}
    for record in window_counts:
        w = json.loads(record.value)
        written.setdefault((iso_ms(w["window_start"]), w["page"]), []).append(w["views"])
    conflicts = [(k[0], k[1], counts) for k, counts in written.items() if len(set(counts)) > 1]
    repeated = sum(len(counts) - 1 for counts in written.values() if len(set(counts)) == 1)
    return WindowAudit(window_ms, produced, {k: counts[-1] for k, counts in written.items()}, conflicts,
                       repeated)


def acknowledged_are_in_topic(acknowledged: list[PageView], page_views: list[ConsumerRecord],
                              start_offsets: dict[TopicPartition, int]) -> tuple[int, int, int]:
    """(acknowledged, found once, missing or extra) for this run's page views: the topic's records at
    or after ``start_offsets`` against the values the generator was told were written."""
    sent = Counter(v.value() for v in acknowledged)
    stored = Counter(r.value for r in page_views
                     if r.offset >= start_offsets.get(TopicPartition(r.topic, r.partition), 0))
    found_once = sent & stored
    missing_or_extra = (sent - stored) + (stored - sent)
    return sum(sent.values()), sum(found_once.values()), sum(missing_or_extra.values())
