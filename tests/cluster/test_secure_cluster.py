"""Acceptance (issue 29, "done when"): `make cluster-secure` as a new user runs it, and the walk-through of
docs/security.md#the-secure-cluster on its three real node processes.

The Makefile's own recipe is read and run -- kafka.tools.secure_cluster_setup (CA, certificates, client
property files, `kafka-storage format --add-scram`), then kafka.tools.local_cluster -- on copies of
config/cluster-secure/ that differ only in their port numbers (free ones), in a scratch directory. kafka-acls
(ours, --command-config admin.properties) grants alice Write on `orders` and bob Read on it with group
`billing`; alice produces over SASL_SSL (confluent-kafka, SCRAM-SHA-512), bob consumes in billing, carol
(logged in, no ACLs) is refused with TOPIC_AUTHORIZATION_FAILED and sees no topic, a wrong password fails and
counts in failed-authentication-total, and alice's certificate on the mTLS listener makes her User:alice (the
request trace says so); a plaintext client on the SASL_SSL port and a TLS client without a certificate on the
mTLS port are closed and counted. Then the leader of orders-0 is killed with SIGKILL under alice's acks=all
stream, and the same walk-through passes on each surviving node alone, with every acknowledged record read
back.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import ssl
import subprocess
import sys
import urllib.request
from pathlib import Path

import confluent_kafka
import pytest

from kafka.clients.admin import AdminClient
from kafka.tools.command_line_utils import load_props
from kafka.tools.request_trace_command import fetch_trace
from tests.cluster.kraft_cluster import run_tool
from tests.cluster.test_kraft_cluster import topic_on
from tests.cluster.test_replication import NumberedProducer
from tests.helpers import REPO, free_port, unique_topic, wait_until

pytestmark = pytest.mark.timeout(420)
TOPIC = "orders"
NODES = (1, 2, 3)
FAILED_LOGINS = "kafka_server_socket_server_metrics_failed_authentication_total"


def make_recipe(target: str) -> list[list[str]]:
    """The commands `make <target>` runs, read from the Makefile (its := variables expanded, $(BIN)/python
    this interpreter), so the test starts the cluster exactly as the target does."""
    text = (REPO / "Makefile").read_text().replace("\\\n", " ")
    variables = dict(re.findall(r"^(\w+)\s*:=\s*(.*)$", text, re.M))
    recipe = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", text, re.M).group(1)

    def expand(line: str) -> str:
        line = line.replace("$(BIN)/python", sys.executable)
        return re.sub(r"\$\((\w+)\)", lambda m: expand(variables[m.group(1)]), line)
    return [shlex.split(expand(line.strip())) for line in recipe.splitlines()]


class SecureCluster:
    """The make target's commands run in `root` on copies of config/cluster-secure/ with free ports."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ports: dict[int, int] = {}
        (root / "config" / "cluster-secure").mkdir(parents=True)
        for n in NODES:
            name = f"config/cluster-secure/node-{n}.properties"
            text = re.sub(r"127\.0\.0\.1:(\d+)", lambda m: f"127.0.0.1:{self.port(int(m.group(1)))}",
                          (REPO / name).read_text())
            (root / name).write_text(text)
        self.files = root / "data" / "cluster-secure"
        self.env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.log = root / "cluster.log"
        self.process: subprocess.Popen | None = None
        self.pids: dict[int, int] = {}
        self.alive = set(NODES)

    def port(self, original: int) -> int:
        return self.ports.setdefault(original, free_port())

    def start(self) -> None:
        *setup, start = make_recipe("cluster-secure")
        for command in setup:
            result = subprocess.run(command, cwd=self.root, env=self.env, capture_output=True, text=True,
                                    timeout=120)
            assert result.returncode == 0, result.stdout + result.stderr
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(start, cwd=self.root, env=self.env, stdout=log,
                                            stderr=subprocess.STDOUT,
                                            start_new_session=True)
        self.pids = wait_until(lambda: len(p := {int(n): int(pid) for n, pid in re.findall(
            r"^\[node-(\d)\] started: pid (\d+)", self.output(), re.M)}) == 3 and p, timeout=30,
            message="three nodes started")

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(90)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)

    def kill(self, node: int) -> None:
        os.kill(self.pids[node], signal.SIGKILL)
        self.alive.discard(node)

    def bootstrap(self, nodes=None, base: int = 9090) -> str:  # SASL_SSL: 9092, 9094, 9096; SSL: base 9190
        return ",".join(f"127.0.0.1:{self.ports[base + 2 * n]}" for n in sorted(nodes or self.alive))

    def client(self, user: str, nodes=None, **extra) -> dict:
        """confluent-kafka's settings from the generated <user>-librdkafka.properties."""
        ssl_listener = user.endswith("-mtls")
        return {**load_props(str(self.files / f"{user}-librdkafka.properties")),
                "bootstrap.servers": self.bootstrap(nodes, 9190 if ssl_listener else 9090), **extra}

    def tool(self, module: str, *args: str, nodes=None) -> subprocess.CompletedProcess:
        return run_tool(module, "--bootstrap-server", self.bootstrap(nodes), "--command-config",
                        str(self.files / "admin.properties"), *args)

    def admin(self) -> AdminClient:
        return AdminClient({**load_props(str(self.files / "admin.properties")),
                            "bootstrap.servers": self.bootstrap(),
                            "request.timeout.ms": 5000, "default.api.timeout.ms": 10000})

    def metric(self, node: int, name: str, listener: str = "SASL_SSL") -> float:
        text = urllib.request.urlopen(f"http://127.0.0.1:{self.ports[9403 + node]}/metrics",
                                      timeout=10).read().decode()
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith(name + "{") and f'listener="{listener}"' in line)

    def trace(self, node: int, client_id: str) -> str:
        return fetch_trace(f"http://127.0.0.1:{self.ports[9403 + node]}", "Produce", 5, 0,
                           client_id=client_id)


