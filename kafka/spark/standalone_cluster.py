"""A Spark standalone cluster on loopback: a master and its workers, started from the installed PySpark's
own launch classes, as Spark's ``sbin/start-master.sh`` and ``sbin/start-worker.sh`` start them.

Not a Kafka class: the one place that says how the demo runs Spark on a cluster instead of ``local[2]``.
``spark-class org.apache.spark.deploy.master.Master`` and ``...deploy.worker.Worker`` run in their own
JVMs, bound to 127.0.0.1 on free ports; each worker launches the application's executor in a JVM of its
own, under its work directory (``<data-dir>/worker-N/app-.../N/``, with the executor's stdout and
stderr), and the executor starts its own Python workers. So a query's tasks run in other processes than
the driver, as they do on a real cluster, only on one machine.

The executors import the same ``kafka`` package as the driver: ``PYTHONPATH`` names this checkout for
them (``spark.executorEnv.PYTHONPATH``), as a real cluster gets its code from ``--py-files`` or an
installed package.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from kafka.utils.free_port import free_port

MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"
CHECKOUT = Path(__file__).resolve().parent.parent.parent  # the directory that holds the kafka package


def spark_class() -> Path:
    """The installed PySpark's ``bin/spark-class``."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent / "bin" / "spark-class"


class StandaloneCluster:
    """A master and ``workers`` workers of ``cores`` cores each; ``start()`` returns when all have
    registered."""

    def __init__(self, data_dir: Path, workers: int = 2, cores: int = 1, memory: str = "1g") -> None:
        self.data_dir = Path(data_dir)
        self.workers, self.cores, self.memory = workers, cores, memory
        self.port, self.webui_port = free_port(), free_port()
        self.processes: list[subprocess.Popen] = []

    @property
    def master_url(self) -> str:
        return f"spark://127.0.0.1:{self.port}"

    def _launch(self, name: str, *args: str) -> subprocess.Popen:
        env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_NO_DAEMONIZE": "1",
               "PYSPARK_PYTHON": sys.executable}
        log = open(self.data_dir / f"{name}.log", "ab")
        process = subprocess.Popen([str(spark_class()), *args], stdout=log, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True)  # Ctrl-C in the demo's terminal is the demo's
        self.processes.append(process)
        return process

    def start(self, timeout: float = 90.0) -> str:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._launch("master", MASTER_CLASS, "--host", "127.0.0.1", "--port", str(self.port),
                     "--webui-port", str(self.webui_port))
        for n in range(1, self.workers + 1):
            work_dir = self.data_dir / f"worker-{n}"
            work_dir.mkdir(exist_ok=True)
            self._launch(f"worker-{n}", WORKER_CLASS, "--host", "127.0.0.1", "--webui-port", str(free_port()),
                         "--cores", str(self.cores), "--memory", self.memory, "--work-dir", str(work_dir),
                         self.master_url)
        deadline = time.monotonic() + timeout
        while self.alive_workers() < self.workers:
            exited = [p.args[1] for p in self.processes if p.poll() is not None]
            if exited or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the Spark standalone cluster did not start "
                                   f"({', '.join(exited) or 'timed out'} "
                                   f"; see the logs in {self.data_dir})")
            time.sleep(0.5)
        return self.master_url

    def state(self) -> dict:
        """The master's own view (its web UI's ``/json/``): workers, applications, cores."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.webui_port}/json/", timeout=5) as response:
            return json.load(response)

    def alive_workers(self) -> int:
        try:
            return int(self.state().get("aliveworkers", 0))
        except (OSError, ValueError):  # not up yet, or a web UI still starting answers an empty page
            return 0

    def worker_pids(self) -> list[int]:
        return [p.pid for p in self.processes[1:]]

    def session_conf(self) -> dict[str, str]:
        """What an application on this cluster needs: executors small enough for the workers, and this
        checkout on the Python path of the executors' Python workers."""
        return {"spark.executor.memory": "512m", "spark.executor.cores": str(self.cores),
                "spark.executorEnv.PYTHONPATH": str(CHECKOUT), "spark.pyspark.python": sys.executable}

    def stop(self) -> None:
        """Workers first (each stops its executors), then the master."""
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in reversed(self.processes):
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        self.processes.clear()
