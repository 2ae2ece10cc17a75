"""Acceptance: a real Prometheus server (Debian's package) scrapes the broker's /metrics every second,
and its HTTP API shows the produce request rate rising once records are produced."""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.parse
import urllib.request

import pytest

from tests.helpers import free_port, wait_until
from tests.integration.test_long_poll import create, produce
from tests.wire import WireClient

PROMETHEUS = shutil.which("prometheus")
pytestmark = pytest.mark.skipif(PROMETHEUS is None, reason="prometheus is not installed (make test installs "
                                                          "Debian's package)")

PRODUCE_COUNT = 'sum(kafka_network_requestmetrics_requests_total{request="Produce"})'
PRODUCE_RATE = 'sum(rate(kafka_network_requestmetrics_requests_total{request="Produce"}[5s]))'


class PrometheusServer:
    def __init__(self, tmp_path, target: str) -> None:
        config = tmp_path / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
            "scrape_configs:\n  - job_name: kafka-teaching\n    scrape_interval: 1s\n    scrape_timeout: 1s\n"
            f"    static_configs:\n      - targets: ['{target}']\n")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(tmp_path / "prometheus.log", "wb")
        self.process = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=self.log, stderr=subprocess.STDOUT)

    def ready(self) -> bool:
        assert self.process.poll() is None, "prometheus exited; see prometheus.log"
        try:
            with urllib.request.urlopen(f"{self.url}/-/ready", timeout=1) as response:
                return response.status == 200
        except OSError:
            return False

    def query(self, promql: str) -> float | None:
        """The value of an instant query that returns one series, or None if it returns none."""
        url = f"{self.url}/api/v1/query?{urllib.parse.urlencode({'query': promql})}"
        with urllib.request.urlopen(url, timeout=5) as response:
            body = json.load(response)
        assert body["status"] == "success", body
        result = body["data"]["result"]
        return float(result[0]["value"][1]) if result else None

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self.log.close()


@pytest.fixture
def prometheus(tmp_path, broker):
    target = broker.server.metrics_endpoint.url.removeprefix("http://")
    server = PrometheusServer(tmp_path, target)
    try:
        wait_until(server.ready, timeout=30, message="prometheus to be ready")
        yield server
    finally:
        server.stop()


def test_prometheus_sees_the_produce_request_rate_rise(broker, prometheus):
    wait_until(lambda: prometheus.query('up{job="kafka-teaching"}') == 1, timeout=30,
               message="prometheus to scrape the broker")
    client = WireClient(broker.port)
    create(client, "prom")
    produce(client, "prom", b"first")  # the series now exists, at 1
    wait_until(lambda: prometheus.query(PRODUCE_COUNT) == 1, timeout=30, message="the first produce scraped")
    wait_until(lambda: prometheus.query(PRODUCE_RATE) == 0, timeout=30, message="a flat produce rate")

    for i in range(20):
        produce(client, "prom", f"record {i}".encode())
    rate = wait_until(lambda: prometheus.query(PRODUCE_RATE), timeout=30, message="the produce rate to rise")
    assert rate > 0
    wait_until(lambda: prometheus.query(PRODUCE_COUNT) == 21, timeout=30, message="all 21 produces scraped")
    assert prometheus.query('sum(kafka_server_brokertopicmetrics_messagesin_total{topic="prom"})') == 21
