"""The Java client (kafka-clients 4.x and 3.9) over SASL_PLAINTEXT with SCRAM-SHA-512 (issue 29): produce,
consume, describeUserScramCredentials, and a wrong password refused with SaslAuthenticationException."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import REPO, BrokerProcess, free_port, unique_topic
from tests.jvm.jvm import CLIENT_PROFILES, compile_scenarios, run_java
from tests.security.sasl_helpers import SCRAM_JAAS

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def sasl_broker(tmp_path_factory):
    port, sasl_port = free_port(), free_port()
    listeners = f"PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}"
    broker = BrokerProcess(tmp_path_factory.mktemp("broker") / "data", {
        "listeners": listeners, "advertised.listeners": listeners, "group.initial.rebalance.delay.ms": "0",
        "sasl.enabled.mechanisms": "SCRAM-SHA-512", "sasl.jaas.config": SCRAM_JAAS}, port=port)
    broker.sasl_port = sasl_port
    done = subprocess.run([sys.executable, "-m", "kafka.tools.config_command", "--bootstrap-server",
                           broker.bootstrap,
                           "--alter", "--entity-type", "users", "--entity-name", "alice", "--add-config",
                           "SCRAM-SHA-512=[iterations=8192,password=alice-secret]"], cwd=REPO,
                           capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    try:
        yield broker
    finally:
        broker.stop()


@pytest.mark.parametrize("profile", CLIENT_PROFILES)
def test_java_client_over_sasl_scram(sasl_broker, profile, tmp_path):
    cp = compile_scenarios(profile, tmp_path / "classes")
    topic = unique_topic("java-sasl")
    done = run_java(cp, "teaching.jvm.SaslScenario", f"127.0.0.1:{sasl_broker.sasl_port}", "SASL_PLAINTEXT",
                    "SCRAM-SHA-512", "alice", "alice-secret", topic, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["consumed"] == [f"v{i}" for i in range(20)]
    assert result["credentials"] == ["SCRAM_SHA_512:8192"]
    assert result["wrong_password"].startswith("SaslAuthenticationException: Authentication failed")
