"""`kafka-features describe` on a three-node cluster of ours (tests/cluster/kraft_cluster.py, as `make
cluster` starts it) lists the same features, in the same order and format, as Kafka's own tool on a fresh
Apache Kafka 4.4 node, the levels differing only where docs/features.md says (DESCRIBED_DIFFERENTLY);
our tool and Kafka's print the same lines on our cluster, and every node of it answers the same levels."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.cluster.kraft_cluster import run_tool, started_cluster
from tests.differential.test_features import DESCRIBED_DIFFERENTLY
from tests.helpers import wait_until
from tests.jvm import resolve
from tests.jvm.apache_kafka import ApacheKafka
from tests.jvm.jvm import classpath, run_java
from tests.jvm.test_kafka_tools import FEATURES

pytestmark = pytest.mark.timeout(400)


def rows(output: str) -> dict[str, list[str]]:
    """describe's lines: feature -> [min, max, finalized] (the Epoch is each log's own offset)."""
    table = {}
    for line in output.splitlines():
        cells = re.findall(r"(\w+): (\S+)", line)
        assert [key for key, _ in cells] == ["Feature", "SupportedMinVersion", "SupportedMaxVersion",
                                             "FinalizedVersionLevel", "Epoch"], line
        table[cells[0][1]] = [value for _, value in cells[1:4]]
    return table


def kafkas_describe(bootstrap: str, *args: str) -> str:
    done = run_java(classpath("tools"), FEATURES, "--bootstrap-server", bootstrap, "describe", *args,
                    timeout=90)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_kafka_features_describe_on_three_nodes_against_a_fresh_kafka_4_4(tmp_path, request):
    try:
        kafka = ApacheKafka(tmp_path / "apache-kafka").start()
    except resolve.ResolveError as e:
        pytest.fail(str(e), pytrace=False)
    try:
        theirs = rows(kafkas_describe(kafka.nodes[0].bootstrap))
    finally:
        kafka.stop()
    (tmp_path / "ours").mkdir()
    with started_cluster(tmp_path / "ours", request) as cluster:
        def ours_from(node) -> str | None:
            try:
                done = run_tool("kafka.tools.features_command", "--bootstrap-server", node.bootstrap,
                                "describe",
                                timeout=30)
            except subprocess.TimeoutExpired:
                return None
            return done.stdout if done.returncode == 0 and done.stdout else None
        outputs = {i: wait_until(lambda n=node: ours_from(n), timeout=90, message=f"node {i} to describe")
                   for i, node in cluster.nodes.items()}
        ours = rows(outputs[1])
        assert all(rows(text) == ours for text in outputs.values()), outputs
        assert rows(kafkas_describe(cluster.bootstrap, "--node-id", "2")) == ours
    assert list(ours) == list(theirs) == sorted(theirs)
    for name, (mine, kafkas) in DESCRIBED_DIFFERENTLY.items():
        assert ours[name][1:] == [mine, mine] and theirs[name][1:] == [kafkas, kafkas], (name, ours, theirs)
    assert {n: r for n, r in ours.items() if n not in DESCRIBED_DIFFERENTLY} == \
        {n: r for n, r in theirs.items() if n not in DESCRIBED_DIFFERENTLY}
