"""The split KRaft cluster as real processes on loopback: three controller-only nodes
(process.roles=controller, node ids 1-3, the voters) and three broker-only nodes
(process.roles=broker, node ids 4-6), the picture `make cluster-split` starts (docs/kraft.md).

Seed 004: the brokers replay the metadata log the controllers write. They follow it as Raft
observers (they fetch __cluster_metadata but never vote), register with the active controller and
heartbeat to it, and are fenced when they stop. These tests check what a user sees: the quorum as
kafka-metadata-quorum shows it, topic creation, a broker killed under an acks=all producer, the
active controller killed while brokers keep serving, and a broker started with no controller to
reach.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import confluent_kafka
import pytest

from kafka.clients.admin import NewTopic
from tests.cluster.kraft_cluster import KRaftCluster, run_tool, started_cluster
from tests.cluster.test_kraft_cluster import created
from tests.cluster.test_replication import NumberedProducer, describe, read_all
from tests.helpers import REPO, free_port, unique_topic, wait_until

pytestmark = pytest.mark.timeout(300)

SPLIT = ["controller"] * 3 + ["broker"] * 3
ACTIVE_CONTROLLERS = "kafka_controller_kafkacontroller_activecontrollercount"
CONTROLLERS, BROKERS = (1, 2, 3), (4, 5, 6)
# A dead broker is fenced after 4 s without heartbeats, a silent follower leaves the ISR after 3 s.
FAST_FAILURE_DETECTION = {"broker.session.timeout.ms": "4000", "broker.heartbeat.interval.ms": "500",
                          "replica.lag.time.max.ms": "3000"}


@pytest.fixture
def cluster(tmp_path, request):
    with started_cluster(tmp_path, request, FAST_FAILURE_DETECTION, roles=SPLIT) as cluster:
        yield cluster


def create_replicated_topic(cluster: KRaftCluster, via: int, partitions: int = 1) -> str:
    topic = unique_topic("split")
    with cluster.nodes[via].admin() as admin:
        wait_until(lambda: created(admin, NewTopic(topic, partitions, 3, {"min.insync.replicas": "2"})),
                   timeout=60, message=f"CreateTopics through broker {via}", interval=0.3)
    wait_until(lambda: (p := describe(cluster, topic)) is not None and len(p.isr) == 3, timeout=30,
               message="a leader and a full ISR")
    return topic


def live_brokers(cluster: KRaftCluster, via: int) -> list[int] | None:
    """The brokers DescribeCluster names (a fenced broker is not among them)."""
    try:
        with cluster.nodes[via].admin() as admin:
            return sorted(b.node_id for b in admin.describe_cluster()[2])
    except Exception:
        return None


def test_three_voters_three_observers_and_a_topic_on_the_brokers(cluster):
    nodes = cluster.nodes
    leader = cluster.await_leader(nodes[4])
    assert leader in CONTROLLERS
    # kafka-metadata-quorum describe --status: the controllers vote, the brokers observe.
    status = wait_until(lambda: (s := cluster.quorum_status(nodes[5]))
                        and cluster.replica_ids(s["CurrentObservers"]) == [4, 5, 6] and s,
                        timeout=30, message="three observers in DescribeQuorum")
    assert cluster.replica_ids(status["CurrentVoters"]) == [1, 2, 3]
    assert status["ClusterId"] == cluster.cluster_id
    result = run_tool("kafka.tools.metadata_quorum_command", "--bootstrap-server", nodes[6].bootstrap,
                      "describe", "--replication")
    rows = {int(line.split()[0]): line.split()[-1] for line in result.stdout.splitlines()[1:]}
    assert rows == {leader: "Leader", **{c: "Follower" for c in CONTROLLERS if c != leader},
                    **{b: "Observer" for b in BROKERS}}, result.stdout
    for broker in BROKERS:
        assert "role=observer" in nodes[broker].output()

    # Only brokers hold partitions: the controllers registered none of their own.
    assert live_brokers(cluster, 4) == [4, 5, 6]
    topic = create_replicated_topic(cluster, via=5, partitions=3)
    with nodes[6].admin() as admin:
        partitions = admin.describe_topics([topic])[topic].partitions
    assert all(sorted(p.replicas) == [4, 5, 6] for p in partitions)


def test_a_killed_broker_is_fenced_and_loses_nothing_acknowledged(cluster):
    cluster.await_leader(cluster.nodes[4])
    topic = create_replicated_topic(cluster, via=4)
    producer = NumberedProducer(cluster.bootstrap, topic)
    producer.start()
    try:
        wait_until(lambda: len(producer.acknowledged) >= 300, timeout=60,
                   message="acknowledged records flowing")
        victim = describe(cluster, topic).leader
        cluster.nodes[victim].kill()
        killed, killed_at = time.monotonic(), len(producer.acknowledged)
        survivor = next(b for b in BROKERS if b != victim)
        # Its heartbeats stop: after broker.session.timeout.ms the controller fences it and moves its
        # leadership.
        wait_until(lambda: live_brokers(cluster, survivor) == sorted(set(BROKERS) - {victim}), timeout=30,
                   message=f"broker {victim} fenced")
        print(f"broker {victim} killed; fenced {time.monotonic() - killed:.2f} s later")
        after = wait_until(lambda: (p := describe(cluster, topic, exclude=victim)) is not None
                           and p.leader not in (-1, victim) and victim not in p.isr and p,
                           timeout=30, message="a new leader from the ISR")
        assert after.leader in BROKERS
        wait_until(lambda: len(producer.acknowledged) >= killed_at + 300, timeout=60,
                   message="acknowledgements from the new leader")
    finally:
        producer.stop()
    consumed, _ = read_all(cluster, topic)
    lost = sorted(set(producer.acknowledged) - consumed)
    assert not lost, f"{len(lost)} acknowledged records lost, the first: {lost[:10]}"


def test_the_active_controller_killed_while_brokers_serve_producers_and_consumers(cluster):
    nodes = cluster.nodes
    old = cluster.await_leader(nodes[4])
    topic = create_replicated_topic(cluster, via=6)
    producer = NumberedProducer(cluster.bootstrap, topic)
    consumer = confluent_kafka.Consumer({"bootstrap.servers": cluster.bootstrap,
                                         "group.id": unique_topic("g"),
                                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    consumed: set[int] = set()

    def consume_until(count: int) -> bool:
        message = consumer.poll(0.2)
        if message is not None and not message.error():
            consumed.add(int(message.value()))
        return len(consumed) >= count

    producer.start()
    try:
        wait_until(lambda: consume_until(200), timeout=60, message="records consumed", interval=0)
        nodes[old].kill()
        killed = time.monotonic()
        new = cluster.await_leader(nodes[5], not_in=(old,))
        print(f"controller {old} killed; controller {new} active {time.monotonic() - killed:.2f} s later")
        assert new in CONTROLLERS
        # A controller-only node serves /metrics too: the new active controller counts itself, the other does
        # not.
        other = next(c for c in CONTROLLERS if c not in (old, new))
        wait_until(lambda: nodes[new].metric(ACTIVE_CONTROLLERS) == 1
                   and nodes[other].metric(ACTIVE_CONTROLLERS) == 0,
                   timeout=30,
                   message=f"ActiveControllerCount 1 on controller {new}, 0 on controller {other}")
        # Brokers serve throughout: acknowledgements and consumed records keep coming.
        acked, seen = len(producer.acknowledged), len(consumed)
        wait_until(lambda: len(producer.acknowledged) >= acked + 300, timeout=30,
                   message="acks after failover")
        wait_until(lambda: consume_until(seen + 300), timeout=30, message="records consumed after failover",
                   interval=0)
        # And the new active controller takes metadata changes through any broker.
        create_replicated_topic(cluster, via=4)
    finally:
        producer.stop()
        consumer.close()
    all_read, _ = read_all(cluster, topic)
    lost = sorted(set(producer.acknowledged) - all_read)
    assert not lost, f"{len(lost)} acknowledged records lost, the first: {lost[:10]}"


def test_a_broker_without_reachable_controllers_retries_with_backoff_then_starts_with_them(tmp_path, request):
    cluster = KRaftCluster(tmp_path, extra=FAST_FAILURE_DETECTION, roles=SPLIT)
    broker = cluster.nodes[4]
    # registrations that time out quickly, so that the test sees several attempts in seconds
    config = broker.config_path.read_text()
    broker.config_path.write_text(config + "controller.quorum.request.timeout.ms=500\n")
    for node in cluster.nodes.values():
        assert node.format(cluster.cluster_id).returncode == 0
    broker.start()
    try:
        wait_until(lambda: broker.output().count("broker registration failed, retrying") >= 2
                   or not broker.running,
                   timeout=30, message="two registration retries in the log")
        assert broker.running, broker.output()
        log = broker.output()
        assert "no controller answered in time" in log and "backoff_ms=" in log, log
        # Backoff, not a flood: one line per attempt, each attempt seconds apart.
        assert log.count("broker registration failed") <= 4, log
        for node_id in CONTROLLERS:
            cluster.nodes[node_id].start()
        wait_until(lambda: "unfenced" in broker.output() or not broker.running, timeout=30,
                   message="the broker registered and unfenced once the controllers are up")
        assert broker.running and live_brokers(cluster, 4) == [4], broker.output()
    finally:
        cluster.stop()
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            print(cluster.dump_logs())


def test_make_cluster_split_configs_start_six_nodes_and_stop_brokers_first(tmp_path):
    """`make cluster-split` as a user runs it, on copies of config/cluster-split/ with free ports."""
    ports: dict[str, str] = {}
    names = [f"controller-{i}" for i in (1, 2, 3)] + [f"broker-{i}" for i in (1, 2, 3)]
    for name in names:
        text = (REPO / "config" / "cluster-split" / f"{name}.properties").read_text()
        text = re.sub(r"\b(909[2-7]|940[4-9])\b", lambda m: ports.setdefault(m.group(1), str(free_port())),
                      text)
        (tmp_path / f"{name}.properties").write_text(text)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cluster = subprocess.Popen([sys.executable, "-m", "kafka.tools.local_cluster",
                                *(f"{name}.properties" for name in names)], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    try:
        def status() -> str | None:
            result = run_tool("kafka.tools.metadata_quorum_command", "--bootstrap-server",
                              f"127.0.0.1:{ports['9092']}", "describe", "--status", timeout=30)
            observers = re.search(r"CurrentObservers:\s*(.*)", result.stdout)
            return observers and KRaftCluster.replica_ids(observers.group(1)) == [4, 5, 6] and result.stdout
        voters = re.search(r"CurrentVoters:\s*(.*)",
                           wait_until(status, timeout=60, message="the quorum", interval=0.3))
        assert KRaftCluster.replica_ids(voters.group(1)) == [1, 2, 3]
        cluster.send_signal(signal.SIGINT)
        output, _ = cluster.communicate(timeout=60)
    finally:
        if cluster.poll() is None:
            cluster.kill()
            cluster.communicate()
    assert (tmp_path / "data" / "cluster-split" / "broker-1" / "meta.properties").exists()
    stopped = [line.split("]")[0].strip("[") for line in output.splitlines() if "shut down completed" in line]
    assert sorted(stopped) == sorted(names), output[-3000:]
    assert all(name.startswith("broker") for name in stopped[:3]), stopped
    assert "controlled shutdown did not finish in time" not in output
