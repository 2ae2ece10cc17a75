"""Read a broker's /metrics the way Prometheus does: over HTTP, parsed by prometheus-client's parser."""

from __future__ import annotations

import urllib.request

from prometheus_client.parser import text_string_to_metric_families


class Scrape:
    """One scrape: sample values by name and labels, and the family names present."""

    def __init__(self, metrics_url: str) -> None:
        with urllib.request.urlopen(f"{metrics_url}/metrics", timeout=10) as response:
            text = response.read().decode()
        self.families = {}
        self.samples: dict[tuple[str, frozenset], float] = {}
        for family in text_string_to_metric_families(text):
            self.families[family.name] = family
            for sample in family.samples:
                self.samples[(sample.name, frozenset(sample.labels.items()))] = sample.value

    def value(self, name: str, **labels: str) -> float:
        """A sample's value; 0 when the series does not exist yet (a meter never marked)."""
        return self.samples.get((name, frozenset(labels.items())), 0.0)

    def names(self) -> set[str]:
        """Every sample name, suffixes included (_total, _bucket, _sum, _count)."""
        return {name for name, _ in self.samples}


def scrape(broker) -> Scrape:
    return Scrape(broker.server.metrics_endpoint.url)
