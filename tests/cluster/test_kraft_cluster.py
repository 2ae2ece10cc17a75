"""Three KRaft nodes as real processes on loopback: the issue's "done when", step by step.

Seed 004: a quorum of controllers elects a leader, replicates the metadata log, and every broker
replays it. These tests check what a user sees: kafka-metadata-quorum, a topic created through any
node appearing on all of them, failover of the active controller after kill -9, a killed node
catching up, and a full restart keeping every topic.
"""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.errors import KafkaError
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from tests.cluster.kraft_cluster import KRaftCluster, started_cluster
from tests.helpers import unique_topic, wait_until
from tests.wire import WireClient

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def cluster(tmp_path, request):
    with started_cluster(tmp_path, request) as cluster:
        yield cluster


def created(admin: AdminClient, topic: NewTopic) -> bool:
    """One CreateTopics attempt. Until the dead node's session expires (broker.session.timeout.ms),
    Metadata may still name it, and a request sent there fails: like any client, try again."""
    try:
        return admin.create_topics([topic])[topic.name] is None
    except KafkaError:
        return False


def topic_on(admin: AdminClient, name: str):
    try:
        return admin.describe_topics([name]).get(name)
    except Exception:
        return None


def leaders_everywhere(cluster: KRaftCluster, name: str, partitions: int):
    """The topic as every running node's broker describes it, once all agree and every partition has a
    leader."""
    seen = []
    for node in cluster.nodes.values():
        if not node.running:
            continue
        with node.admin() as admin:
            desc = topic_on(admin, name)
        if desc is None or len(desc.partitions) != partitions or any(p.leader < 0 for p in desc.partitions):
            return None
        seen.append(desc)
    return seen


def test_three_nodes_elect_a_leader_and_share_topics(cluster):
    nodes = cluster.nodes
    leader = cluster.await_leader(nodes[1])
    status = cluster.quorum_status(nodes[2])
    assert cluster.replica_ids(status["CurrentVoters"]) == [1, 2, 3]
    assert int(status["LeaderId"]) == leader and int(status["LeaderEpoch"]) >= 1
    assert status["ClusterId"] == cluster.cluster_id

    topic = unique_topic("spread")
    with nodes[2].admin() as admin:
        wait_until(lambda: created(admin, NewTopic(topic, 6, 3)), timeout=60,
                   message="CreateTopics through node 2", interval=0.5)
    started = time.monotonic()
    descriptions = wait_until(lambda: leaders_everywhere(cluster, topic, 6), timeout=30,
                              message="the topic on all three nodes", interval=0.05)
    print(f"topic visible with leaders on all three nodes {time.monotonic() - started:.3f} s after "
          "CreateTopics")
    partitions = descriptions[0].partitions
    assert all(sorted(p.replicas) == [1, 2, 3] for p in partitions)
    # Striped placement: each broker leads two of the six partitions.
    assert sorted(p.leader for p in partitions) == [1, 1, 2, 2, 3, 3]
    assert all(d.partitions == partitions for d in descriptions)


def test_kill_the_active_controller_and_a_survivor_takes_over(cluster):
    nodes = cluster.nodes
    old_leader = cluster.await_leader(nodes[1])
    survivor = next(n for i, n in nodes.items() if i != old_leader)
    nodes[old_leader].kill()
    killed_at, killed_wall = time.monotonic(), datetime.now()
    new_leader = cluster.await_leader(survivor, timeout=60, not_in=(old_leader,))
    seen_s = time.monotonic() - killed_at
    elected = [line for line in nodes[new_leader].output().splitlines() if "elected leader" in line][-1]
    elected_s = (datetime.fromisoformat(elected.split()[0]) - killed_wall).total_seconds()
    print(f"node {new_leader} elected leader {elected_s:.2f} s after kill -9 of {old_leader}; "
          f"kafka-metadata-quorum showed it after {seen_s:.2f} s")
    assert new_leader != old_leader

    topic = unique_topic("after-failover")
    with survivor.admin() as admin:
        # One call, as a user's kafka-topics makes: Metadata may still name the killed node as the
        # broker to send it to (until its session expires), and the admin client tries again elsewhere.
        assert admin.create_topics([NewTopic(topic, 3, 2)])[topic] is None
    wait_until(lambda: leaders_everywhere(cluster, topic, 3), timeout=30, message="topic on the survivors")

    nodes[old_leader].start()  # the killed node restarts and catches up with what it missed
    wait_until(lambda: nodes[old_leader].running and leaders_everywhere(cluster, topic, 3), timeout=90,
               message="the restarted node to catch up", interval=0.5)


def test_a_full_restart_keeps_every_topic(cluster):
    nodes = cluster.nodes
    cluster.await_leader(nodes[1])
    topics = [unique_topic("kept") for _ in range(3)]
    with nodes[3].admin() as admin:
        for t in topics:
            wait_until(lambda t=t: created(admin, NewTopic(t, 2, 3)), timeout=60,
                       message=f"create {t}", interval=0.5)
    for t in topics:
        wait_until(lambda t=t: leaders_everywhere(cluster, t, 2), timeout=30, message=f"{t} everywhere")
    cluster.stop()
    for node in nodes.values():
        assert node.process.returncode == 0, node.output()[-4000:]
        node.start()
    cluster.await_leader(nodes[2])
    for t in topics:
        wait_until(lambda t=t: leaders_everywhere(cluster, t, 2), timeout=60, message=f"{t} after restart")


def test_without_a_quorum_a_survivor_still_answers_at_once(cluster):
    """Two of three nodes gone: no controller can be elected. The survivor's broker keeps serving what
    it knows and answers a request that would create a topic with LEADER_NOT_AVAILABLE within
    seconds (the client retries), rather than hold an I/O thread until the controller returns."""
    nodes = cluster.nodes
    cluster.await_leader(nodes[1])
    nodes[2].kill()
    nodes[3].kill()
    client = WireClient(nodes[1].broker_port, timeout=30)
    started = time.monotonic()
    answer = client.request(ApiKey.METADATA, 12, {"topics": [{"name": unique_topic("no-quorum")}],
                                                  "allow_auto_topic_creation": True,
                                                  "include_topic_authorized_operations": False})
    took = time.monotonic() - started
    assert answer.topics[0].error_code == Errors.LEADER_NOT_AVAILABLE
    assert took < 10, f"Metadata took {took:.1f} s without a quorum"
    assert client.request(ApiKey.API_VERSIONS, 3,
                          {"client_software_name": "t", "client_software_version": "1"}
                          ).error_code == Errors.NONE
    client.close()
