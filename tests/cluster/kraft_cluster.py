"""A KRaft cluster of real node processes on loopback, for the cluster tests.

Each node is `python -m kafka <its server.properties>`, formatted first with `kafka-storage format`
exactly as a user would (one cluster id for all), on free ports: a broker listener and a
controller listener per node. Nothing sleeps to wait: callers use wait_until with a deadline.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kafka.clients.admin import AdminClient
from tests.helpers import REPO, free_port, wait_until

LIFECYCLE_LINE = re.compile(r"elected leader|registered with|registration failed|registering again|"
                            r"unfenced|fencing a broker|caught up|heartbeat failed|heartbeats answered")


def run_tool(module: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, cwd=REPO,
                          timeout=timeout)


class Node:
    def __init__(self, node_id: int, root: Path, broker_port: int, controller_port: int, voters: str,
                 extra: dict[str, str], roles: str = "broker,controller") -> None:
        self.node_id = node_id
        self.roles = roles
        self.broker_port = broker_port
        self.controller_port = controller_port
        self.bootstrap = f"127.0.0.1:{broker_port}"
        self.data_dir = root / f"node-{node_id}"
        self.config_path = root / f"node-{node_id}.properties"
        self.log_path = root / f"node-{node_id}.log"
        listeners = {"broker": f"PLAINTEXT://127.0.0.1:{broker_port}",
                     "controller": f"CONTROLLER://127.0.0.1:{controller_port}"}
        props = {
            "process.roles": roles, "node.id": str(node_id),
            "controller.quorum.voters": voters, "controller.listener.names": "CONTROLLER",
            "listeners": ",".join(listeners[role] for role in roles.split(",")),
            **({"advertised.listeners": f"PLAINTEXT://127.0.0.1:{broker_port}"} if self.is_broker else {}),
            "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "log.dirs": str(self.data_dir), "metrics.listener": "http://127.0.0.1:0",
            "num.network.threads": "1", "num.io.threads": "2", "offsets.topic.replication.factor": "3",
            "group.initial.rebalance.delay.ms": "0", **extra}
        self.config_path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        self.process: subprocess.Popen | None = None

    @property
    def is_broker(self) -> bool:
        return "broker" in self.roles

    def format(self, cluster_id: str) -> subprocess.CompletedProcess:
        return run_tool("kafka.tools.storage_tool", "format", "-t", cluster_id, "-c", str(self.config_path))

    def start(self) -> None:
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen([sys.executable, "-m", "kafka", str(self.config_path)], stdout=log,
                                        stderr=subprocess.STDOUT, cwd=REPO)
        log.close()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        if self.running:
            self.process.kill()
            self.process.wait(10)

    def stop(self, timeout: float = 40) -> int:
        if self.running:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout)
        return self.process.returncode if self.process else 0

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def metric(self, name: str) -> float:
        """One series of this node's /metrics (the URL its last start-up logged), summed over labels."""
        urls = re.findall(r"metrics=(http://\S+/metrics)", self.output())
        assert urls, "the node logged no metrics URL"
        text = urllib.request.urlopen(urls[-1], timeout=10).read().decode()
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith(name) and (line[len(name)] in " {"))

    def admin(self) -> AdminClient:
        return AdminClient({"bootstrap.servers": self.bootstrap, "request.timeout.ms": 5000,
                            "default.api.timeout.ms": 10000})


