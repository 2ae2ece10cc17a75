"""Acceptance: `--log-format json` makes every broker log line a JSON object, and the events made
while a request is handled carry the request's identity (listener, processor, connection,
client_id, correlation_id, api, version) and the thread that handled it."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys

from tests.helpers import REPO, free_port, wait_until
from tests.integration.test_long_poll import create
from tests.wire import WireClient


def test_json_logs_carry_the_request_context(tmp_path):
    port = free_port()
    log_path = tmp_path / "broker.log"
    args = [sys.executable, "-m", "kafka", str(REPO / "config" / "server.properties"), "--log-format", "json",
            "--override", f"listeners=PLAINTEXT://127.0.0.1:{port}",
            "--override", f"advertised.listeners=PLAINTEXT://127.0.0.1:{port}",
            "--override", f"log.dirs={tmp_path / 'data'}", "--override",
            "metrics.listener=http://127.0.0.1:0"]
    with open(log_path, "wb") as out:
        process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
        try:
            def accepting():
                assert process.poll() is None, log_path.read_text()
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    return True
                except OSError:
                    return False
            wait_until(accepting, message="the broker to listen")
            create(WireClient(port), "logged")
            wait_until(lambda: "created topic" in log_path.read_text(), message="the topic creation logged")
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(20)

    events = [json.loads(line) for line in log_path.read_text().splitlines() if line.strip()]
    assert all({"event", "level", "timestamp", "logger", "thread"} <= e.keys() for e in events)
    by_name = {e["event"]: e for e in events}
    observability = by_name["observability"]
    metrics_url = observability["metrics"]
    assert metrics_url.startswith("http://127.0.0.1:") and metrics_url.endswith("/metrics")
    assert observability["log_dirs"] == [str(tmp_path / "data")]
    assert by_name["configuration differs from defaults"]["listeners"] == f"PLAINTEXT://127.0.0.1:{port}"
    created = by_name["created topic"]
    assert created["topic"] == "logged"
    assert created["api"] == "CreateTopics" and created["version"] == 7
    assert created["client_id"] == "wire-test" and created["correlation_id"] == 1
    assert created["listener"] == "PLAINTEXT" and created["connection"].startswith(f"127.0.0.1:{port}-")
    # Logged where the controller's answer arrived, not on the I/O thread, which never waits for it;
    # the request's context travels with the forward.
    assert created["thread"] == "kafka-1-to-controller-forwarding-channel"
    assert by_name["shut down completed"]["logger"] == "kafka.server.KafkaServer"
