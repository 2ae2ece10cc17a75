"""Tiered storage (KIP-405) across three real nodes: a new follower of a leader whose early segments are
only in remote storage, then that follower leading and serving the remote records.

The nodes share one LocalTieredStorage directory (the cluster's "object store") and keep what is in it in
`__remote_log_metadata` (the TopicBasedRemoteLogMetadataManager). A topic on one broker is produced to
until its leader has copied most segments and deleted them locally. A reassignment then adds a second
broker: its first fetch from offset 0 is answered OFFSET_MOVED_TO_TIERED_STORAGE, and its TierStateMachine
rebuilds the leader-epoch cache and producer state from the remote segment before the leader's local log
start, starts its log there and fetches the rest, joining the ISR without copying what is remote. With the
first broker stopped, the second leads, and a consumer reading from offset 0 gets every record: the early
ones read from remote storage by the new leader's reader threads.
"""

from __future__ import annotations

import json

import confluent_kafka
import pytest

from kafka.clients.admin import NewTopic
from tests.cluster.kraft_cluster import run_tool, started_cluster
from tests.cluster.test_kraft_cluster import created
from tests.cluster.test_replication import FAST_FAILURE_DETECTION, describe, read_all
from tests.helpers import unique_topic, wait_until

pytestmark = pytest.mark.timeout(400)

LOCAL_TIERED_STORAGE = "org.apache.kafka.server.log.remote.storage.LocalTieredStorage"


@pytest.fixture
def cluster(tmp_path, request):
    tiered = {"remote.log.storage.system.enable": "true",
              "remote.log.storage.manager.class.name": LOCAL_TIERED_STORAGE,
              "rsm.config.dir": str(tmp_path / "remote"),  # the same store for every node
              "remote.log.metadata.manager.listener.name": "PLAINTEXT",
              "remote.log.manager.task.interval.ms": "300", "log.retention.check.interval.ms": "300",
              **FAST_FAILURE_DETECTION}
    (tmp_path / "nodes").mkdir()
    with started_cluster(tmp_path / "nodes", request, tiered) as cluster:
        yield cluster


def first_local_offset(cluster, node_id: int, topic: str) -> int | None:
    """The base offset of the node's first local segment of the partition, or None (no replica there)."""
    directory = cluster.nodes[node_id].data_dir / f"{topic}-0"
    logs = sorted(p.name for p in directory.glob("*.log")) if directory.exists() else []
    return int(logs[0].split(".")[0]) if logs else None


def test_a_new_follower_starts_from_the_leaders_local_log_and_then_serves_the_remote_records(cluster,
                                                                                             tmp_path):
    topic = unique_topic("tiered")
    cluster.await_leader(cluster.nodes[1])
    with cluster.nodes[1].admin() as admin:
        wait_until(lambda: created(admin, NewTopic(topic, 1, 1, {
            "remote.storage.enable": "true", "segment.bytes": "4096", "local.retention.bytes": "1"})),
            timeout=60, message="CreateTopics", interval=0.5)
    leader = wait_until(lambda: (p := describe(cluster, topic)) is not None and p.leader >= 0 and p.leader,
                        timeout=30, message="a leader")
    producer = confluent_kafka.Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all",
                                         "enable.idempotence": True, "linger.ms": 5, "batch.size": 1024})
    for i in range(600):
        producer.produce(topic, b"%d" % i + b" " * 100)
    assert producer.flush(60) == 0
    local_start = wait_until(lambda: (o := first_local_offset(cluster, leader, topic)) is not None and o > 300
                             and o, timeout=90, message="the leader to tier most of its log")

    follower = next(n for n in sorted(cluster.nodes) if n != leader)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": topic, "partition": 0, "replicas": [leader, follower]}]}))
    reassign = ("kafka.tools.reassign_partitions_command", "--bootstrap-server", cluster.bootstrap)
    result = run_tool(*reassign, "--execute", "--reassignment-json-file", str(plan))
    assert result.returncode == 0, result.stderr
    wait_until(lambda: (p := describe(cluster, topic)) is not None
               and sorted(p.isr) == sorted([leader, follower]),
               timeout=90, message="the new follower in the ISR")
    follower_start = first_local_offset(cluster, follower, topic)
    assert follower_start is not None and follower_start >= local_start, (
        "the follower's log starts where the leader's local log did: nothing remote was copied to it")
    assert "built from tiered storage" in cluster.nodes[follower].output()

    cluster.nodes[leader].stop()  # SIGTERM: a controlled shutdown hands the leadership to the follower
    wait_until(lambda: (p := describe(cluster, topic, exclude=leader)) is not None and p.leader == follower,
               timeout=60, message="the follower leading")
    seen, high = read_all(cluster, topic)
    assert high == 600 and seen == set(range(600)), "every record, the early ones from remote storage"
