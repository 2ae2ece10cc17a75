"""The one scenario where the nemesis is meant to find a loss: unclean.leader.election.enable=true.

Kafka's default is false, and this is why. Three combined nodes keep their metadata quorum only
while two are up, so the scenario kills one node at a time and makes the stale replica with the
network instead. One partition, moved onto the two nodes that are not the active controller, the
leader L and the follower S, with min.insync.replicas=1:
1. the link between L and S is cut (both still reach the controller): S stops fetching and the
   leader shrinks the ISR to itself;
2. records are acknowledged with acks=all: they are on L only;
3. L is killed: the controller fences it; the ISR keeps its last member, L;
4. with unclean election the controller makes S leader though it is not in the ISR: the partition
   is available at once, without the records. With the default it stays offline until L returns,
   and nothing is lost;
5. the link heals, L restarts, follows the leader and truncates to it.
The verdict counts the acknowledged values the final log lacks.
"""

from __future__ import annotations

import confluent_kafka

from kafka.clients.admin import NewTopic
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import wait_until
from tests.nemesis.checker import replica_batches
from tests.nemesis.cluster import NemesisCluster

TOPIC = "unclean"


def _partition(cluster: NemesisCluster):
    for node in cluster.nodes.values():
        if not node.running:
            continue
        try:
            with node.admin() as admin:
                found = admin.describe_topics([TOPIC]).get(TOPIC)
            if found is not None:
                return found.partitions[0]
        except Exception:  # noqa: BLE001 - that node is down or still starting: ask another
            continue
    return None


def _produce(bootstrap: str, prefix: str, count: int) -> list[str]:
    """`count` values with acks=all; the ones the cluster acknowledged."""
    acknowledged: list[str] = []
    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5,
                                         "message.timeout.ms": 30000})
    for i in range(count):
        producer.produce(TOPIC, f"{prefix}-{i}".encode(),
                         on_delivery=lambda e, m: e is None and acknowledged.append(m.value().decode()))
    producer.flush(60)
    return acknowledged


def _isr_is(cluster: NemesisCluster, isr: set[int]) -> bool:
    p = _partition(cluster)
    return p is not None and set(p.isr) == isr


def _on_two_nodes(cluster: NemesisCluster, unclean: bool) -> tuple[int, list[int]]:
    """The topic created and moved off the active controller: (controller, [leader, stale follower])."""
    controller = wait_until(cluster.active_controller, timeout=60, message="an active controller",
                            interval=0.5)
    pair = [n for n in cluster.nodes if n != controller]
    with cluster.nodes[pair[0]].admin() as admin:
        wait_until(lambda: admin.create_topics([NewTopic(TOPIC, 1, 3, {
            "min.insync.replicas": "1",
            "unclean.leader.election.enable": str(unclean).lower()})])[TOPIC] is None,
            timeout=60, message="the topic", interval=0.5)
        wait_until(lambda: (p := _partition(cluster)) is not None and len(p.isr) == 3, timeout=60,
                   message="a full ISR", interval=0.5)
        moved = TopicPartition(TOPIC, 0)
        assert admin.alter_partition_reassignments({moved: pair})[moved] is None
    p = wait_until(lambda: (p := _partition(cluster)) is not None and sorted(p.replicas) == sorted(pair)
                   and sorted(p.isr) == sorted(pair) and p.leader in pair and p, timeout=60,
                   message=f"the partition moved to {pair}", interval=0.5)
    return controller, [p.leader, next(n for n in pair if n != p.leader)]


def run_scenario(cluster: NemesisCluster, unclean: bool, log=print) -> tuple[int, int]:
    """(acknowledged, lost) for one run of the scenario on a started cluster."""
    controller, (leader, stale) = _on_two_nodes(cluster, unclean)
    log(f"unclean: controller {controller}, leader {leader}, stale follower {stale}")
    hosts = cluster.nodes[leader].hosts
    hosts.cut(leader, stale)
    wait_until(lambda: _isr_is(cluster, {leader}), timeout=60, message="the ISR of the leader alone",
               interval=0.5)
    acknowledged = _produce(cluster.nodes[leader].bootstrap, "A", 200)
    log(f"unclean: {len(acknowledged)} acknowledged with the ISR [{leader}]; killing the leader")
    cluster.nodes[leader].kill()
    if unclean:
        wait_until(lambda: (p := _partition(cluster)) is not None and p.leader == stale, timeout=60,
                   message=f"node {stale} elected uncleanly", interval=0.5)
    else:
        wait_until(lambda: (p := _partition(cluster)) is not None and p.leader == -1, timeout=60,
                   message="the partition offline", interval=0.5)
    hosts.heal()
    cluster.nodes[leader].start()
    wait_until(lambda: _isr_is(cluster, {leader, stale}), timeout=120, message="a full ISR again",
               interval=0.5)
    final_leader = _partition(cluster).leader
    cluster.stop()
    values = {r.value.decode()
              for b in replica_batches(cluster.nodes[final_leader].data_dir / f"{TOPIC}-0", TOPIC, 0)
              if not b.is_control_batch for r in b}
    lost = [v for v in acknowledged if v not in values]
    log(f"unclean.leader.election.enable={str(unclean).lower()}: leader {final_leader} at the end, "
        f"{len(acknowledged)} acknowledged, {len(lost)} lost")
    return len(acknowledged), len(lost)
