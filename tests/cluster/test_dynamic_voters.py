"""A quorum that changes its voters while a producer writes (KIP-853), on real processes.

Three controllers are formatted with `kafka-storage format --initial-controllers` (their voter set is
the bootstrap snapshot, kraft.version 1) and a broker finds them through
controller.quorum.bootstrap.servers. A fourth controller, formatted with --no-initial-controllers,
starts as an observer; `kafka-metadata-quorum --bootstrap-controller ... add-controller` makes it a
voter, and `remove-controller` (through the broker, --bootstrap-server) then removes an original one,
while an acks=all producer keeps writing.
Nothing acknowledged is lost, and `describe --status` shows the new voter set with directory ids.
"""

from __future__ import annotations

import re
import subprocess
import threading
import time

import confluent_kafka
import pytest

from kafka.clients.admin import NewTopic
from kafka.utils.uuid import random_uuid
from tests.cluster.kraft_cluster import KRaftCluster, Node, run_tool
from tests.cluster.test_kraft_cluster import created
from tests.cluster.test_replication import read_all
from tests.helpers import free_port, unique_topic, wait_until

pytestmark = pytest.mark.timeout(180)

CONTROLLERS, NEW_CONTROLLER, BROKER = (1, 2, 3), 4, 10


def quorum_tool(bootstrap_controller: str, *args: str):
    return run_tool("kafka.tools.metadata_quorum_command", "--bootstrap-controller", bootstrap_controller,
                    *args,
                    timeout=30)


def status_of(bootstrap_controller: str) -> dict[str, str]:
    """describe --status as Name: value lines; {} while there is no answer (the tool failed, or ran past
    its 30 s on a loaded machine): callers ask again until their own deadline."""
    try:
        result = quorum_tool(bootstrap_controller, "describe", "--status")
    except subprocess.TimeoutExpired:
        return {}
    if result.returncode != 0:
        return {}
    return {name: value.strip()
            for name, colon, value in (line.partition(":") for line in result.stdout.splitlines())
            if colon}


