"""Client metrics (KIP-714) with the Java client 4.4: a client-metrics subscription made with
kafka-client-metrics makes the Java producer push its metrics, and they show on the broker's /metrics,
labelled by its client instance id and client id, beside the ClientMetricsManager's own metrics."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.request

import pytest

from kafka.utils.free_port import free_port
from tests.helpers import BrokerProcess, unique_topic, wait_until
from tests.jvm.jvm import compile_scenarios, run_java

pytestmark = pytest.mark.timeout(300)


def scrape(url: str) -> str:
    return urllib.request.urlopen(f"{url}/metrics", timeout=10).read().decode()


def client_metrics(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "kafka.tools.client_metrics_command", *args],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def pushed_lines(url: str, client_id: str) -> list[str]:
    return [line for line in scrape(url).splitlines()
            if line.startswith("org_apache_kafka_producer_") and f'client_id="{client_id}"' in line]


def test_a_subscription_makes_the_java_producer_push_its_metrics_onto_metrics(tmp_path):
    cp = compile_scenarios("clients-4", tmp_path / "classes")
    http = free_port()
    broker = BrokerProcess(tmp_path / "data", {"metrics.listener": f"http://127.0.0.1:{http}"})
    url = f"http://127.0.0.1:{http}"
    producer = None
    try:
        assert client_metrics("--bootstrap-server", broker.bootstrap, "--alter", "--name", "java-producers",
                              "--metrics", "org.apache.kafka.producer.", "--interval", "1000",
                              "--match", "client_software_name=apache-kafka-java,client_id=telemetry-.*") == \
            "Altered client metrics config for java-producers.\n"
        producer = subprocess.Popen(["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", cp,
                                     "teaching.jvm.TelemetryProducer", broker.bootstrap,
                                     unique_topic("telemetry"), "telemetry-producer", "60"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        instance = re.search(r"client_instance_id=(\S+)", producer.stdout.readline()).group(1)

        def sends() -> list[str]:
            return [line for line in pushed_lines(url, "telemetry-producer")
                    if line.startswith("org_apache_kafka_producer_record_send_total")
                    and float(line.rsplit(" ", 1)[1]) > 0]
        wait_until(sends, timeout=60, message="the Java producer's record-send-total on /metrics")
        pushed = pushed_lines(url, "telemetry-producer")
        assert all(f'client_instance_id="{instance}"' in line for line in pushed), pushed[:10]
        text = scrape(url)
        export_count = rf'kafka_server_client_metrics_plugin_export_count{{client_instance_id="{instance}"}}'
        exports = re.search(export_count + r" (\S+)", text)
        assert exports and float(exports.group(1)) >= 1
        assert re.search(r"^kafka_server_client_metrics_instance_count (\S+)", text, re.M)
        producer.terminate()  # its connections close: its series go with them
        producer.wait(30)
        wait_until(lambda: not pushed_lines(url, "telemetry-producer"), timeout=60,
                   message="the gone producer's series to leave /metrics")
    finally:
        if producer is not None and producer.poll() is None:
            producer.kill()
            producer.wait(30)
        broker.stop()


def test_a_client_that_matches_no_subscription_pushes_nothing(tmp_path):
    cp = compile_scenarios("clients-4", tmp_path / "classes")
    http = free_port()
    broker = BrokerProcess(tmp_path / "data", {"metrics.listener": f"http://127.0.0.1:{http}"})
    try:
        done = run_java(cp, "teaching.jvm.TelemetryProducer", broker.bootstrap, unique_topic("quiet"),
                        "quiet-producer", "2", timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]
        wait_until(lambda: "kafka_server_client_metrics_instance_count" in scrape(f"http://127.0.0.1:{http}"))
        assert "org_apache_kafka_producer_" not in scrape(f"http://127.0.0.1:{http}")
    finally:
        broker.stop()