@pytest.fixture
def secure_cluster(tmp_path, request):
    cluster = SecureCluster(tmp_path)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            print(cluster.output()[-20000:])


def leader_of_orders(cluster: SecureCluster, exclude: int | None = None) -> int | None:
    with cluster.admin() as admin:
        found = topic_on(admin, TOPIC)
    partition = found.partitions[0] if found is not None else None
    return partition.leader if partition is not None and partition.leader not in (-1, exclude) else None


def produce(conf: dict, value: bytes) -> confluent_kafka.KafkaError | None:
    """One record sent with acks=all; the delivery report's error (None: acknowledged)."""
    reports: list = []
    producer = confluent_kafka.Producer({**conf, "acks": "all", "message.timeout.ms": 30000})
    producer.produce(TOPIC, value, on_delivery=lambda err, _msg: reports.append(err))
    producer.flush(40)
    return reports[0] if reports else confluent_kafka.KafkaError(confluent_kafka.KafkaError._MSG_TIMED_OUT)


def bob_consumes_until(cluster: SecureCluster, nodes, marker: bytes) -> None:
    consumer = confluent_kafka.Consumer(cluster.client("bob", nodes, **{"group.id": "billing",
                                                                        "auto.offset.reset": "earliest"}))
    consumer.subscribe([TOPIC])
    try:
        def saw_marker() -> bool:
            message = consumer.poll(0.5)
            assert message is None or message.error() is None, message.error()
            return message is not None and message.value() == marker
        wait_until(saw_marker, timeout=60, message=f"bob to read {marker!r} in group billing", interval=0)
        consumer.commit(asynchronous=False)
    finally:
        consumer.close()


def walk_through(cluster: SecureCluster, nodes, tag: str) -> None:
    """alice writes, bob reads, carol is refused, a wrong password counts, alice's certificate is alice."""
    marker = f"walk-{tag}".encode()
    assert produce(cluster.client("alice", nodes), marker) is None
    bob_consumes_until(cluster, nodes, marker)

    carol = cluster.client("carol", nodes)
    assert produce(carol, b"carol").code() == confluent_kafka.KafkaError.TOPIC_AUTHORIZATION_FAILED
    probe = confluent_kafka.Producer(carol)
    assert TOPIC not in probe.list_topics(timeout=10).topics  # Metadata leaves out what she may not describe
    assert probe.list_topics(TOPIC, timeout=10).topics[TOPIC].error.code() == \
        confluent_kafka.KafkaError.TOPIC_AUTHORIZATION_FAILED

    failed_before = sum(cluster.metric(n, FAILED_LOGINS) for n in nodes)
    intruder = confluent_kafka.Producer(cluster.client("alice", nodes, **{"sasl.password": "not-alices"}))
    with pytest.raises(confluent_kafka.KafkaException):
        intruder.list_topics(timeout=3)
    wait_until(lambda: sum(cluster.metric(n, FAILED_LOGINS) for n in nodes) > failed_before, timeout=20,
               message="the wrong password counted in failed-authentication-total")

    client_id = unique_topic(f"mtls-{tag}")
    assert produce(cluster.client("alice-mtls", nodes, **{"client.id": client_id}), b"by-certificate") is None
    traced = wait_until(lambda: next((page for n in cluster.alive if "principal=User:alice" in
                                      (page := cluster.trace(n, client_id))), None), timeout=20,
                        message="alice's Produce over mTLS in a request trace")
    assert "authorize User:alice WRITE TOPIC:orders -> ALLOWED" in traced


