"""`make cluster`'s runner (kafka/tools/local_cluster.py): its --override applies to every node, and the
overrides `make cluster TIERED=s3` and `TIERED=local` pass make a valid config for each node, read as the
broker reads its file. A bad override is refused by name before any node starts."""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from kafka.server.kafka_config import KafkaConfig
from kafka.server.kafka_server_start import parse_overrides
from tests.helpers import REPO

NODES = [f"config/cluster/node-{i}.properties" for i in (1, 2, 3)]


def overrides_of_make_cluster(*make_args: str) -> list[str]:
    """The --override values of the command `make cluster` would run (make -n prints it, runs nothing)."""
    printed = subprocess.run(["make", "-s", "-n", "cluster", *make_args], cwd=REPO, capture_output=True,
                             text=True, check=True).stdout
    words = shlex.split(printed.replace("\\\n", " "))
    return [words[i + 1] for i, word in enumerate(words) if word == "--override"]


@pytest.mark.parametrize("tiered", ["s3", "local"])
def test_make_cluster_tiered_gives_every_node_a_valid_tiered_config(tiered):
    overrides = parse_overrides(overrides_of_make_cluster(f"TIERED={tiered}"))
    assert overrides["remote.log.storage.system.enable"] == "true"
    for node in NODES:
        config = KafkaConfig.from_file(str(REPO / node), overrides)
        assert config.values["remote.log.storage.system.enable"] is True
        assert config.values["remote.log.metadata.manager.listener.name"] == "PLAINTEXT"


def test_make_cluster_without_tiered_overrides_nothing():
    assert overrides_of_make_cluster() == []


def test_an_unknown_tiered_value_is_refused_by_make():
    done = subprocess.run(["make", "-s", "-n", "cluster", "TIERED=gcs"], cwd=REPO, capture_output=True,
                          text=True)
    assert done.returncode != 0 and "TIERED must be local or s3, not gcs" in done.stderr


@pytest.mark.parametrize("override, message", [
    ("no.such.key=1", "unknown configuration key 'no.such.key'"),
    ("broker.id", "--override expects key=value, got 'broker.id'"),
])
def test_a_bad_override_names_itself_and_starts_nothing(override, message):
    done = subprocess.run([sys.executable, "-m", "kafka.tools.local_cluster", *NODES, "--override", override],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert message in done.stderr and "started" not in done.stdout
