"""Debian's Prometheus server (/usr/bin/prometheus), started and stopped by kafka-dashboard.

Its configuration and its time-series database live under one directory (data/dashboard/ for `make
dashboard`), its output in prometheus.log there. Readiness is Prometheus's own /-/ready.
"""

from __future__ import annotations

import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

PROMETHEUS = "/usr/bin/prometheus"


class PrometheusError(Exception):
    """Prometheus could not be found or started; the message says what to do."""


def prometheus_binary() -> str:
    found = shutil.which("prometheus") or (PROMETHEUS if Path(PROMETHEUS).exists() else None)
    if found is None:
        raise PrometheusError("prometheus is not installed: `make dashboard` installs Debian's package "
                              "(apt-get install prometheus)")
    return found


class PrometheusProcess:
    def __init__(self, directory: Path, config_text: str, host: str, port: int,
                 retention: str = "1d") -> None:
        self.directory = directory
        self.url = f"http://{host}:{port}"
        directory.mkdir(parents=True, exist_ok=True)
        self.config = directory / "prometheus.yml"
        self.config.write_text(config_text)
        self.log_path = directory / "prometheus.log"
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [prometheus_binary(), f"--config.file={self.config}", f"--storage.tsdb.path={directory / 'tsdb'}",
             f"--storage.tsdb.retention.time={retention}", f"--web.listen-address={host}:{port}"],
            stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def ready(self) -> bool:
        if self.process.poll() is not None:
            raise PrometheusError("prometheus exited with status "
                                  f"{self.process.returncode}:\n{self.log_tail()}")
        try:
            with urllib.request.urlopen(f"{self.url}/-/ready", timeout=1) as response:
                return response.status == 200
        except OSError:
            return False

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not self.ready():
            if time.monotonic() > deadline:
                raise PrometheusError(f"prometheus was not ready after {timeout_s:.0f} s:\n{self.log_tail()}")
            time.sleep(0.1)

    def log_tail(self, lines: int = 10) -> str:
        self._log.flush()
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(15)
        self._log.close()
