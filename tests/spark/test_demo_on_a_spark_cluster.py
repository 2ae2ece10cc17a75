"""`make demo-spark-cluster SOURCE=kafka` end to end: a Spark standalone master and two workers from PySpark's
own launch classes on loopback, the query's tasks in executors in the workers' JVMs reading through Spark's own
connector from three real KRaft node processes (tests/cluster/kraft_cluster.py), with the leader of
page-views-0 killed with SIGKILL half-way; the window audit finds nothing lost or counted twice. When the demo
is done, no master, worker or executor process is left.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.cluster.kraft_cluster import started_cluster
from tests.helpers import REPO, wait_until
from tests.jvm.spark_kafka import ConnectorMissing, connector_jars
from tests.spark.test_demo_on_a_cluster import FAST_FAILURE_DETECTION, live_brokers

pytestmark = pytest.mark.timeout(600)


def spark_processes(data_dir) -> list[str]:
    """Processes whose command line names this run's data folder (the workers' work directories)."""
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout.splitlines()
    return [line for line in ps if str(data_dir) in line and "deploy" in line]


# Spark's own connector only, the one a user of a real Spark cluster runs: each run costs one to three minutes
# of the suite's 25, and the sources differ only in what the executors load, which
# tests/spark/test_demo_on_either_source.py covers; ours through a killed leader: tests/spark/test_demo_on_a_cluster.py.
@pytest.mark.parametrize("fmt", ["kafka"])
def test_the_demo_on_a_standalone_master_and_two_workers_through_a_killed_leader(tmp_path, request, fmt):
    data_dir = tmp_path / "demo"
    args = [sys.executable, "-m", "kafka.spark.demo", "--data-dir", str(data_dir), "--seconds", "16",
            "--standalone-workers", "2", "--format", fmt, "--replication-factor", "3", "--kill-leader"]
    if fmt == "kafka":
        try:
            args += ["--jars", ",".join(connector_jars())]
        except ConnectorMissing as e:
            pytest.fail(str(e), pytrace=False)
    with started_cluster(tmp_path, request, FAST_FAILURE_DETECTION) as cluster:
        wait_until(lambda: live_brokers(cluster.bootstrap) == 3, timeout=60, message="three registered brokers",
                   interval=0.2)
        demo = subprocess.run([*args, "--bootstrap-server", cluster.bootstrap], cwd=REPO, capture_output=True,
                              text=True, timeout=540)
        killed = [n for n in cluster.nodes.values() if not n.running]
    report = f"stdout:\n{demo.stdout}\nstderr:\n{demo.stderr[-4000:]}"
    assert demo.returncode == 0, report
    assert len(killed) == 1 and killed[0].process.returncode == -9, f"one node SIGKILLed, not {killed}\n{report}"
    assert f"killed node {killed[0].node_id}" in demo.stdout, report
    assert "every window matches: no page view lost, none counted twice." in demo.stdout, report
    assert "with 2 workers" in demo.stdout, demo.stdout
    assert "the query's tasks ran on 2 executors" in demo.stdout, demo.stdout
    assert ", each exactly once." in demo.stdout and "SOME WINDOWS DO NOT MATCH" not in demo.stdout, demo.stdout
    assert "(the query has read everything)" in demo.stdout, demo.stdout
    # Each worker ran an executor of the demo in its work directory, and everything has stopped.
    executor_logs = sorted((data_dir / "spark-cluster").glob("worker-*/app-*/*/stderr"))
    assert [p.parts[-4] for p in executor_logs] == ["worker-1", "worker-2"], executor_logs
    assert spark_processes(data_dir) == []
