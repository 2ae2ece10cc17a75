"""`make demo-streams` end to end (issue 42): Kafka Streams 4.4, exactly_once_v2, three real node processes.

The steps are the demo's own (examples/streams/demo/scenario.py): two instances each of WordCount (a count
with its state store and changelog) and OrderPayments (a windowed stream-stream join after a repartition),
one instance of each killed with SIGKILL and started again, the broker that coordinates WordCount's group
killed with SIGKILL and started again, and at the end both output topics, read with read_committed, hold
exactly what the input implies: every word's last count right and never going back, every join once.

The examples' jar is built with Maven (examples/streams/pom.xml) if it is missing or older than its sources;
`make test` builds it first (the Makefile's rule for examples/streams/target/streams-examples-1.0.jar).
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from examples.streams.demo.scenario import StreamsDemo
from tests.cluster.kraft_cluster import KRaftCluster, started_cluster
from tests.helpers import REPO

pytestmark = pytest.mark.timeout(300)

EXAMPLES = REPO / "examples" / "streams"
JAR = EXAMPLES / "target" / "streams-examples-1.0.jar"

# Fence a dead broker in 4 s instead of 9, drop a dead follower from the ISR in 3 s instead of 30, and
# look for a killed instance's timed-out transaction every 2 s instead of 10 (Streams' time out in 10 s).
CLUSTER_SETTINGS = {"broker.session.timeout.ms": "4000", "broker.heartbeat.interval.ms": "500",
                    "replica.lag.time.max.ms": "3000",
                    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "2000"}


def build_examples_jar() -> Path:
    """`mvn package` of examples/streams (offline first: a warm ~/.m2 costs no network), unless the jar is
    newer than every source; one line naming Maven's error if it cannot."""
    sources = [EXAMPLES / "pom.xml", *(EXAMPLES / "src").rglob("*")]
    if JAR.exists() and JAR.stat().st_mtime >= max(p.stat().st_mtime for p in sources):
        return JAR
    command = ["mvn", "-B", "-q", "-f", str(EXAMPLES / "pom.xml"), "package"]
    done = subprocess.run([*command, "-o"], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        errors = [line for line in (done.stdout + done.stderr).splitlines() if "ERROR" in line]
        pytest.fail(f"building examples/streams with Maven failed: {' '.join(errors[:3])[:500]}",
                    pytrace=False)
    return JAR


class ClusterNodes:
    """The demo's Brokers on a test's KRaftCluster: kill -9 and start a node process again."""

    def __init__(self, cluster: KRaftCluster) -> None:
        self.cluster = cluster

    def kill(self, node_id: int) -> None:
        self.cluster.nodes[node_id].kill()

    def restart(self, node_id: int) -> None:
        self.cluster.nodes[node_id].start()


def test_streams_word_count_and_join_exactly_once_across_instance_and_broker_kills(tmp_path, request):
    jar = build_examples_jar()
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(f"{time.monotonic() - began:6.1f} {line}")
        print(lines[-1], flush=True)

    began = time.monotonic()
    with started_cluster(tmp_path, request, CLUSTER_SETTINGS) as cluster:
        demo = StreamsDemo(cluster.bootstrap, ClusterNodes(cluster), jar, tmp_path / "streams", say)
        try:
            result = demo.run()
        except BaseException:
            print("\n".join(lines))
            raise
    report = "\n".join(lines)
    counts, joins = result.word_counts, result.joins
    assert counts.wrong == {} and counts.went_back == [], report
    assert joins.missing == {} and joins.duplicates == 0 and joins.unexpected == {}, report
    assert sum(joins.read.values()) == sum(result.input.expected_joins().values()) == 270
    # each restarted instance came back with its stores restored from their changelogs (or kept standbys)
    assert set(result.restored) == {"wordcount-1", "order-payments-1"}, report
    assert result.killed_broker in cluster.nodes
    print("\n".join(result.summary()))
    print(f"{report}\nsteps: " + ", ".join(f"{name} {s:.1f} s" for name, s in result.seconds.items()))
