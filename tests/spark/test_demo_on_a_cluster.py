"""`make demo-cluster` end to end, on three real KRaft node processes: the page-view pipeline with
replication factor 3, the leader of page-views-0 killed with SIGKILL half-way through, and the
query's window counts still equal to what was produced (docs/spark.md, "The demo on a cluster").

The demo runs as a user runs it, `python -m kafka.spark.demo` in its own process; the cluster is
tests/cluster/kraft_cluster.py's, with failure detection quickened as in the replication tests
(fenced after 4 s without heartbeats instead of 9 s).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from kafka.clients.admin import AdminClient
from tests.cluster.kraft_cluster import KRaftCluster
from tests.helpers import REPO, wait_until
from tests.spark.test_demo_exits_quietly import noise

pytestmark = pytest.mark.timeout(420)

FAST_FAILURE_DETECTION = {"broker.session.timeout.ms": "4000", "broker.heartbeat.interval.ms": "500",
                          "replica.lag.time.max.ms": "3000"}


def live_brokers(bootstrap: str) -> int:
    try:
        with AdminClient({"bootstrap.servers": bootstrap, "request.timeout.ms": 5000}) as admin:
            return len(admin.describe_cluster()[2])
    except Exception:
        return 0


def test_the_demo_on_a_cluster_counts_every_page_view_once_through_a_killed_leader(tmp_path):
    cluster = KRaftCluster(tmp_path, extra=FAST_FAILURE_DETECTION)
    cluster.format_and_start()
    try:
        bootstrap = cluster.bootstrap
        wait_until(lambda: live_brokers(bootstrap) == 3, timeout=60, message="three registered brokers",
                   interval=0.2)
        demo = subprocess.run(
            [sys.executable, "-m", "kafka.spark.demo", "--bootstrap-server", bootstrap,
             "--replication-factor", "3",
             "--kill-leader", "--seconds", "24", "--data-dir", str(tmp_path / "demo")],
            cwd=REPO, capture_output=True, text=True, timeout=360)
        print(demo.stdout)
        report = f"stdout:\n{demo.stdout}\nstderr:\n{demo.stderr[-4000:]}"
        assert demo.returncode == 0, report
        killed = [n for n in cluster.nodes.values() if not n.running]
        assert len(killed) == 1, f"one node should have been killed, not {len(killed)}\n{report}"
        assert f"killed node {killed[0].node_id} (pid {killed[0].process.pid}" in demo.stdout, report
        assert killed[0].process.returncode == -9, "the node was not SIGKILLed"
        assert "is led by node" in demo.stdout, report
        assert ", each exactly once." in demo.stdout, report
        assert "every window matches: no page view lost, none counted twice." in demo.stdout, report
        assert "MISMATCH" not in demo.stdout, report
        assert "(the query has read everything)" in demo.stdout, report
        assert noise(demo.stderr) == [], report
    except BaseException:
        print(cluster.dump_logs())
        raise
    finally:
        cluster.stop()
