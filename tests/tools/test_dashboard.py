"""kafka-dashboard's parts without a broker: the Grafana JSON and the pages carry the same panels and
queries, every query names a metric the broker (or the lag exporter) exports, Prometheus is told
about every metrics.listener of the configs, a taken port is named with the setting that moves it,
and the server answers its pages and says when Prometheus is not there. Loopback sockets only."""

from __future__ import annotations

import fcntl
import json
import re
import socket
import urllib.error
import urllib.request

import pytest

from kafka.metrics.metric_name import MetricType
from kafka.metrics.metric_names import ALL_METRICS
from kafka.tools.dashboard import dashboard_command, grafana
from kafka.tools.dashboard.consumer_lag_exporter import METRIC_NAMES as LAG_METRICS
from kafka.tools.dashboard.dashboard_command import (
    Dashboard,
    DashboardSettings,
    DataDirInUse,
    PortTaken,
    check_port_free,
)
from kafka.tools.dashboard.dashboard_server import DashboardServer
from kafka.tools.dashboard.panels import PAGES, all_panels, as_json
from kafka.tools.dashboard.prometheus_config import prometheus_yml, scrape_targets
from kafka.utils.free_port import free_port
from tests.helpers import REPO


def exported_names() -> set[str]:
    names = set(LAG_METRICS)
    for metric in ALL_METRICS:
        names.add(metric.prometheus_name)
        if metric.metric_type is MetricType.HISTOGRAM:
            names |= {metric.prometheus_name + suffix for suffix in ("_bucket", "_sum", "_count")}
    return names


def test_the_grafana_json_is_written_from_the_panel_list():
    assert grafana.DASHBOARD_FILE.read_text() == grafana.render(), \
        "docs/dashboards/kafka-teaching.json is stale: run python -m kafka.tools.dashboard.grafana"


def test_the_grafana_dashboard_and_the_pages_carry_the_same_panels_and_queries():
    dashboard = json.loads(grafana.DASHBOARD_FILE.read_text())
    in_grafana = [(p["title"], [(t["expr"], t["legendFormat"]) for t in p["targets"]])
                  for p in dashboard["panels"] if p["type"] != "row"]
    on_pages = [(p["title"], [(t["expr"], t["legend"]) for t in p["targets"]])
                for page in as_json() for row in page["rows"] for p in row["panels"]]
    assert in_grafana == on_pages
    assert [p["title"] for p in dashboard["panels"] if p["type"] == "row"] == \
        [row.title for page in PAGES for row in page.rows]


def test_every_metric_a_panel_queries_is_exported_under_that_exact_name():
    queried = {name for panel in all_panels() for target in panel.targets
               for name in re.findall(r"\bkafka_[a-z_]+", target.expr)}
    assert queried - exported_names() == set()


def test_the_request_journey_shows_all_six_stages_of_requestmetrics():
    [journey] = [p for p in all_panels() if "$request" in p.title]
    stages = [re.search(r"requestmetrics_(\w+)_sum", t.expr).group(1) for t in journey.targets]
    assert stages == ["requestqueuetimems", "localtimems", "remotetimems", "throttletimems",
                      "responsequeuetimems", "responsesendtimems"]


def test_prometheus_is_told_every_metrics_listener_of_make_run_and_both_clusters():
    targets = scrape_targets(REPO / "config")
    assert targets == [f"127.0.0.1:{port}" for port in range(9404, 9414)]
    config = prometheus_yml(targets, "127.0.0.1:3000")
    assert all(f"'{t}'" in config for t in targets)
    assert "metrics_path: /consumer-lag/metrics" in config and "'127.0.0.1:3000'" in config


def listening_socket() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


def test_a_taken_prometheus_port_is_named_with_the_variable_that_moves_it():
    with listening_socket() as taken:
        port = taken.getsockname()[1]
        with pytest.raises(PortTaken, match=f"port {port} .*Prometheus.*PROMETHEUS_PORT={port + 1}"):
            check_port_free("127.0.0.1", port, "Prometheus", "PROMETHEUS_PORT", "--prometheus-port")


def test_kafka_dashboard_with_the_pages_port_taken_says_which_and_starts_nothing(tmp_path, capsys):
    with listening_socket() as taken:
        port = taken.getsockname()[1]
        status = dashboard_command.main(["--port", str(port), "--prometheus-port", str(free_port()),
                                         "--target", "127.0.0.1:1", "--data-dir", str(tmp_path / "d")])
    assert status == 2
    err = capsys.readouterr().err
    assert f"port {port}" in err and f"make dashboard DASHBOARD_PORT={port + 1}" in err, err
    assert not (tmp_path / "d" / "prometheus.yml").exists(), "Prometheus was not started"


def test_the_dashboard_port_taken_raises_before_prometheus_starts(tmp_path):
    with listening_socket() as taken:
        port = taken.getsockname()[1]
        settings = DashboardSettings(["127.0.0.1:1"], "127.0.0.1:1", tmp_path / "d", port=port,
                                     prometheus_port=free_port())
        with pytest.raises(PortTaken, match=f"port {port} .*DASHBOARD_PORT={port + 1}"):
            Dashboard(settings).start()


def test_a_second_dashboard_on_the_same_directory_is_refused_before_it_starts_prometheus(tmp_path):
    directory = tmp_path / "d"
    directory.mkdir()
    with open(directory / "kafka-dashboard.lock", "w") as held:  # as the first kafka-dashboard holds it
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        settings = DashboardSettings(["127.0.0.1:1"], "127.0.0.1:1", directory, port=free_port(),
                                     prometheus_port=free_port())
        with pytest.raises(DataDirInUse, match=f"DASHBOARD_DATA={directory}-2"):
            Dashboard(settings).start()
    assert not (directory / "prometheus.yml").exists()


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_the_server_serves_its_pages_and_says_when_prometheus_is_not_answering():
    nobody = f"http://127.0.0.1:{free_port()}"
    server = DashboardServer("127.0.0.1", 0, nobody, ["127.0.0.1:9404"], lag_exporter=None)
    server.start()
    try:
        status, html = get(f"{server.url}/journey")
        assert status == 200 and "dashboard.js" in html
        status, body = get(f"{server.url}/panels.json")
        assert status == 200 and [p["slug"] for p in json.loads(body)["pages"]] == [p.slug for p in PAGES]
        status, body = get(f"{server.url}/api/v1/query?query=up")
        assert status == 502 and f"Prometheus is not answering at {nobody}" in json.loads(body)["error"]
        assert get(f"{server.url}/static/line_chart.js")[0] == 200
        assert get(f"{server.url}/static/../dashboard_server.py")[0] == 404
        assert get(f"{server.url}/nowhere")[0] == 404
    finally:
        server.stop()
