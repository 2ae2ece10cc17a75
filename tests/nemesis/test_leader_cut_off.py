"""A partition leader cut off by the network, for real: lab 12, step 7 (docs/labs/12-break-it.md) and
lab 07, step 8 (docs/labs/07-replication.md), as a test.

Three nodes in network namespaces (tests/nemesis/hosts.py). The leader of `lab12-net` is cut from the two
other nodes, not from its clients: an acks=all produce sent to it is never acknowledged; the controller fences
it and elects a new leader from the rest of the ISR; the cut-off leader's high watermark stops though its log
grew; healed, it learns it is a follower, truncates the record nobody acknowledged -- on its first fetch from
the new leader, which answers DivergingEpoch (docs/replication.md, "Divergence found on the fetch path") --
and the replicas agree again. The same for a leader paused past broker.session.timeout.ms and resumed: a
zombie that wakes up believing it leads acknowledges nothing the new leader does not have. Needs root; skipped
with the reason elsewhere.
"""

from __future__ import annotations

import confluent_kafka
import pytest

from kafka.clients.admin import NewTopic
from tests.cluster.test_kraft_cluster import created
from tests.helpers import wait_until
from tests.nemesis.checker import replica_batches
from tests.nemesis.replica_check import agreed_view, node_view, read_replica

TOPIC = "lab12-net"
pytestmark = pytest.mark.timeout(300)


def describe(cluster, exclude: int = 0, topic: str = TOPIC):
    """Partition 0 of `topic` as the first node (other than `exclude`) that can answer describes it,
    asked of that node itself (replica_check.node_view)."""
    for node_id, node in cluster.nodes.items():
        if node_id == exclude or not node.running:
            continue
        view = node_view(node, [topic])
        if view is not None:
            return view[0]
    return None


def whole_again(cluster, topic: str = TOPIC) -> bool:
    """Every node describes the same leader and all three replicas in sync: a node just healed still
    answers from its old metadata (itself leader, its old ISR) until it has caught up. Each node is
    asked itself (replica_check.agreed_view): an admin client's describe_topics would ask whichever
    node it picked, the same one for all three."""
    view = agreed_view([node for node in cluster.nodes.values() if node.running], [topic])
    return view is not None and len(view[0].isr) == 3 and view[0].leader >= 0


def produce(bootstrap: str, values: list[str], timeout_ms: int = 30000, topic: str = TOPIC,
            idempotent: bool = True) -> list[str]:
    acknowledged: list[str] = []
    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "acks": "all",
                                         "message.timeout.ms": timeout_ms, "enable.idempotence": idempotent})
    for value in values:
        producer.produce(topic, value.encode(),
                         on_delivery=lambda e, m: e is None and acknowledged.append(m.value().decode()))
    producer.flush(timeout_ms / 1000 + 10)
    return acknowledged


def high_watermark(bootstrap: str) -> int:
    """ListOffsets(latest) answered by the node at `bootstrap` alone, as it sees its partition."""
    consumer = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": "lab12-net"})
    try:
        return consumer.get_watermark_offsets(confluent_kafka.TopicPartition(TOPIC, 0), timeout=10,
                                              cached=False)[1]
    finally:
        consumer.close()


def started_topic(cluster) -> int:
    with cluster.nodes[1].admin() as admin:
        # One attempt may time out while the nodes are still starting on a busy machine: try again.
        wait_until(lambda: created(admin, NewTopic(TOPIC, 1, 3, {"min.insync.replicas": "2"})),
                   timeout=60, message="the topic", interval=0.5)
    p = wait_until(lambda: (p := describe(cluster)) is not None and len(p.isr) == 3 and p, timeout=60,
                   message="a full ISR", interval=0.5)
    return p.leader


def final_values(cluster, topic: str = TOPIC) -> dict[int, list[str]]:
    cluster.stop()
    return {n: [r.value.decode() for b in replica_batches(node.data_dir / f"{topic}-0", topic, 0)
                if not b.is_control_batch for r in b] for n, node in cluster.nodes.items()}


def test_a_leader_cut_from_its_followers_acknowledges_nothing_and_truncates_when_healed(cluster):
    hosts, cluster = cluster
    leader = started_topic(cluster)
    old = cluster.nodes[leader]
    assert produce(old.bootstrap, ["before-0", "before-1", "before-2"]) == ["before-0", "before-1",
                                                                            "before-2"]
    others = [n for n in cluster.nodes if n != leader]
    hosts.partition([(leader, n) for n in others])  # its clients still reach it

    # Not idempotent: a cut-off node may have no producer id to give (its block comes from the
    # controller it cannot reach), and the record would never be sent at all.
    assert produce(old.bootstrap, ["to-the-cut-off-leader"], timeout_ms=15000, idempotent=False) == []
    after = wait_until(lambda: (p := describe(cluster, exclude=leader)) is not None and p.leader in others
                       and leader not in p.isr and p, timeout=60, message="a new leader, the old one fenced")
    assert sorted(after.isr) == others
    last_offsets = [last for _, last, _ in read_replica(old.data_dir / f"{TOPIC}-0")]
    assert last_offsets[-1] == 3, "offset 3, on it alone"
    assert high_watermark(old.bootstrap) == 3  # its log holds 4 records; nothing past 3 committed there
    assert produce(cluster.nodes[after.leader].bootstrap, ["after-0"]) == ["after-0"]

    hosts.heal()
    wait_until(lambda: whole_again(cluster), timeout=90, message="the old leader back in the ISR",
               interval=0.5)
    replicas = final_values(cluster)
    assert replicas[1] == replicas[2] == replicas[3] == ["before-0", "before-1", "before-2", "after-0"]
    truncations = [line for line in old.output().splitlines()  # read once stopped: a node's log is buffered
                   if "truncating on a diverging epoch" in line and f"partition={TOPIC}-0" in line]
    assert truncations and "truncate_to=3" in truncations[0], (
        "the old leader cut its tail on the new leader's answer")


def test_a_paused_leader_resumed_after_it_was_fenced_acknowledges_nothing_the_new_leader_lacks(cluster):
    _, cluster = cluster
    leader = started_topic(cluster)
    old = cluster.nodes[leader]
    assert produce(old.bootstrap, ["before-0"]) == ["before-0"]
    old.pause()  # SIGSTOP, past broker.session.timeout.ms
    wait_until(lambda: (p := describe(cluster, exclude=leader)) is not None and p.leader not in (-1, leader),
               timeout=60, message="a new leader while the old one sleeps", interval=0.5)
    old.resume()
    acknowledged = produce(old.bootstrap, [f"zombie-{i}" for i in range(20)], timeout_ms=20000)
    wait_until(lambda: whole_again(cluster), timeout=90, message="the old leader back in the ISR",
               interval=0.5)
    replicas = final_values(cluster)
    assert replicas[1] == replicas[2] == replicas[3]
    assert set(acknowledged) <= set(replicas[1]), "the zombie acknowledged writes the new leader never had"
