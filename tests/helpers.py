"""Test helpers: real brokers on 127.0.0.1, in this process or as a separate process.

Nothing here sleeps to wait for something: `wait_until` polls a condition against a deadline.
"""

from __future__ import annotations

import functools
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.server.kafka_config import KafkaConfig
from kafka.server.kafka_server import KafkaServer
from kafka.server.metadata_cache import PartitionState
from kafka.server.replica_manager import ReplicaManager
from kafka.utils.free_port import free_port  # noqa: F401 - tests import it from here
from kafka.utils.topic_partition import TopicPartition

REPO = Path(__file__).resolve().parent.parent


def wait_until(condition, timeout: float = 15.0, message: str = "condition", interval: float = 0.01):
    """Return condition()'s first truthy value, or fail once the deadline has passed."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {message}")
        time.sleep(interval)




class InProcessBroker:
    """A KafkaServer started in this process on a free loopback port."""

    def __init__(self, data_dir: Path, overrides: dict[str, str]) -> None:
        props = {"node.id": "1", "listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": str(data_dir),
                 "num.network.threads": "2", "num.io.threads": "4",
                 "metrics.listener": "http://127.0.0.1:0",  # many brokers at once: never the fixed 9404
                 # one node: __share_group_state as Kafka's sample server.properties makes it (share groups)
                 "share.coordinator.state.topic.replication.factor": "1",
                 "share.coordinator.state.topic.min.isr": "1"}
        props.update(overrides)
        self.data_dir = data_dir
        self.server = KafkaServer(KafkaConfig(props))
        self.server.startup()
        self.port = self.server.bound_port()
        self.bootstrap = f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.shutdown()


class BrokerProcess:
    """The broker as a user starts it: `python -m kafka config/server.properties --override ...`."""

    def __init__(self, data_dir: Path, overrides: dict[str, str] | None = None, port: int | None = None,
                 open_files_limit: int | None = None) -> None:
        self.data_dir = data_dir
        self.port = port or free_port()  # a restart on the port clients already know
        self.bootstrap = f"127.0.0.1:{self.port}"
        props = {"listeners": f"PLAINTEXT://{self.bootstrap}",
                 "advertised.listeners": f"PLAINTEXT://{self.bootstrap}",
                 "log.dirs": str(data_dir), "metrics.listener": "http://127.0.0.1:0", **(overrides or {})}
        args = [sys.executable, "-m", "kafka", str(REPO / "config" / "server.properties")]
        for key, value in props.items():
            args += ["--override", f"{key}={value}"]
        self.log_path = data_dir.parent / f"broker-{self.port}.log"
        self._log = open(self.log_path, "wb")
        # `ulimit -n` for the broker alone (soft and hard), as an operator's limit would be.
        limit = None if open_files_limit is None else functools.partial(
            resource.setrlimit, resource.RLIMIT_NOFILE, (open_files_limit, open_files_limit))
        self.process = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT, cwd=REPO,
                                        preexec_fn=limit)
        try:  # 30 s: a broker loading many partitions on a busy two-core machine took more than 15
            wait_until(self._ready, timeout=30, message=f"broker on {self.bootstrap} to accept connections")
        except BaseException:  # a broker that never answered is stopped too, not left running after the test
            self.process.kill()
            self.process.wait(10)
            self._log.close()
            raise

    def _ready(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"broker exited with {self.process.returncode}:\n{self.output()}")
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
            return True
        except OSError:
            return False

    def output(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout)
        self._log.close()
        return self.process.returncode


def unique_topic(prefix: str = "t") -> str:
    return f"{prefix}-{os.getpid()}-{time.monotonic_ns()}"


@contextmanager
def replica_manager_leading(data_dir: Path, time, tp: TopicPartition, leader_epoch: int = 0,
                            **replica_manager_args) -> Iterator[ReplicaManager]:
    """A real ReplicaManager and LogManager in `data_dir` on a (mock) clock, leading `tp` alone:
    what the coordinator and server unit tests append through, as the coordinators do in a broker."""
    log_manager = LogManager([str(data_dir)], LogConfig(), time, node_id=1)
    log_manager.startup()
    manager = ReplicaManager(KafkaConfig({"node.id": "1", "log.dirs": str(data_dir)}), log_manager,
                             metadata_cache=None, time=time, **replica_manager_args)
    manager.make_leader(tp, PartitionState(0, leader=1, leader_epoch=leader_epoch, replicas=(1,), isr=(1,)),
                        LogConfig())
    try:
        yield manager
    finally:
        manager.shutdown()
        log_manager.shutdown()
