"""The active KRaft controller cut off by the network, for real: it is replaced, and its writes are refused.

Three combined nodes in network namespaces (tests/nemesis/hosts.py). The active controller, which also
leads a partition (replication factor 3, min.insync.replicas=2), is cut from the two other nodes but
not from its clients (the nemesis's "split"). The two others elect a new active controller in a higher
epoch and fence the old node's broker; the old node stops leading the quorum (it resigns once a
majority has not fetched from it for 1.5 x controller.quorum.fetch.timeout.ms). Meanwhile an acks=all
produce sent to the old node is never acknowledged and a CreateTopics sent to it creates nothing. Healed,
the cluster has one active controller again, every replica back in the ISR and every acknowledged
record on every replica. Needs root; skipped with the reason elsewhere.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import confluent_kafka
import pytest

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from tests.helpers import wait_until
from tests.nemesis.cluster import BROKER_PORT, CONTROLLER_PORT
from tests.nemesis.test_leader_cut_off import describe, final_values, produce, whole_again
from tests.wire import WireClient

TOPIC, REFUSED = "isolated-controller", "created-by-the-isolated-controller"
pytestmark = pytest.mark.timeout(300)


def ask(address: str, port: int, api_key: int, version: int, body: dict, timeout: float = 10):
    client = WireClient(port, timeout=timeout, host=address)
    try:
        return client.request(api_key, version, body)
    finally:
        client.close()


def quorum(address: str, port: int = CONTROLLER_PORT):
    """DescribeQuorum for __cluster_metadata-0: on the controller port a voter answers for itself (only
    the leader answers, the others say NOT_LEADER_OR_FOLLOWER); on the broker port it is forwarded to
    the active controller. None when the node cannot answer now."""
    body = {"topics": [{"topic_name": "__cluster_metadata", "partitions": [{"partition_index": 0}]}]}
    try:
        response = ask(address, port, ApiKey.DESCRIBE_QUORUM, 1, body)
    except OSError:
        return None
    return response.topics[0].partitions[0] if response.error_code == Errors.NONE else None


def leading_voters(cluster) -> dict[int, tuple[int, int]]:
    """node id -> (leader id, epoch) of each node that answers as the quorum's leader."""
    answers = {n: quorum(node.address) for n, node in cluster.nodes.items()}
    return {n: (p.leader_id, p.leader_epoch) for n, p in answers.items()
            if p is not None and p.error_code == Errors.NONE}


def create_topic(address: str, name: str, replicas: list[int] | None = None, timeout_ms: int = 10000):
    """CreateTopics (v7) sent to one broker, which forwards it to the active controller: the topic's error."""
    placement = [{"partition_index": 0, "broker_ids": replicas}] if replicas else []
    body = {"topics": [{"name": name, "num_partitions": -1 if replicas else 1, "replication_factor": -1
                        if replicas else 3,
                        "assignments": placement,
                        "configs": [{"name": "min.insync.replicas", "value": "2"}]}],
            "timeout_ms": timeout_ms, "validate_only": False}
    response = ask(address, BROKER_PORT, ApiKey.CREATE_TOPICS, 7, body, timeout=timeout_ms / 1000 + 30)
    return response.topics[0].error_code


def registered_brokers(address: str) -> set[int] | None:
    """The brokers DescribeCluster lists (the unfenced ones) as the node at `address` sees them."""
    try:
        response = ask(address, BROKER_PORT, ApiKey.DESCRIBE_CLUSTER, 0,
                       {"include_cluster_authorized_operations": False})
    except OSError:
        return None
    return {b.broker_id for b in response.brokers}


def the_majority_replaces_it(cluster, old_id: int, old_epoch: int, others: list[int]) -> tuple[int, int, int]:
    """The two others elect a new active controller in a higher epoch and fence the old node's broker;
    (new controller, its epoch, the partition's new leader)."""
    new_id, new_epoch = wait_until(
        lambda: len(v := {leader for n, leader in leading_voters(cluster).items() if n != old_id}) == 1
        and next(iter(v)),
        timeout=30, message="a new active controller among the other two", interval=0.5)
    assert new_id in others and new_epoch > old_epoch
    for n in others:  # both members of the majority, asked through their broker port, name it
        seen = wait_until(lambda n=n: quorum(cluster.nodes[n].address, BROKER_PORT), timeout=30,
                          message=f"node {n} describing the quorum", interval=0.5)
        assert (seen.leader_id, seen.leader_epoch) == (new_id, new_epoch)
    assert old_id not in leading_voters(cluster), "the isolated node still answers as the quorum's leader"
    wait_until(lambda: registered_brokers(cluster.nodes[new_id].address) == set(others), timeout=30,
               message="the old node's broker fenced", interval=0.5)
    state = quorum(cluster.nodes[new_id].address)
    behind = {v.replica_id: v.log_end_offset for v in state.current_voters}[old_id]
    assert behind < state.high_watermark, "the isolated voter kept up with the new quorum"
    p = wait_until(lambda: (p := describe(cluster, exclude=old_id, topic=TOPIC)) is not None
                   and p.leader in others and p,
                   timeout=30, message="a new partition leader", interval=0.5)
    return new_id, new_epoch, p.leader


