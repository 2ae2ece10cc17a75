"""KafkaMetricsGroup: makes the metrics of one broker in its own registry (Kafka's
org.apache.kafka.server.metrics.KafkaMetricsGroup, over Yammer's registry).

Every metric is created from its MetricName (kafka/metrics/metric_names.py), so its Prometheus name,
type, help text and labels all come from that one list. Gauges are callbacks read at scrape time,
as Kafka's are: the layers below hand in a function, and this package never imports them.

Each broker has its own CollectorRegistry rather than prometheus-client's global one, so several
brokers in one process (as in the tests) keep their numbers apart.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

import structlog
from prometheus_client import CollectorRegistry, Counter
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from kafka.metrics.histogram import Histogram
from kafka.metrics.metric_name import MetricName, MetricType

log = structlog.get_logger("kafka.metrics.KafkaMetricsGroup")

# Milliseconds, from a fast in-memory request to a fetch that waited out its max.wait.ms.
TIME_MS_BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000,
                   float("inf"))

# What a gauge callback returns: one value, or (label values, value) pairs for a labelled gauge.
GaugeSamples = Callable[[], float | Iterable[tuple[tuple[str, ...], float]]]


class CallbackGauge(Collector):
    """A gauge whose samples are computed when Prometheus scrapes (Kafka's Gauge.value())."""

    def __init__(self, metric: MetricName, samples: GaugeSamples) -> None:
        self.metric = metric
        self.samples = samples
        self._failing: str | None = None  # the error of the last failed read, logged once

    def describe(self):
        return [self._family()]

    def collect(self):
        family = self._family()
        try:
            samples = self.samples()
        except Exception as e:  # one broken gauge must not take /metrics down with it
            self._report_failure(e)
            yield family  # no samples: the metric is missing from this scrape, as a JMX exporter skips it
            return
        self._failing = None
        if isinstance(samples, int | float):
            family.add_metric([], samples)
        else:
            for label_values, value in samples:
                family.add_metric([str(v) for v in label_values], value)
        yield family

    def _report_failure(self, error: Exception) -> None:
        """Log a gauge that raises once, not on every scrape, and again only if the error changes."""
        if repr(error) != self._failing:
            self._failing = repr(error)
            log.error("gauge failed: left out of /metrics until it answers", metric=self.metric.mbean_name,
                      exc_info=error)

    def _family(self) -> GaugeMetricFamily:
        return GaugeMetricFamily(self.metric.prometheus_name, self.metric.doc,
                                 labels=list(self.metric.label_names))


class KafkaMetricsGroup:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()

    def new_meter(self, metric: MetricName) -> Counter:
        _check(metric, MetricType.METER)
        return Counter(metric.prometheus_name, metric.doc, metric.label_names, registry=self.registry)

    def new_histogram(self, metric: MetricName, buckets=TIME_MS_BUCKETS,
                      lock: threading.Lock | None = None) -> Histogram:
        """A histogram whose values are recorded under `lock` (see kafka/metrics/histogram.py)."""
        _check(metric, MetricType.HISTOGRAM)
        histogram = Histogram(metric, buckets, lock)
        self.registry.register(histogram)
        return histogram

    def new_gauge(self, metric: MetricName, samples: GaugeSamples) -> CallbackGauge:
        _check(metric, MetricType.GAUGE)
        gauge = CallbackGauge(metric, samples)
        self.registry.register(gauge)
        return gauge

    def remove(self, collector: Collector) -> None:
        self.registry.unregister(collector)


def _check(metric: MetricName, expected: MetricType) -> None:
    if metric.metric_type is not expected:
        raise ValueError(f"{metric.mbean_name} is a {metric.metric_type.name}, not a {expected.name}")
