"""The request-time Histogram: what Prometheus scrapes is what prometheus-client's Histogram shows."""

from __future__ import annotations

import prometheus_client
from prometheus_client import CollectorRegistry, generate_latest

from kafka.metrics import metric_names as m
from kafka.metrics.kafka_metrics_group import TIME_MS_BUCKETS, KafkaMetricsGroup
from kafka.metrics.request_metrics import RequestMetrics

# A value on every bound (Prometheus buckets are `le`), between bounds, below the first and past the last.
VALUES = [0.0, 0.1, 0.2, 0.25, 1.0, 3.0, 10.0, 9999.0, 30000.0, 45000.0]


def test_buckets_count_and_sum_match_prometheus_clients_histogram():
    prometheus_client.disable_created_metrics()
    ours_registry = CollectorRegistry()
    ours = KafkaMetricsGroup(ours_registry).new_histogram(m.TOTAL_TIME)
    theirs_registry = CollectorRegistry()
    theirs = prometheus_client.Histogram(m.TOTAL_TIME.prometheus_name, m.TOTAL_TIME.doc,
                                         m.TOTAL_TIME.label_names,
                                         registry=theirs_registry, buckets=TIME_MS_BUCKETS)
    for request in ("Produce", "Fetch"):
        series = ours.labels(request)
        for v in VALUES:
            with ours.lock:
                series.observe(v)
            theirs.labels(request).observe(v)
    assert generate_latest(ours_registry) == generate_latest(theirs_registry)


def test_request_metrics_record_every_stage_under_the_request_label():
    registry = CollectorRegistry()
    metrics = RequestMetrics(KafkaMetricsGroup(registry))
    timings = {metric.name: 1.5 for metric in m.REQUEST_TIMES}
    metrics.update(["FetchConsumer", "Fetch"], 12, timings)
    metrics.update(["Fetch"], 12, timings)
    for metric in m.REQUEST_TIMES:
        name = metric.prometheus_name
        assert registry.get_sample_value(f"{name}_count", {"request": "Fetch"}) == 2
        assert registry.get_sample_value(f"{name}_count", {"request": "FetchConsumer"}) == 1
        assert registry.get_sample_value(f"{name}_bucket", {"request": "Fetch", "le": "1.0"}) == 0
        assert registry.get_sample_value(f"{name}_bucket", {"request": "Fetch", "le": "2.5"}) == 2
        assert registry.get_sample_value(f"{name}_sum", {"request": "Fetch"}) == 3.0
