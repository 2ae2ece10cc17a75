"""Lab 11, observability under load (docs/labs/11-observability-under-load.md): `Snapshot.get_value`
in kafka/metrics/snapshot.py, Kafka's `99thPercentile` of a request time estimated from the
Prometheus buckets on /metrics, on made-up buckets, then through kafka-jmx on a real broker, and
against a real Prometheus server's histogram_quantile over the same buckets.

Seed 002, measured: each request's time in the request queue, on the I/O thread, in purgatory, in
the response queue and on the socket, summed into TotalTimeMs, whose percentiles say how slow the
slow requests are.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import sys

import pytest
from confluent_kafka import Producer

from kafka.metrics.snapshot import Snapshot
from tests.helpers import REPO, wait_until
from tests.integration.test_long_poll import create, produce
from tests.integration.test_prometheus import PrometheusServer
from tests.wire import WireClient

INF = math.inf
TOTAL_TIME = "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce"
PRODUCE_BUCKETS = 'sum by (le) (kafka_network_requestmetrics_totaltimems_bucket{request="Produce"})'


def test_a_percentile_is_interpolated_inside_the_bucket_its_rank_falls_in():
    """a percentile is found in the bucket its rank (quantile x count) falls in,
    interpolated linearly inside it"""
    snapshot = Snapshot([(0.5, 2), (1.0, 6), (2.5, 9), (INF, 10)], total=9.2)
    assert (snapshot.count, snapshot.mean) == (10, pytest.approx(0.92))
    assert snapshot.get_value(0.5) == pytest.approx(0.875), \
        "rank 5 of 10 is the 3rd of the 4 values in (0.5, 1.0]: 0.5 + 0.5 x 3/4"
    assert snapshot.get_value(0.2) == pytest.approx(0.5), (
        "rank 2 is the last value of the first bucket: its bound")
    assert snapshot.get_value(0.9) == pytest.approx(2.5), "rank 9 ends the bucket (1.0, 2.5]"
    assert snapshot.get_value(0.7) == pytest.approx(1.5), (
        "rank 7 is 1 of the 3 values in (1.0, 2.5]: 1.0 + 1.5/3")


def test_the_first_bucket_starts_at_zero():
    """the first bucket's values lie between 0 and its bound"""
    snapshot = Snapshot([(0.1, 0), (0.25, 0), (1.0, 4), (INF, 4)], total=2.0)
    assert snapshot.get_value(0.5) == pytest.approx(0.625), \
        "rank 2 of 4: the empty buckets below add nothing; interpolate from 0.25 to 1.0: 0.25 + 0.75 x 2/4"
    assert Snapshot([(2.0, 4), (INF, 4)], total=4.0).get_value(0.5) == pytest.approx(1.0), \
        "in the first bucket the lower bound is 0: 0 + 2.0 x 2/4"


def test_a_rank_above_every_finite_bound_answers_the_largest_one():
    """a percentile that falls in the +Inf bucket answers the largest finite bound,
    as histogram_quantile does"""
    snapshot = Snapshot([(1.0, 1), (10.0, 2), (INF, 4)], total=100.0)
    assert snapshot.get_value(0.99) == 10.0, "rank 3.96 is in +Inf: nothing says how far above 10 it is"
    assert snapshot.get_value(0.5) == pytest.approx(10.0), "rank 2 ends the bucket (1, 10]"


def test_nothing_observed_has_no_percentile():
    """a histogram that has seen nothing has no percentile (NaN), and a Count and Mean of 0"""
    snapshot = Snapshot([(1.0, 0), (INF, 0)], total=0.0)
    assert (snapshot.count, snapshot.mean) == (0, 0.0)
    assert math.isnan(snapshot.get_value(0.99)), "no observations: NaN, as PromQL answers"


def produce_requests(broker, count: int) -> None:
    client = WireClient(broker.port)
    create(client, "lab11")
    for i in range(count):
        produce(client, "lab11", b"x" * (10 * i))
    client.close()


