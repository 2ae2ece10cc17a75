"""`make demo` as a user runs it, `python -m kafka.spark.demo` in its own process, interrupted with
Ctrl-C mid-stream: what reaches the terminal's stderr is Spark's start-up lines only, never a Python
traceback (PySpark's workers print BrokenPipeError ones from pyspark/daemon.py when Spark stops
under a running query). The demo that ends by itself, checking its own counts, with the same quiet
stderr: tests/spark/test_demo_on_a_cluster.py (its run on three nodes is a superset of one node's).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tests.helpers import REPO, wait_until

pytestmark = pytest.mark.timeout(240)

NOISE = ("Traceback", "BrokenPipeError", " ERROR ", "Exception")


def noise(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if any(word in line for word in NOISE)]


def test_ctrl_c_mid_stream_stops_the_query_and_spark_quietly(tmp_path):
    # A terminal's Ctrl-C sends SIGINT to the whole foreground process group: the demo, and the JVM it
    # started.
    demo = subprocess.Popen([sys.executable, "-m", "kafka.spark.demo", "--data-dir", str(tmp_path),
                             "--seconds", "60"],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        wait_until(lambda: (tmp_path / "checkpoint" / "offsets" / "1").exists() or demo.poll() is not None,
                   timeout=120, message="the query's second batch", interval=0.1)
        assert demo.poll() is None, demo.communicate()
        os.killpg(demo.pid, signal.SIGINT)
        stdout, stderr = demo.communicate(timeout=120)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait(30)
    assert demo.returncode == 130, f"stdout:\n{stdout}\nstderr:\n{stderr[-4000:]}"
    assert "interrupted: the query and Spark were stopped" in stdout, stdout
    assert noise(stderr) == [], stderr[-4000:]
