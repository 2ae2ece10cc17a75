"""ClientTelemetryCollector: the metrics clients pushed (KIP-714), exported on /metrics beside the
broker's own (what a Kafka ClientTelemetryExporter plugin would hand to its metrics backend).

The server layer decodes each push (kafka/server/client_telemetry_exporter.py) and keeps one value per
series; this collector reads them at each scrape and writes them as gauges, one family per metric name,
each series labelled with the client instance id and client id that pushed it and the data point's own
attributes (node_id, topic, ...). Different series of one family may carry different labels: the OTLP
data points of one metric need not share attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

# (Prometheus name, labels as (name, value) pairs, description, value) for each pushed series
PushedSample = tuple[str, tuple[tuple[str, str], ...], str, float]


class ClientTelemetryCollector(Collector):
    def __init__(self, samples: Callable[[], Iterable[PushedSample]]) -> None:
        self.samples = samples

    def describe(self):
        return []  # the families are whatever clients pushed: known only at a scrape

    def collect(self):
        families: dict[str, Metric] = {}
        for name, labels, description, value in self.samples():
            family = families.get(name)
            if family is None:
                family = families[name] = Metric(name, description or f"pushed by clients: {name}", "gauge")
            family.add_sample(name, dict(labels), value)
        yield from families.values()