def kafka_jmx(broker, *args: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-m", "kafka.tools.jmx_tool", "--metrics-url",
                           broker.server.metrics_endpoint.url, "--one-time", "true", "--report-format",
                           "properties",
                           *args], capture_output=True, text=True, cwd=REPO, timeout=30)
    assert done.returncode == 0, f"kafka-jmx failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}"
    return {line.rsplit(":", 1)[1].split("=")[0]: float(line.rsplit("=", 1)[1])
            for line in done.stdout.splitlines()}


def test_kafka_jmx_prints_a_real_brokers_produce_percentiles(broker):
    """kafka-jmx reads a real broker's /metrics and prints the Count, Mean and percentiles of its produce
    requests' TotalTimeMs"""
    produce_requests(broker, 40)
    values = wait_until(lambda: (v := kafka_jmx(broker, "--object-name", TOTAL_TIME))["Count"] == 40 and v,
                        message="the 40 produce requests on /metrics")
    assert 0 < values["Mean"] < 10_000
    assert 0 < values["50thPercentile"] <= values["99thPercentile"] <= values["999thPercentile"], \
        f"percentiles must grow with the quantile: {values}"


@pytest.mark.skipif(shutil.which("prometheus") is None,
                    reason="prometheus is not installed (make test installs it)")
def test_prometheus_agrees_with_your_percentiles(broker, tmp_path):
    """a real Prometheus server's histogram_quantile over the broker's buckets
    gives the same 50th and 99th percentiles as kafka-jmx"""
    produce_requests(broker, 60)
    prometheus = PrometheusServer(tmp_path, broker.server.metrics_endpoint.url.removeprefix("http://"))
    try:
        wait_until(prometheus.ready, timeout=30, message="prometheus to be ready")
        produced = 'kafka_network_requestmetrics_totaltimems_count{request="Produce"}'
        wait_until(lambda: prometheus.query(produced) == 60,
                   timeout=30, message="prometheus to scrape the 60 produce requests")
        mine = kafka_jmx(broker, "--object-name", TOTAL_TIME, "--attributes", "50thPercentile,99thPercentile")
        for attribute, quantile in (("50thPercentile", 0.5), ("99thPercentile", 0.99)):
            theirs = prometheus.query(f"histogram_quantile({quantile}, {PRODUCE_BUCKETS})")
            assert mine[attribute] == pytest.approx(theirs, rel=1e-9), \
                f"{attribute}: kafka-jmx says {mine[attribute]}, Prometheus' histogram_quantile says {theirs}"
    finally:
        prometheus.stop()


def test_step_6_a_noisy_producer_is_throttled_and_shows_it_on_metrics(broker):
    """step 6: kafka-configs holds the client id "noisy" to producer_byte_rate,
    and /metrics shows its byte rate and throttle time"""
    from tests.integration.test_client_quotas import kafka_configs_output
    from tests.metrics.scrape import scrape

    assert kafka_configs_output(broker, "--alter", "--entity-type", "clients", "--entity-name", "noisy",
                                "--add-config",
                                "producer_byte_rate=10000") == "Completed updating config for client noisy.\n"
    wait_until(lambda: broker.server.quota_managers.produce.quotas_enabled,
               message="the quota to reach the broker")
    client = WireClient(broker.port)
    create(client, "lab11-noisy")
    client.close()
    producer = Producer({"bootstrap.servers": broker.bootstrap, "client.id": "noisy", "linger.ms": 5})
    for _ in range(200):
        producer.produce("lab11-noisy", b"n" * 1000)
    producer.flush(30)
    samples = wait_until(lambda: (s := scrape(broker)).value(
        "kafka_server_produce_throttle_time", user="", client_id="noisy") > 0 and s,
        message="the noisy producer's throttle time on /metrics")
    assert samples.value("kafka_server_produce_byte_rate", user="", client_id="noisy") > 0
