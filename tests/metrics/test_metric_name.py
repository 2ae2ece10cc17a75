"""The JMX -> Prometheus naming rule, the idle gauge's arithmetic, and the small pure helpers."""

from __future__ import annotations

import pytest

from kafka.metrics import metric_names as m
from kafka.metrics.idle_percent import AvgIdlePercent
from kafka.metrics.metric_name import MetricType, prometheus_name
from kafka.metrics.prometheus_exporter import parse_metrics_listener
from kafka.metrics.request_metrics import count_error_codes
from kafka.server.kafka_config import ConfigError, KafkaConfig


@pytest.mark.parametrize(("group", "type_", "name", "kind", "expected"), [
    ("kafka.server", "BrokerTopicMetrics", "MessagesInPerSec", MetricType.METER,
     "kafka_server_brokertopicmetrics_messagesin_total"),
    ("kafka.network", "RequestMetrics", "RequestsPerSec", MetricType.METER,
     "kafka_network_requestmetrics_requests_total"),
    ("kafka.network", "RequestMetrics", "TotalTimeMs", MetricType.HISTOGRAM,
     "kafka_network_requestmetrics_totaltimems"),
    ("kafka.server", "ReplicaManager", "UnderReplicatedPartitions", MetricType.GAUGE,
     "kafka_server_replicamanager_underreplicatedpartitions"),
    ("kafka.log", "Log", "LogEndOffset", MetricType.GAUGE, "kafka_log_log_logendoffset"),
])
def test_prometheus_name_follows_the_jmx_exporter_rule(group, type_, name, kind, expected):
    assert prometheus_name(group, type_, name, kind) == expected


def test_every_metric_the_issue_names_is_in_the_catalogue():
    names = {metric.prometheus_name for metric in m.ALL_METRICS}
    required = {
        "kafka_network_requestmetrics_requests_total", "kafka_network_requestmetrics_errors_total",
        *(f"kafka_network_requestmetrics_{t}" for t in ("requestqueuetimems", "localtimems", "remotetimems",
                                                        "responsequeuetimems", "responsesendtimems",
                                                        "totaltimems")),
        "kafka_network_requestchannel_requestqueuesize", "kafka_network_requestchannel_responsequeuesize",
        "kafka_network_socketserver_networkprocessoravgidlepercent",
        "kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent",
        *(f"kafka_server_brokertopicmetrics_{x}_total" for x in (
            "messagesin", "bytesin", "bytesout", "bytesrejected", "totalproducerequests",
            "totalfetchrequests",
            "failedproducerequests", "failedfetchrequests")),
        "kafka_server_delayedoperationpurgatory_purgatorysize",
        "kafka_server_delayedoperationpurgatory_numdelayedoperations",
        *(f"kafka_server_replicamanager_{x}" for x in (
            "partitioncount", "leadercount", "underreplicatedpartitions", "offlinereplicacount")),
        *(f"kafka_log_log_{x}" for x in ("size", "logendoffset", "logstartoffset", "numlogsegments")),
    }
    assert required <= names, sorted(required - names)
    assert len(names) == len(m.ALL_METRICS), "no two metrics share a Prometheus name"
    assert m.TOTAL_TIME.mbean_name == "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=<request>"


def test_avg_idle_percent_is_the_idle_share_of_wall_time_per_thread():
    clock = [0]
    idle = [0, 0]  # two threads
    gauge = AvgIdlePercent(lambda: idle, clock_ns=lambda: clock[0], window_ns=10_000_000_000)
    clock[0], idle[:] = 2_000_000_000, [2_000_000_000, 1_000_000_000]  # one idle all along, one half
    assert gauge.value() == pytest.approx(0.75)
    # Later, only the last window counts: 18 s in which neither thread waited...
    clock[0] = 20_000_000_000
    assert gauge.value() == pytest.approx(0.0)
    # ...then 10 s in which both did nothing else.
    clock[0], idle[:] = 30_000_000_000, [12_000_000_000, 11_000_000_000]
    assert gauge.value() == pytest.approx(1.0)


def test_error_codes_are_counted_wherever_the_response_has_them():
    body = {"error_code": 0, "responses": [{"partitions": [{"error_code": 1}, {"error_code": 0}]},
                                           {"partitions": [{"error_code": 3, "records": b"x"}]}]}
    assert count_error_codes(body) == {0: 2, 1: 1, 3: 1}


def test_metrics_listener_is_parsed_and_a_bad_one_names_the_key():
    assert parse_metrics_listener("http://127.0.0.1:9404") == ("127.0.0.1", 9404)
    assert parse_metrics_listener("") is None
    assert KafkaConfig({}).metrics_listener == ("127.0.0.1", 9404)
    assert KafkaConfig({"metrics.listener": ""}).metrics_listener is None
    for bad in ("127.0.0.1:9404", "http://127.0.0.1", "https://h:1", "http://h:99999"):
        with pytest.raises(ConfigError, match="metrics.listener"):
            KafkaConfig({"metrics.listener": bad})
    with pytest.raises(ConfigError, match="request.trace.enable"):
        KafkaConfig({"request.trace.enable": "yes"})


def test_a_gauge_that_raises_is_left_out_of_the_scrape_and_logged_once():
    """One broken gauge (a bug, or a lab's TODO in a handout) must not turn /metrics into an HTTP 500."""
    from prometheus_client import generate_latest
    from structlog.testing import capture_logs

    from kafka.metrics.kafka_metrics_group import KafkaMetricsGroup

    group = KafkaMetricsGroup()
    answers: list = [RuntimeError("not yet"), RuntimeError("not yet"), 0.25]

    def flaky() -> float:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    group.new_gauge(m.NETWORK_PROCESSOR_AVG_IDLE_PERCENT, flaky)
    group.new_gauge(m.REQUEST_HANDLER_AVG_IDLE_PERCENT, lambda: 0.5)
    with capture_logs() as logs:
        first, second, third = (generate_latest(group.registry).decode() for _ in range(3))
    for page in (first, second):
        assert "\nkafka_network_socketserver_networkprocessoravgidlepercent " not in page, (
            "a sample of the broken gauge")
        assert "\nkafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent 0.5" in page
    assert "\nkafka_network_socketserver_networkprocessoravgidlepercent 0.25" in third
    assert [entry["metric"] for entry in logs if entry["log_level"] == "error"] == [
        m.NETWORK_PROCESSOR_AVG_IDLE_PERCENT.mbean_name]
