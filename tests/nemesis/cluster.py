"""The three KRaft nodes of a nemesis run, each a real process on its own host (tests/nemesis/hosts.py).

Each node is `python -m kafka <server.properties>` started with `ip netns exec`, so the process is the
broker itself (kill -9, SIGSTOP and SIGCONT reach it) and binds its listeners to its host's address:
9092 for clients and brokers, 9093 for the controllers, the same ports on every host as on real
machines. Formatted first with `kafka-storage format`, one cluster id for all, as a user would.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

from kafka.clients.admin import AdminClient
from tests.cluster.kraft_cluster import run_tool
from tests.helpers import REPO
from tests.nemesis.hosts import Hosts

BROKER_PORT, CONTROLLER_PORT = 9092, 9093

# Faster than Kafka's defaults so a run shows many failovers a minute: a silent broker is fenced after
# 4 s without heartbeats, a follower that stopped fetching leaves the ISR after 3 s.
FAST_FAILURE_DETECTION = {"broker.session.timeout.ms": "4000", "broker.heartbeat.interval.ms": "500",
                          "replica.lag.time.max.ms": "3000"}

# What every client of a run uses: a dead connection noticed in seconds, metadata refreshed often.
CLIENT_TIMEOUTS = {"socket.timeout.ms": 10000, "reconnect.backoff.max.ms": 1000,
                   "topic.metadata.refresh.interval.ms": 2000}


class NemesisNode:
    def __init__(self, node_id: int, hosts: Hosts, root: Path, voters: str, extra: dict[str, str]) -> None:
        self.node_id = node_id
        self.hosts = hosts
        self.address = hosts.address(node_id)
        self.bootstrap = f"{self.address}:{BROKER_PORT}"
        self.data_dir = root / f"node-{node_id}"
        self.config_path = root / f"node-{node_id}.properties"
        self.log_path = root / f"node-{node_id}.log"
        props = {
            "process.roles": "broker,controller", "node.id": str(node_id),
            "controller.quorum.voters": voters, "controller.listener.names": "CONTROLLER",
            "listeners": f"PLAINTEXT://{self.address}:{BROKER_PORT},CONTROLLER://{self.address}:{CONTROLLER_PORT}",
            "advertised.listeners": f"PLAINTEXT://{self.address}:{BROKER_PORT}",
            "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "log.dirs": str(self.data_dir), "metrics.listener": "http://127.0.0.1:0",
            "num.network.threads": "1", "num.io.threads": "2", "offsets.topic.replication.factor": "3",
            "transaction.state.log.replication.factor": "3", "transaction.state.log.min.isr": "2",
            "group.initial.rebalance.delay.ms": "0", **FAST_FAILURE_DETECTION, **extra}
        self.config_path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        self.process: subprocess.Popen | None = None
        self.paused = False

    def format(self, cluster_id: str) -> None:
        result = run_tool("kafka.tools.storage_tool", "format", "-t", cluster_id, "-c", str(self.config_path))
        assert result.returncode == 0, result.stderr

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen([*self.hosts.exec_prefix(self.node_id), sys.executable, "-m",
                                             "kafka",
                                             str(self.config_path)], stdout=log, stderr=subprocess.STDOUT,
                                             cwd=REPO)
        self.paused = False

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """kill -9: no controlled shutdown, nothing flushed."""
        if self.running:
            self.process.kill()
            self.process.wait(30)
        self.paused = False

    def pause(self) -> None:
        if self.running and not self.paused:
            self.process.send_signal(signal.SIGSTOP)
            self.paused = True

    def resume(self) -> None:
        if self.running and self.paused:
            self.process.send_signal(signal.SIGCONT)
        self.paused = False

    def stop(self, timeout: float = 40) -> None:
        self.resume()
        if self.running:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def admin(self) -> AdminClient:
        return AdminClient({"bootstrap.servers": self.bootstrap, "request.timeout.ms": 5000,
                            "default.api.timeout.ms": 10000})


class NemesisCluster:
    def __init__(self, hosts: Hosts, root: Path, extra: dict[str, str] | None = None) -> None:
        voters = ",".join(f"{n}@{hosts.address(n)}:{CONTROLLER_PORT}" for n in hosts.namespaces)
        self.nodes = {n: NemesisNode(n, hosts, root, voters, extra or {}) for n in hosts.namespaces}
        self.cluster_id = run_tool("kafka.tools.storage_tool", "random-uuid").stdout.strip()

    @property
    def bootstrap(self) -> str:
        return ",".join(node.bootstrap for node in self.nodes.values())

    def format_and_start(self) -> None:
        for node in self.nodes.values():
            node.format(self.cluster_id)
        for node in self.nodes.values():
            node.start()

    def active_controller(self) -> int | None:
        """The quorum leader, as `kafka-metadata-quorum describe --status` reports it from any reachable
        node."""
        for node in self.nodes.values():
            if not node.running or node.paused:
                continue
            try:
                result = run_tool("kafka.tools.metadata_quorum_command", "--bootstrap-server", node.bootstrap,
                                  "describe", "--status", timeout=15)
            except subprocess.TimeoutExpired:
                continue
            found = re.search(r"LeaderId:\s*(\d+)", result.stdout)
            if result.returncode == 0 and found:
                return int(found.group(1))
        return None

    def restore(self) -> None:
        """Every node running again: the paused resumed, the killed restarted."""
        for node in self.nodes.values():
            if node.paused:
                node.resume()
            elif not node.running:
                node.start()

    def stop(self) -> None:
        for node in self.nodes.values():
            node.resume()
            if node.running:
                node.process.send_signal(signal.SIGTERM)
        for node in self.nodes.values():
            if node.process is not None:
                try:
                    node.process.wait(40)
                except subprocess.TimeoutExpired:
                    node.kill()
