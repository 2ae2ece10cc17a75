"""The Java client on three nodes with a partition leader killed mid-stream (issue 28, part 1).

A KRaft cluster of three node processes (tests/cluster/kraft_cluster.py), topics with replication
factor 3 and min.insync.replicas=2. ClusterScenario produces with the Java defaults (idempotent,
acks=all) while a consumer in a group reads and commits; ClusterTransactionScenario runs the
transactional read-process-write loop. A third of the way through, each names the leader of a
partition 0; this test kills that node with SIGKILL and lets the scenario go on. Nothing
acknowledged may be lost, the group must have seen every acknowledged record, and the transactional
output must hold each input exactly once. Then, on the two nodes left, the Admin scenario of
test_java_client.py runs whole: every call answers, the cluster shows two brokers and three voters.

The newest client only: the 3.9 client's older protocol versions are exercised scenario by scenario
on one node (test_java_client.py); what this tier adds is the failover, and running it twice cost
the suite half a minute for no request this broker would answer differently.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.cluster.kraft_cluster import started_cluster
from tests.jvm.jvm import compile_scenarios, run_scenarios

pytestmark = pytest.mark.timeout(400)

# Kafka's defaults take 9 s to fence a dead broker and 30 s to drop a follower from the ISR.
FAST_FAILURE_DETECTION = {"broker.session.timeout.ms": "4000", "broker.heartbeat.interval.ms": "500",
                          "replica.lag.time.max.ms": "3000"}


@pytest.fixture(scope="module")
def classpath(tmp_path_factory) -> str:
    return compile_scenarios("clients-4", tmp_path_factory.mktemp("classes-clients-4"))


def run_across_a_leader_kill(scenario: str, cp: str, tmp_path, request, then: tuple[str, ...] = ()) -> dict:
    """Runs one scenario of teaching.jvm.Main on a fresh cluster; kills the node it names; its JSON,
    with the results of the scenarios in `then`, run afterwards on the nodes left."""
    with started_cluster(tmp_path, request, FAST_FAILURE_DETECTION) as cluster:
        java = subprocess.Popen(["java", "-XX:TieredStopAtLevel=1", "-cp", cp, "teaching.jvm.Main",
                                 cluster.bootstrap, scenario],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        try:
            line = java.stdout.readline()
            assert line.startswith("KILL "), (
                f"{line}{java.stderr.read()[-3000:] if java.poll() is not None else ''}\n"
                f"{cluster.lifecycle()}")
            victim = int(line.split()[1])
            cluster.nodes[victim].kill()
            java.stdin.write("killed\n")
            java.stdin.flush()
            out, err = java.communicate(timeout=300)
        finally:
            if java.poll() is None:
                java.kill()
                java.wait(10)
        assert java.returncode == 0, err[-3000:]
        result = json.loads(out.strip().splitlines()[-1])[scenario]
        assert "error" not in result, result["error"]
        assert result["killed"] == victim
        if then:
            survivors = ",".join(n.bootstrap for n in cluster.nodes.values() if n.running)
            result["then"] = run_scenarios(cp, survivors, *then)
        return result


def test_java_producer_and_group_across_a_leader_kill_then_admin(classpath, tmp_path, request):
    result = run_across_a_leader_kill("cluster", classpath, tmp_path, request, then=("admin",))
    assert result["acked"] == 3000 and result["producer_errors"] == []
    assert result["lost"] == 0
    assert result["consumed_of_acked"] == result["acked"]
    admin = result["then"]["admin"]
    assert "error" not in admin, admin["error"]
    failed = {name: op["error"] for name, op in admin.items() if isinstance(op, dict) and not op["ok"]}
    assert failed == {}
    assert admin["describeCluster"]["nodes"] == 2
    assert admin["describeMetadataQuorum"]["voters"] == 3


def test_java_transactions_exactly_once_across_a_leader_kill(classpath, tmp_path, request):
    result = run_across_a_leader_kill("cluster-transactions", classpath, tmp_path, request)
    assert result["processed"] == 300, result
    output = result["read_committed"]
    assert (output["distinct"], output["duplicates"], output["missing"], output["records"]) == (300, 0, 0,
                                                                                                300), result