class KRaftCluster:
    """size combined nodes (process.roles=broker,controller), or with roles one node per entry:
    KRaftCluster(root, roles=["controller"] * 3 + ["broker"] * 3) is the split picture (node ids 1-3
    the voters, 4-6 the brokers that follow the metadata log as observers)."""

    def __init__(self, root: Path, size: int = 3, extra: dict[str, str] | None = None,
                 roles: list[str] | None = None) -> None:
        roles = roles or ["broker,controller"] * size
        ports = [(free_port(), free_port()) for _ in roles]
        voters = ",".join(f"{i + 1}@127.0.0.1:{c}"
                          for i, ((_, c), r) in enumerate(zip(ports, roles, strict=True))
                          if "controller" in r)
        self.nodes = {i + 1: Node(i + 1, root, b, c, voters, extra or {}, r)
                      for i, ((b, c), r) in enumerate(zip(ports, roles, strict=True))}
        self.cluster_id = run_tool("kafka.tools.storage_tool", "random-uuid").stdout.strip()

    def format_and_start(self) -> None:
        for node in self.nodes.values():
            result = node.format(self.cluster_id)
            assert result.returncode == 0, result.stderr
        for node in self.nodes.values():
            node.start()

    @property
    def bootstrap(self) -> str:
        return ",".join(n.bootstrap for n in self.nodes.values() if n.running and n.is_broker)

    def quorum_status(self, via: Node) -> dict[str, str]:
        """`kafka-metadata-quorum describe --status`, parsed into its Name: value lines; {} while there is
        no answer (the tool failed, or is still waiting on a controller that was just killed: callers
        ask again until their own deadline)."""
        try:
            result = run_tool("kafka.tools.metadata_quorum_command", "--bootstrap-server", via.bootstrap,
                              "describe", "--status", timeout=30)
        except subprocess.TimeoutExpired:
            return {}
        if result.returncode != 0:
            return {}
        return {name: value.strip()
                for name, colon, value in (line.partition(":") for line in result.stdout.splitlines())
                if colon}

    @staticmethod
    def replica_ids(value: str) -> list[int]:
        """The ids of describe --status' CurrentVoters or CurrentObservers: [{"id": 1, ...}, ...]
        (Kafka 4's form)."""
        return [int(i) for i in re.findall(r'"id": (\d+)', value or "")]

    def await_leader(self, via: Node, timeout: float = 60, not_in: tuple[int, ...] = ()) -> int:
        def leader() -> int | None:
            status = self.quorum_status(via)
            leader_id = int(status.get("LeaderId", "-1"))
            return leader_id if leader_id >= 0 and leader_id not in not_in else None
        return wait_until(leader, timeout=timeout, message="a quorum leader", interval=0.2)

    def stop(self) -> None:
        """Brokers first, then the controllers (as Kafka's operations guide orders it): a broker's
        controlled shutdown needs an active controller to answer it."""
        brokers = [n for n in self.nodes.values() if n.is_broker]
        controllers = [n for n in self.nodes.values() if not n.is_broker]
        for group in (brokers, controllers):
            for node in group:
                if node.running:
                    node.process.send_signal(signal.SIGTERM)
            for node in group:
                if node.process is not None:
                    try:
                        node.process.wait(40)
                    except subprocess.TimeoutExpired:
                        node.kill()

    def lifecycle(self) -> str:
        """Each node's log lines about elections, registration, fencing and catching up, the few lines
        that say why a broker was not there yet (a failure message carries them whole, where a dump of
        every log is cut)."""
        lines = [f"node {i}: {line.strip()[:200]}" for i, n in self.nodes.items()
                 for line in n.output().splitlines() if LIFECYCLE_LINE.search(line)]
        return "\n".join(lines[-80:])

    def dump_logs(self) -> str:
        return "\n".join(f"===== node {i} =====\n{n.output()[-6000:]}" for i, n in self.nodes.items())


@contextmanager
def started_cluster(root: Path, request, extra: dict[str, str] | None = None,
                    roles: list[str] | None = None) -> Iterator[KRaftCluster]:
    """A formatted, started cluster for one test; stopped after it, with every node's log printed
    if the test failed (that is where an election or a fencing shows)."""
    cluster = KRaftCluster(root, extra=extra, roles=roles)
    cluster.format_and_start()
    try:
        yield cluster
    finally:
        cluster.stop()
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            print(cluster.dump_logs())
