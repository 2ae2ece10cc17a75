"""The demo on a Spark standalone cluster (`make demo-spark-cluster` without the Kafka cluster): a master and
two workers from PySpark's own launch classes on loopback, the query's tasks in executors in the workers'
JVMs, on each source, and the window audit finds nothing lost or counted twice. When the demo is done,
no master, worker or executor process is left.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import REPO
from tests.jvm.spark_kafka import ConnectorMissing, connector_jars

pytestmark = pytest.mark.timeout(600)


def spark_processes(data_dir) -> list[str]:
    """Processes whose command line names this run's data folder (the workers' work directories)."""
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout.splitlines()
    return [line for line in ps if str(data_dir) in line and "deploy" in line]


# One source here: each run costs one to three minutes of the suite's 25, and the sources differ only in what
# the executors load, which tests/spark/test_demo_on_either_source.py covers. Spark's own connector is the one a
# user of a real Spark cluster runs; ours on the cluster: `make demo-spark-cluster` (its default SOURCE).
@pytest.mark.parametrize("fmt", ["kafka"])
def test_the_demo_on_a_standalone_master_and_two_workers(tmp_path, fmt):
    args = [sys.executable, "-m", "kafka.spark.demo", "--data-dir", str(tmp_path), "--seconds", "10",
            "--standalone-workers", "2", "--format", fmt]
    if fmt == "kafka":
        try:
            args += ["--jars", ",".join(connector_jars())]
        except ConnectorMissing as e:
            pytest.fail(str(e), pytrace=False)
    demo = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=540)
    assert demo.returncode == 0, f"stdout:\n{demo.stdout}\nstderr:\n{demo.stderr[-4000:]}"
    assert "with 2 workers" in demo.stdout, demo.stdout
    assert "the query's tasks ran on 2 executors" in demo.stdout, demo.stdout
    assert ", each exactly once." in demo.stdout and "SOME WINDOWS DO NOT MATCH" not in demo.stdout, demo.stdout
    assert "(the query has read everything)" in demo.stdout, demo.stdout
    # Each worker ran an executor of the demo in its work directory, and everything has stopped.
    executor_logs = sorted((tmp_path / "spark-cluster").glob("worker-*/app-*/*/stderr"))
    assert [p.parts[-4] for p in executor_logs] == ["worker-1", "worker-2"], executor_logs
    assert spark_processes(tmp_path) == []
