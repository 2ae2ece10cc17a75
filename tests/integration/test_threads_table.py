"""docs/architecture.md's threads table is the thread dump of a running node (issue 45 item 3).

A combined node (process.roles=broker,controller, as `make run` starts) and a split cluster (one
controller-only node, two broker-only nodes following a replicated partition, with a consumer group)
run in this process; the threads each one starts are read from threading.enumerate() and compared
with the table both ways: every thread has a row that allows its role, and every row is some thread.
Numbers are normalised on both sides (`ExpirationReaper-1-Fetch` and `ExpirationReaper-<node.id>-Fetch`
are both `ExpirationReaper-<n>-Fetch`).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, NewTopic

from kafka.server.kafka_config import KafkaConfig
from kafka.server.kafka_server import KafkaServer
from kafka.tools import storage_tool
from tests.helpers import REPO, InProcessBroker, free_port, unique_topic, wait_until

pytestmark = pytest.mark.broker

ROW = re.compile(r"^\| (?P<names>`[^|]+) \| (?P<on>broker|controller|both) \|")
CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qk"


def normalised(name: str) -> str:
    return re.sub(r"\d+", "<n>", re.sub(r"<[^>]+>", "<n>", name))


def documented() -> dict[str, str]:
    """Each thread name of the table, normalised -> the role it runs on (broker, controller, both)."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("\n## Threads\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if match := ROW.match(line):
            for name in re.findall(r"`([^`]+)`", match.group("names")):
                rows[normalised(name)] = match.group("on")
    return rows


def started_by(start) -> set[str]:
    """The normalised names of the threads `start()` leaves running."""
    before = set(threading.enumerate())
    start()
    return {normalised(t.name) for t in set(threading.enumerate()) - before}


def thread_running(prefix: str) -> bool:
    return any(t.name.startswith(prefix) for t in threading.enumerate())


def use_a_group(bootstrap: str) -> None:
    """A replicated topic and a consumer group: the fetcher threads and the coordinator's loader start."""
    topic = unique_topic("threads")
    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept: the future dies with its client
    admin.create_topics([NewTopic(topic, 1, 2)])[topic].result(20)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": unique_topic("g")})
    try:
        consumer.subscribe([topic])
        wait_until(lambda: consumer.poll(0.1) is None and consumer.assignment(), timeout=30,
                   message="the group's assignment")
    finally:
        consumer.close()
    wait_until(lambda: thread_running("ReplicaFetcherThread-"), timeout=20, message="a follower's fetcher")


def split_config(root: Path, node_id: int, role: str, controller_port: int) -> dict[str, str]:
    listener = f"CONTROLLER://127.0.0.1:{controller_port}" if role == "controller" else "PLAINTEXT://127.0.0.1:0"
    props = {"process.roles": role, "node.id": str(node_id), "listeners": listener,
             "controller.quorum.voters": f"1@127.0.0.1:{controller_port}",
             "controller.listener.names": "CONTROLLER",
             "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
             "log.dirs": str(root / f"node-{node_id}"), "metrics.listener": "http://127.0.0.1:0",
             "num.network.threads": "1", "num.io.threads": "2", "offsets.topic.num.partitions": "2",
             "offsets.topic.replication.factor": "2", "group.initial.rebalance.delay.ms": "0"}
    path = root / f"node-{node_id}.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    assert storage_tool.main(["format", "-t", CLUSTER_ID, "-c", str(path)]) == 0
    return props


def undocumented(seen: set[str], allowed: set[str], rows: dict[str, str]) -> list[str]:
    return sorted(name for name in seen if rows.get(name) not in allowed)


def test_the_threads_table_is_what_a_combined_and_a_split_cluster_run(tmp_path):
    rows = documented()
    assert rows, "docs/architecture.md has no threads table"
    servers: list = []
    try:
        combined = started_by(lambda: servers.append(InProcessBroker(tmp_path / "combined", {})))
        for server in servers:
            server.stop()
        servers.clear()
        controller_port = free_port()
        configs = [split_config(tmp_path, 1, "controller", controller_port)]
        configs += [split_config(tmp_path, n, "broker", controller_port) for n in (2, 3)]

        def start(props: dict[str, str]) -> None:
            server = KafkaServer(KafkaConfig(props))
            servers.append(server)
            server.startup()

        controller = started_by(lambda: start(configs[0]))
        brokers = started_by(lambda: ([start(c) for c in configs[1:]],
                                      use_a_group(f"127.0.0.1:{servers[1].bound_port()}")))
    finally:
        for server in reversed(servers):
            server.shutdown() if isinstance(server, KafkaServer) else server.stop()

    missing = undocumented(combined, {"broker", "controller", "both"}, rows)
    assert not missing, f"a combined node runs threads the table lacks: {missing}"
    missing = undocumented(controller, {"controller", "both"}, rows)
    assert not missing, f"a controller-only node runs threads the table lacks or puts on brokers: {missing}"
    missing = undocumented(brokers, {"broker", "both"}, rows)
    assert not missing, f"a broker-only node runs threads the table lacks or puts on controllers: {missing}"
    seen = combined | controller | brokers | {normalised(threading.main_thread().name)}
    assert not sorted(set(rows) - seen), f"the table names threads no node ran: {sorted(set(rows) - seen)}"
