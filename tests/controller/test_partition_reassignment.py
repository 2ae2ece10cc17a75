"""Partition reassignment in the QuorumController (KIP-455), with a mock clock: start, catch up
through AlterPartition, complete (a removed leader hands over), cancel, and Kafka's error codes."""

from __future__ import annotations

from kafka.protocol.errors import Errors
from tests.controller.test_elect_leaders import ElectionCluster
from tests.controller.test_quorum_controller import record


def reassign(cluster: ElectionCluster, targets: dict[int, list[int] | None], topic: str = "orders",
             **allow_replication_factor_change: bool):
    response = cluster.call(cluster.active.alter_partition_reassignments(record(timeout_ms=1000, topics=[
        record(name=topic, partitions=[record(partition_index=i, replicas=r) for i, r in targets.items()])],
        **allow_replication_factor_change)))
    assert response["allow_replication_factor_change"] == allow_replication_factor_change.get(
        "allow_replication_factor_change", True), "v1's answer says which way it was asked"
    return {p["partition_index"]: p["error_code"] for t in response["responses"] for p in t["partitions"]}


def ongoing(cluster: ElectionCluster):
    response = cluster.call(cluster.active.list_partition_reassignments(record(timeout_ms=1000, topics=None)))
    return {(t["name"], p["partition_index"]): (p["replicas"], p["adding_replicas"], p["removing_replicas"])
            for t in response["topics"] for p in t["partitions"]}


def moving_cluster() -> ElectionCluster:
    cluster = ElectionCluster(auto_leader_rebalance_enable=False)
    cluster.start(1, 2, 3, 4)
    result = cluster.call(cluster.active.create_topics(record(validate_only=False, topics=[record(
        name="orders", num_partitions=-1, replication_factor=-1, configs=[],
        assignments=[record(partition_index=0, broker_ids=[1, 2])])])))
    assert result["topics"][0]["error_code"] == Errors.NONE
    return cluster


def test_a_reassignment_adds_the_target_waits_for_the_isr_then_drops_the_old_replicas():
    cluster = moving_cluster()
    assert reassign(cluster, {0: [3, 4]}) == {0: Errors.NONE}
    p = cluster.partition()
    assert (p.replicas, p.adding_replicas, p.removing_replicas) == ((3, 4, 1, 2), (3, 4), (1, 2))
    assert p.leader == 1 and p.isr == (1, 2), "nothing moves until the new replicas have caught up"
    assert ongoing(cluster) == {("orders", 0): ([3, 4, 1, 2], [3, 4], [1, 2])}

    cluster.rejoin_isr(3)
    assert cluster.partition().is_reassigning, "broker 4 has not caught up yet"
    cluster.rejoin_isr(4)
    p = cluster.partition()
    assert (p.replicas, p.isr, p.adding_replicas, p.removing_replicas) == ((3, 4), (3, 4), (), ())
    assert p.leader == 3, "the old leader was removed: the first in-sync target replica leads"
    assert ongoing(cluster) == {}
    assert cluster.standby.replication.topic("orders").partitions[0] == p


def test_cancelling_goes_back_to_the_old_replicas():
    cluster = moving_cluster()
    reassign(cluster, {0: [3, 4]})
    cluster.rejoin_isr(3)
    assert reassign(cluster, {0: None}) == {0: Errors.NONE}
    p = cluster.partition()
    assert (p.replicas, p.isr, p.leader, p.is_reassigning) == ((1, 2), (1, 2), 1, False)
    assert reassign(cluster, {0: None}) == {0: Errors.NO_REASSIGNMENT_IN_PROGRESS}


def test_a_target_already_in_sync_completes_at_once():
    cluster = moving_cluster()
    assert reassign(cluster, {0: [2, 1]}) == {0: Errors.NONE}  # the same replicas, another preferred order
    p = cluster.partition()
    assert (p.replicas, p.is_reassigning, p.leader) == ((2, 1), False, 1)


def test_bad_targets_get_kafkas_error_codes():
    cluster = moving_cluster()
    assert reassign(cluster, {0: []}) == {0: Errors.INVALID_REPLICA_ASSIGNMENT}
    assert reassign(cluster, {0: [3, 3]}) == {0: Errors.INVALID_REPLICA_ASSIGNMENT}
    assert reassign(cluster, {0: [3, 9]}) == {0: Errors.INVALID_REPLICA_ASSIGNMENT}
    assert reassign(cluster, {5: [3, 4]}) == {5: Errors.UNKNOWN_TOPIC_OR_PARTITION}
    assert reassign(cluster, {0: [3]}, topic="nope") == {0: Errors.UNKNOWN_TOPIC_OR_PARTITION}
    assert not cluster.partition().is_reassigning


def test_v1_may_forbid_changing_the_replication_factor():
    """KIP-860: with AllowReplicationFactorChange false, a target of another size than the replicas is
    INVALID_REPLICATION_FACTOR; during a reassignment the size that counts is the target's (Kafka's
    validatePartitionReplicationFactorUnchanged). Cancelling is always allowed."""
    cluster = moving_cluster()
    forbid = {"allow_replication_factor_change": False}
    assert reassign(cluster, {0: [2, 3, 4]}, **forbid) == {0: Errors.INVALID_REPLICATION_FACTOR}
    assert reassign(cluster, {0: [3]}, **forbid) == {0: Errors.INVALID_REPLICATION_FACTOR}
    assert reassign(cluster, {0: [3, 3]}, **forbid) == {0: Errors.INVALID_REPLICA_ASSIGNMENT}, "checked first"
    assert not cluster.partition().is_reassigning
    assert reassign(cluster, {0: [3, 4]}, **forbid) == {0: Errors.NONE}
    assert cluster.partition().replicas == (3, 4, 1, 2), "four replicas while moving, two in the target"
    assert reassign(cluster, {0: [2, 3]}, **forbid) == {0: Errors.NONE}
    assert reassign(cluster, {0: [2, 3, 4]}, **forbid) == {0: Errors.INVALID_REPLICATION_FACTOR}
    assert reassign(cluster, {0: None}, **forbid) == {0: Errors.NONE}
    assert reassign(cluster, {0: [2, 3, 4]}) == {0: Errors.NONE}, "allowed by default"
