"""Histogram: a distribution of milliseconds, as Kafka's request timers keep them (Yammer's
com.yammer.metrics.core.Histogram behind kafka.network:type=RequestMetrics,name=TotalTimeMs), shown to
Prometheus as a histogram: cumulative buckets, a count and a sum.

Every response the broker sends records six of these, twelve for a fetch (seed 002's stages, once
under Fetch and once under FetchConsumer or FetchFollower), on the network thread that sent it. So
recording is kept to one bisect and two additions: the bucket is found by `bisect_left` over the
bounds, and the cumulative counts Prometheus wants are added up only when it scrapes. The caller
holds the histogram's lock while it records (RequestMetrics records a request's stages under one
lock, not one lock per value); `collect` takes the same lock to copy the counts.

prometheus-client's own Histogram does the same job with a lock and a bucket search in Python for
every value: about forty Python calls for a produce request's six values, measured in
docs/performance.md. What Prometheus scrapes is the same, bucket for bucket.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Iterator, Sequence

from prometheus_client.core import HistogramMetricFamily
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from kafka.metrics.metric_name import MetricName


class HistogramSeries:
    """One label set's counts: counts[i] values fell in bucket i (at most bounds[i], above bounds[i-1])."""

    __slots__ = ("bounds", "counts", "sum")

    def __init__(self, bounds: Sequence[float]) -> None:
        self.bounds = bounds
        self.counts = [0] * len(bounds)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        """Record one value; the caller holds the histogram's lock. `le` buckets: a value equal to a
        bound counts in that bound's bucket, hence bisect_left."""
        self.counts[bisect_left(self.bounds, value)] += 1
        self.sum += value


class Histogram(Collector):
    def __init__(self, metric: MetricName, buckets: Sequence[float],
                 lock: threading.Lock | None = None) -> None:
        if not buckets or buckets[-1] != float("inf"):
            raise ValueError(f"{metric.mbean_name}: the last bucket must be +Inf")
        self.metric = metric
        self.bounds = tuple(float(b) for b in buckets)
        self.lock = lock if lock is not None else threading.Lock()
        self._series: dict[tuple[str, ...], HistogramSeries] = {}
        if not metric.label_names:
            # Exported at zero from the start, as prometheus-client does: a series that first appears
            # already at 1 never moves rate(), so a dashboard would miss the broker's first observation.
            self._series[()] = HistogramSeries(self.bounds)

    def labels(self, *label_values: str) -> HistogramSeries:
        """The series for these label values (in the metric's label order), made on first use."""
        if len(label_values) != len(self.metric.label_names):
            raise ValueError(f"{self.metric.mbean_name} takes labels {self.metric.label_names}, got "
                             f"{label_values}")
        key = tuple(str(v) for v in label_values)
        with self.lock:
            series = self._series.get(key)
            if series is None:
                series = self._series[key] = HistogramSeries(self.bounds)
        return series

    def remove(self, *label_values: str) -> None:
        """Stop exporting the series of these label values (prometheus-client's remove: KeyError if
        there is none), when what they describe is gone."""
        with self.lock:
            del self._series[tuple(str(v) for v in label_values)]

    def describe(self) -> list[HistogramMetricFamily]:
        return [self._family()]

    def collect(self) -> Iterator[HistogramMetricFamily]:
        with self.lock:
            snapshot = [(key, list(s.counts), s.sum) for key, s in self._series.items()]
        family = self._family()
        les = [floatToGoString(b) for b in self.bounds]
        for key, counts, total in snapshot:
            cumulative, buckets = 0, []
            for le, n in zip(les, counts, strict=True):
                cumulative += n
                buckets.append((le, cumulative))
            family.add_metric(list(key), buckets, total)
        yield family

    def _family(self) -> HistogramMetricFamily:
        return HistogramMetricFamily(self.metric.prometheus_name, self.metric.doc,
                                     labels=list(self.metric.label_names))