class Producing(threading.Thread):
    """An acks=all producer writing numbered records until stopped; remembers what was acknowledged."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        super().__init__(daemon=True)
        self.producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "acks": "all",
                                                  "enable.idempotence": True, "linger.ms": 5})
        self.topic, self.acked, self.stopping = topic, set(), threading.Event()

    def run(self) -> None:
        n = 0
        while not self.stopping.is_set():
            self.producer.produce(self.topic, str(n).encode(),
                                  on_delivery=lambda err, msg: err is None
                                  and self.acked.add(int(msg.value())))
            n += 1
            self.producer.poll(0.01)
        self.producer.flush(30)


def test_a_controller_is_added_and_an_original_removed_while_a_producer_writes(tmp_path, request):
    ports = {i: free_port() for i in (*CONTROLLERS, NEW_CONTROLLER)}
    directory_ids = {i: random_uuid() for i in CONTROLLERS}
    bootstrap_servers = ",".join(f"127.0.0.1:{ports[i]}" for i in CONTROLLERS)
    dynamic = {"controller.quorum.voters": "", "controller.quorum.bootstrap.servers": bootstrap_servers,
               "offsets.topic.replication.factor": "1", "broker.session.timeout.ms": "6000",
               "broker.heartbeat.interval.ms": "500"}
    nodes = {i: Node(i, tmp_path, free_port(), ports.get(i, 0), "", dynamic, "controller")
             for i in (*CONTROLLERS, NEW_CONTROLLER)}
    nodes[BROKER] = Node(BROKER, tmp_path, free_port(), 0, "", dynamic, "broker")
    cluster = KRaftCluster.__new__(KRaftCluster)
    cluster.nodes = nodes
    cluster_id = random_uuid()
    initial = ",".join(f"{i}@127.0.0.1:{ports[i]}:{directory_ids[i]}" for i in CONTROLLERS)
    try:
        for i in CONTROLLERS:
            formatted = run_tool("kafka.tools.storage_tool", "format", "-t", cluster_id, "-c",
                                 str(nodes[i].config_path), "--initial-controllers", initial)
            assert "dynamic metadata voter directory" in formatted.stdout, formatted.stdout + formatted.stderr
        formatted = run_tool("kafka.tools.storage_tool", "format", "-t", cluster_id, "-c",
                             str(nodes[NEW_CONTROLLER].config_path), "--no-initial-controllers")
        assert formatted.returncode == 0, formatted.stderr
        assert run_tool("kafka.tools.storage_tool", "format", "-t", cluster_id, "-c",
                        str(nodes[BROKER].config_path)).returncode == 0
        started = time.monotonic()
        for node in nodes.values():
            node.start()
        via = f"127.0.0.1:{ports[2]}"
        status = wait_until(lambda: (s := status_of(via)) and int(s.get("LeaderId", -1)) >= 0 and s,
                            timeout=30, message="a leader of the dynamic quorum", interval=0.3)
        assert KRaftCluster.replica_ids(status["CurrentVoters"]) == [1, 2, 3]
        for i in CONTROLLERS:
            assert f'"id": {i}, "directoryId": "{directory_ids[i]}"' in status["CurrentVoters"], status

        topic = unique_topic("voters")
        with nodes[BROKER].admin() as admin:
            wait_until(lambda: created(admin, NewTopic(topic, 1, 1)), timeout=30, message="the topic",
                       interval=0.3)
        producing = Producing(nodes[BROKER].bootstrap, topic)
        producing.start()
        wait_until(lambda: len(producing.acked) > 50, timeout=30, message="records acknowledged")

        # The new controller fetches as an observer, then joins the voters.
        added = wait_until(lambda: (r := quorum_tool(via, "--command-config",
                                                     str(nodes[NEW_CONTROLLER].config_path),
                                                     "add-controller")).returncode == 0 and r.stdout,
                           timeout=30, message="add-controller", interval=0.5)
        assert re.match(r"Added controller 4 with directory id \S{22} and endpoints: "
                        r"CONTROLLER://127.0.0.1:\d+",
                        added), added
        # One original goes: a follower if there is one to choose, else the leader itself.
        leader = int(status_of(via).get("LeaderId", -1))
        removed = next(i for i in CONTROLLERS if i != leader)
        via = f"127.0.0.1:{ports[NEW_CONTROLLER]}" if removed == 2 else via
        # This one through the broker (--bootstrap-server), which forwards it to the active controller.
        def remove_controller() -> str:
            r = run_tool("kafka.tools.metadata_quorum_command", "--bootstrap-server", nodes[BROKER].bootstrap,
                         "remove-controller", "--controller-id", str(removed),
                         "--controller-directory-id", directory_ids[removed], timeout=30)
            return r.returncode == 0 and r.stdout
        result = wait_until(remove_controller, timeout=30, message="remove-controller", interval=0.5)
        expected = f"Removed KRaft controller {removed} with directory id {directory_ids[removed]}"
        assert result.strip() == expected
        voters_left = sorted({1, 2, 3, 4} - {removed})
        status = wait_until(lambda: (s := status_of(via)) and
                            KRaftCluster.replica_ids(s.get("CurrentVoters", "")) == voters_left
                            and removed in KRaftCluster.replica_ids(s["CurrentObservers"]) and s,
                            timeout=30, message="the new voter set, the removed controller an observer",
                            interval=0.3)
        count = len(producing.acked)
        wait_until(lambda: len(producing.acked) > count + 50, timeout=30, message="writes after the changes")
        producing.stopping.set()
        producing.join(60)
        values, _ = read_all(cluster, topic)
        assert producing.acked <= values, f"acknowledged but lost: {sorted(producing.acked - values)[:10]}"
        print(f"{len(producing.acked)} records acknowledged, none lost; voters now "
              f"{KRaftCluster.replica_ids(status['CurrentVoters'])}; {time.monotonic() - started:.1f} s")
    finally:
        cluster.stop()
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            print(cluster.dump_logs())
