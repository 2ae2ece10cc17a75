"""`make demo-spark-cluster SOURCE=kafka` end to end: a Spark standalone master and two workers from PySpark's
own launch classes on loopback, the query's tasks in executors in the workers' JVMs reading through Spark's
own connector from three real KRaft node processes (tests/cluster/kraft_cluster.py), with the leader of
page-views-0 killed with SIGKILL half-way, and worker 2's JVM killed with SIGKILL while batch 2 runs (its
executor exits with it and Spark runs the batch's tasks again on the other one); the window audit finds
nothing lost or counted twice. When the demo is done, no master, worker or executor process is left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.cluster.kraft_cluster import started_cluster
from tests.helpers import REPO, wait_until
from tests.jvm.spark_kafka import ConnectorMissing, connector_jars
from tests.spark.test_demo_on_a_cluster import FAST_FAILURE_DETECTION, live_brokers

pytestmark = pytest.mark.timeout(600)


def processes() -> list[tuple[int, str]]:
    """Every process's pid and whole command line (`ww`: ps cuts lines to the terminal's width otherwise)."""
    lines = subprocess.run(["ps", "-eww", "-o", "pid=,args="], capture_output=True,
                           text=True).stdout.splitlines()
    return [(int(pid), args) for pid, _, args in (line.strip().partition(" ") for line in lines)]


def spark_processes(data_dir: Path) -> list[str]:
    """Processes whose command line names this run's data folder (the workers' work directories)."""
    return [args for _, args in processes() if str(data_dir) in args and "deploy" in args]


def worker_jvm(data_dir: Path, n: int) -> int | None:
    """The pid of worker n's JVM: its command line names its work directory."""
    return next((pid for pid, args in processes()
                 if "deploy.worker.Worker" in args and f"{data_dir}/spark-cluster/worker-{n}" in args), None)


def kill_worker_during_batch(data_dir: Path, batch: int, done: threading.Event, killed: list[str]) -> None:
    """SIGKILLs worker 2's JVM once the query has written offsets/<batch>, the batch it is about to run;
    what it did goes into `killed`. Gives up when the demo is done."""
    checkpoint = data_dir / "checkpoint"
    while not done.wait(0.05):
        if (checkpoint / "offsets" / str(batch)).exists():
            pid = worker_jvm(data_dir, 2)
            if pid is None:
                killed.append("worker 2's JVM was not found")
                return
            os.kill(pid, signal.SIGKILL)
            mid_batch = not (checkpoint / "commits" / str(batch)).exists()
            killed.append(f"worker 2 (pid {pid}) killed {'during' if mid_batch else 'after'} batch {batch}")
            return


# Spark's own connector only, the one a user of a real Spark cluster runs: each run costs one to three minutes
# of the suite's 25, and the sources differ only in what the executors load, which
# tests/spark/test_demo_on_either_source.py covers; ours through a killed leader:
# tests/spark/test_demo_on_a_cluster.py.
def test_the_demo_on_two_workers_through_a_killed_leader_and_a_killed_worker(tmp_path, request):
    data_dir = tmp_path / "demo"
    try:
        jars = ",".join(connector_jars())
    except ConnectorMissing as e:
        pytest.fail(str(e), pytrace=False)
    with started_cluster(tmp_path, request, FAST_FAILURE_DETECTION) as cluster:
        wait_until(lambda: live_brokers(cluster.bootstrap) == 3, timeout=60,
                   message="three registered brokers",
                   interval=0.2)
        done, worker_killed = threading.Event(), []
        killer = threading.Thread(target=kill_worker_during_batch, args=(data_dir, 2, done, worker_killed))
        killer.start()
        try:
            demo = subprocess.run(
                [sys.executable, "-m", "kafka.spark.demo", "--data-dir", str(data_dir), "--seconds", "16",
                 "--standalone-workers", "2", "--format", "kafka", "--jars", jars,
                 "--bootstrap-server", cluster.bootstrap, "--replication-factor", "3", "--kill-leader"],
                cwd=REPO, capture_output=True, text=True, timeout=540)
        finally:
            done.set()
            killer.join()
        killed = [n for n in cluster.nodes.values() if not n.running]
    print(worker_killed, demo.stdout, sep="\n")
    report = f"{worker_killed}\nstdout:\n{demo.stdout}\nstderr:\n{demo.stderr[-4000:]}"
    assert demo.returncode == 0, report
    assert "with 2 workers" in demo.stdout, report
    assert len(killed) == 1 and killed[0].process.returncode == -9, (
        f"one node SIGKILLed, not {killed}\n{report}")
    assert f"killed node {killed[0].node_id}" in demo.stdout, report
    assert len(worker_killed) == 1 and worker_killed[0].startswith("worker 2 (pid"), report
    assert "the query's tasks ran on 1 executor," in demo.stdout, report  # the one left when the demo ended
    assert ", each exactly once." in demo.stdout, report
    assert "every window matches: no page view lost, none counted twice." in demo.stdout, report
    assert "(the query has read everything)" in demo.stdout, report
    # Each worker ran an executor of the demo in its work directory, and everything has stopped.
    executor_logs = sorted((data_dir / "spark-cluster").glob("worker-*/app-*/*/stderr"))
    assert [p.parts[-4] for p in executor_logs] == ["worker-1", "worker-2"], executor_logs
    assert spark_processes(data_dir) == []