def topic_names(address: str) -> set[str]:
    """Every topic the node at `address` knows (Metadata for all topics)."""
    return {t.name for t in ask(address, BROKER_PORT, ApiKey.METADATA, 1, {"topics": None}).topics}


def send(producer, values: list[str]) -> dict[str, str | None]:
    """value -> None once acknowledged, else the name of the error it failed with."""
    outcome: dict[str, str | None] = {}
    for value in values:
        producer.produce(TOPIC, value.encode(), partition=0, on_delivery=lambda e, m: outcome.__setitem__(
            m.value().decode(), None if e is None else e.name()))
    producer.flush(30)
    return outcome


def test_an_isolated_active_controller_is_replaced_and_its_writes_are_refused(cluster):
    hosts, cluster = cluster
    voters = wait_until(lambda: len(v := leading_voters(cluster)) == 1 and v, timeout=60,
                        message="an active controller", interval=0.5)
    (old_id, (_, old_epoch)), = voters.items()
    old, others = cluster.nodes[old_id], [n for n in cluster.nodes if n != old_id]
    wait_until(lambda: create_topic(cluster.nodes[others[0]].address, TOPIC,
                                    [old_id, *others]) == Errors.NONE,
               timeout=60, message="the topic, led by the active controller", interval=0.5)
    wait_until(lambda: (p := describe(cluster, topic=TOPIC)) is not None and p.leader == old_id
               and len(p.isr) == 3,
               timeout=60, message="a full ISR", interval=0.5)
    before = ["before-0", "before-1", "before-2"]
    producer = confluent_kafka.Producer({"bootstrap.servers": old.bootstrap, "acks": "all",
                                         "enable.idempotence": True,
                                         "message.timeout.ms": 8000})  # its producer id taken before the cut
    assert send(producer, before) == {v: None for v in before}

    hosts.partition([(old_id, n) for n in others])  # the split: its clients still reach it

    # Its writes are refused: nothing acknowledged, no topic created (its metadata log cannot commit).
    # The CreateTopics goes at once, while it may still believe it leads; it is answered only when the
    # forwarding times out (30 s), so it runs alongside the rest.
    with ThreadPoolExecutor(1) as pool:
        refused = pool.submit(create_topic, old.address, REFUSED, timeout_ms=5000)
        outcome = send(producer, ["to-the-isolated-controller"])["to-the-isolated-controller"]
        assert outcome is not None, "the isolated node acknowledged an acks=all write"
        producer.close()
        new_id, new_epoch, new_leader = the_majority_replaces_it(cluster, old_id, old_epoch, others)
        assert produce(cluster.nodes[new_leader].bootstrap, ["after-0"], topic=TOPIC) == ["after-0"]
        error = Errors.for_code(refused.result())
    print(f"controller {old_id} (epoch {old_epoch}) cut off, replaced by {new_id} (epoch {new_epoch}); "
          f"acks=all produce to it: {outcome}; CreateTopics sent to it: {error.name}")
    assert error != Errors.NONE, "the isolated controller created a topic without a majority"
    for n in others:
        assert TOPIC in (names := topic_names(cluster.nodes[n].address)) and REFUSED not in names, names

    hosts.heal()
    wait_until(lambda: len(v := leading_voters(cluster)) == 1 and len(set(v.values())) == 1, timeout=60,
               message="one active controller after healing", interval=0.5)
    wait_until(lambda: whole_again(cluster, topic=TOPIC), timeout=60, message="all three in the ISR",
               interval=0.5)
    for node in cluster.nodes.values():
        assert TOPIC in (names := topic_names(node.address)) and REFUSED not in names, names
    replicas = final_values(cluster, topic=TOPIC)
    assert replicas[1] == replicas[2] == replicas[3] == [*before, "after-0"]
