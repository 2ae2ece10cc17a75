"""The one scenario where the nemesis is meant to find a loss: unclean.leader.election.enable=true.

Kafka's default is false, and this is why. One partition, three replicas, min.insync.replicas=1:
1. the follower S ("stale") is killed; the ISR shrinks to the leader L and the other follower F;
2. records A are acknowledged (acks=all: on L and F);
3. F is killed; the ISR shrinks to L alone, which min.insync.replicas=1 allows; records B are
   acknowledged (on L only);
4. L is killed: the ISR keeps its last member, L, and the partition is offline;
5. S comes back. With unclean election, the controller makes S leader though it is not in the ISR:
   the partition is available again, without A and B. With the default, it stays offline until L
   returns, and nothing is lost;
6. L and F come back, follow the leader and truncate to it.
The verdict is the checker's: how many acknowledged values the final log lacks.
"""

from __future__ import annotations

import confluent_kafka

from kafka.clients.admin import NewTopic
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


def run_scenario(cluster: NemesisCluster, unclean: bool, log=print) -> tuple[int, int]:
    """(acknowledged, lost) for one run of the scenario on a started cluster."""
    with cluster.nodes[1].admin() as admin:
        wait_until(lambda: admin.create_topics([NewTopic(TOPIC, 1, 3, {
            "min.insync.replicas": "1", "unclean.leader.election.enable": str(unclean).lower()})])[TOPIC] is None,
            timeout=60, message="the topic", interval=0.5)
    p = wait_until(lambda: (p := _partition(cluster)) is not None and len(p.isr) == 3 and p, timeout=60,
                   message="a full ISR", interval=0.5)
    leader = p.leader
    stale, follower = [r for r in p.replicas if r != leader]
    log(f"unclean: leader {leader}, follower {follower}, stale follower {stale}")
    cluster.nodes[stale].kill()
    wait_until(lambda: _isr_is(cluster, {leader, follower}), timeout=60, message="ISR without S", interval=0.5)
    acknowledged = _produce(cluster.nodes[leader].bootstrap, "A", 200)
    cluster.nodes[follower].kill()
    wait_until(lambda: _isr_is(cluster, {leader}), timeout=60, message="ISR of the leader alone", interval=0.5)
    acknowledged += _produce(cluster.nodes[leader].bootstrap, "B", 200)
    log(f"unclean: {len(acknowledged)} acknowledged; killing the leader {leader}, restarting {stale}")
    cluster.nodes[leader].kill()
    cluster.nodes[stale].start()
    if unclean:
        wait_until(lambda: (p := _partition(cluster)) is not None and p.leader == stale, timeout=90,
                   message=f"node {stale} elected uncleanly", interval=0.5)
    cluster.nodes[leader].start()
    cluster.nodes[follower].start()
    wait_until(lambda: _isr_is(cluster, {1, 2, 3}), timeout=120, message="a full ISR again", interval=0.5)
    final_leader = _partition(cluster).leader
    cluster.stop()
    values = {r.value.decode() for b in replica_batches(cluster.nodes[final_leader].data_dir / f"{TOPIC}-0", TOPIC, 0)
              if not b.is_control_batch for r in b}
    lost = [v for v in acknowledged if v not in values]
    log(f"unclean.leader.election.enable={str(unclean).lower()}: leader {final_leader} at the end, "
        f"{len(acknowledged)} acknowledged, {len(lost)} lost")
    return len(acknowledged), len(lost)