def strangers_are_turned_away(cluster: SecureCluster, node: int) -> None:
    """The secure configs refuse what they must: a plaintext client on the SASL_SSL port, a TLS client
    without a certificate on the mTLS port; both closed and counted, and the node serves on."""
    for port, listener, talk in ((cluster.ports[9090 + 2 * node], "SASL_SSL", plaintext_api_versions),
                                 (cluster.ports[9190 + 2 * node], "SSL", tls_without_a_certificate)):
        failed = cluster.metric(node, FAILED_LOGINS, listener)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            talk(cluster, raw)
        wait_until(lambda n=listener, f=failed: cluster.metric(node, FAILED_LOGINS, n) > f, timeout=20,
                   message=f"the refused {listener} connection counted")


def plaintext_api_versions(_cluster: SecureCluster, raw: socket.socket) -> None:
    raw.sendall(b"\x00\x00\x00\x0e\x00\x12\x00\x00\x00\x00\x00\x01\x00\x04test")  # ApiVersions v0, no TLS
    raw.settimeout(10)
    try:
        while raw.recv(4096):  # at most a TLS alert, then the close
            pass
    except ConnectionResetError:
        pass


def tls_without_a_certificate(cluster: SecureCluster, raw: socket.socket) -> None:
    context = ssl.create_default_context(cafile=str(cluster.files / "ca.pem"))
    tls = context.wrap_socket(raw, server_hostname="127.0.0.1")
    # TLS 1.3: the refusal comes as an alert on first read
    with pytest.raises((ssl.SSLError, ConnectionError)):
        tls.sendall(b"\x00\x00\x00\x00")
        tls.recv(1)


def test_the_secure_cluster_walk_through_survives_a_killed_leader(secure_cluster):
    cluster = secure_cluster
    files = sorted(p.name for p in cluster.files.iterdir() if p.is_file())
    assert {"ca.pem", "node-1.pem", "alice.pem", "admin.properties", "alice.properties", "bob.properties",
            "carol.properties", "alice-mtls.properties"} <= set(files), files

    granted = [cluster.tool("kafka.tools.acl_command", "--add", "--allow-principal", "User:alice",
                            "--operation",
                            "Write", "--topic", TOPIC),
               cluster.tool("kafka.tools.acl_command", "--add", "--allow-principal", "User:bob",
                            "--operation", "Read",
                            "--topic", TOPIC, "--group", "billing")]
    for result in granted:
        assert result.returncode == 0 and "Adding ACLs" in result.stdout, result.stdout + result.stderr
    created = cluster.tool("kafka.tools.topics", "--create", "--topic", TOPIC, "--partitions", "1",
                           "--replication-factor", "3", "--config", "min.insync.replicas=2")
    assert created.returncode == 0, created.stderr
    wait_until(lambda: leader_of_orders(cluster) is not None, timeout=60, message="orders-0 has a leader")

    walk_through(cluster, NODES, "all")
    strangers_are_turned_away(cluster, 1)

    producer = NumberedProducer(cluster.bootstrap(), TOPIC)  # alice's stream of numbers, acks=all
    producer.producer = confluent_kafka.Producer(cluster.client("alice", **{
        "acks": "all", "linger.ms": 5, "message.timeout.ms": 120000, "retry.backoff.ms": 200,
        "topic.metadata.refresh.interval.ms": 1000}))
    producer.start()
    try:
        wait_until(lambda: len(producer.acknowledged) >= 300, timeout=60,
                   message="alice's records acknowledged")
        leader = leader_of_orders(cluster)
        cluster.kill(leader)  # SIGKILL: no controlled shutdown
        killed_at = len(producer.acknowledged)
        wait_until(lambda: leader_of_orders(cluster, exclude=leader) is not None, timeout=60,
                   message=f"a new leader of orders-0 without node {leader}", interval=0.5)
        wait_until(lambda: len(producer.acknowledged) >= killed_at + 300, timeout=60,
                   message="acknowledgements from the new leader")
    finally:
        producer.stop()
    assert not producer.errors, producer.errors[:5]

    for node in sorted(cluster.alive):
        walk_through(cluster, [node], f"node-{node}")

    acknowledged = set(producer.acknowledged)
    consumer = confluent_kafka.Consumer(cluster.client("bob",
                                                       **{"group.id": "billing",
                                                          "enable.auto.commit": False}))
    consumer.assign([confluent_kafka.TopicPartition(TOPIC, 0, confluent_kafka.OFFSET_BEGINNING)])
    seen: set[int] = set()
    try:
        def read_all() -> bool:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None and message.value().isdigit():
                seen.add(int(message.value()))
            return acknowledged <= seen
        wait_until(read_all, timeout=90, message="every acknowledged record read back by bob", interval=0)
    finally:
        consumer.close()
    assert len(acknowledged) >= 600
    assert "Failed authentication" in cluster.output()  # logged once, with the principal and address
