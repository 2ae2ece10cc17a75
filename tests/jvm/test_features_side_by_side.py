"""kafka-features, ours (kafka/tools/features_command.py) beside Kafka's FeatureCommand, against one broker
of ours: the same arguments must print the same bytes on standard output and standard error and exit
alike -- describe, every dry run and refusal, a real downgrade and upgrade of group.version, and the
broker-free version-mapping and feature-dependencies. Nothing is normalised except the Epoch of describe,
which moves on its own (the controller's NoOpRecord every 500 ms)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.helpers import REPO, BrokerProcess
from tests.jvm.jvm import classpath, run_java
from tests.jvm.test_kafka_tools import FEATURES

pytestmark = pytest.mark.timeout(300)

# Each case is run by ours, then by Kafka's, one after the other (a case that changes a level leaves the
# same state for the second run: the same level again).
CASES = [
    "describe",
    "describe --node-id -1",
    "upgrade --feature group.version=1 --dry-run",
    "upgrade --feature group.version=0 --dry-run",
    "downgrade --feature group.version=0 --dry-run",
    "downgrade --feature group.version=0 --unsafe --dry-run",
    "disable --feature group.version --feature share.version --dry-run",
    "upgrade --feature foo.version=1 --dry-run",
    "upgrade --feature kraft.version=2 --feature group.version=2 --feature share.version=1 --dry-run",
    "upgrade --feature group.version=1 --feature group.version=1 --dry-run",
    "upgrade --feature group.version",
    "upgrade --feature group.version=x",
    "upgrade",
    "disable --dry-run",
    "upgrade --metadata 3.2 --dry-run",
    "upgrade --metadata 4.1-IV1 --dry-run",
    "downgrade --metadata 4.0-IV1 --dry-run",
    "upgrade --release-version 4.4 --feature group.version=1",
    "upgrade --release-version 3.2",
    "downgrade --release-version 4.1 --dry-run",
    "upgrade --release-version 4.4 --dry-run",
    "downgrade --feature group.version=0",
    "describe",
    "upgrade --feature group.version=1",
    "version-mapping",
    "version-mapping --release-version 3.8",
    "version-mapping --release-version 4.0-IV3",
    "version-mapping --release-version 3.2",
    "feature-dependencies --feature eligible.leader.replicas.version=1 --feature metadata.version=21",
    "feature-dependencies --feature group.version=1 --feature foo=1",
    "feature-dependencies --feature transaction.version=5",
    "feature-dependencies --feature metadata.version=99",
]


def outcome(done: subprocess.CompletedProcess) -> tuple[int, str, str]:
    stderr = "".join(line for line in done.stderr.splitlines(keepends=True) if not line.startswith("SLF4J"))
    return done.returncode, re.sub(r"Epoch: \d+", "Epoch: N", done.stdout), stderr


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    broker = BrokerProcess(tmp_path_factory.mktemp("features-broker") / "data", {})
    yield broker
    broker.stop()


@pytest.mark.parametrize("case", CASES)
def test_ours_prints_what_kafkas_prints(broker, case):
    args = ["--bootstrap-server", broker.bootstrap, *case.split()]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    ours = subprocess.run([sys.executable, "-m", "kafka.tools.features_command", *args], capture_output=True,
                          text=True, timeout=60, cwd=REPO, env=env)
    theirs = run_java(classpath("tools"), FEATURES, *args, timeout=90)
    assert outcome(ours) == outcome(theirs)
