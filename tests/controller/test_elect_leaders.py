"""Leader elections in the QuorumController, with a mock clock: ElectLeaders PREFERRED and UNCLEAN
with Kafka's error codes, unclean.leader.election.enable, and the automatic preferred-leader
rebalance (auto.leader.rebalance.enable)."""

from __future__ import annotations

from kafka.controller.quorum_controller import QuorumController
from kafka.controller.quorum_controller_config import QuorumControllerConfig
from kafka.protocol.errors import Errors
from kafka.protocol.messages.elect_leaders import PREFERRED, UNCLEAN
from kafka.raft.batch import LeaderAndEpoch
from kafka.utils.time import MockTime
from tests.controller.test_quorum_controller import CLUSTER, Cluster, LocalRaft, record

SESSION_MS = 9000


class ElectionCluster(Cluster):
    def __init__(self, **config) -> None:
        self.time, self.raft = MockTime(), LocalRaft()
        config = QuorumControllerConfig(num_partitions=1, default_replication_factor=1, **config)
        self.active = QuorumController(1, self.raft, self.time, config, CLUSTER, threaded=False)
        self.standby = QuorumController(2, self.raft, self.time, config, CLUSTER, threaded=False)
        for controller in (self.active, self.standby):
            controller.handle_leader_change(LeaderAndEpoch(1, 1))
        self.step()
        self.epochs: dict[int, int] = {}

    def start(self, *brokers: int) -> None:
        for b in brokers:
            self.epochs[b] = self.register_and_unfence(b)

    def stop(self, broker: int) -> None:
        """The broker goes silent; the others heartbeat until its session has expired."""
        self.epochs.pop(broker)
        self.pass_time(SESSION_MS * 4 // 3)
        assert self.active.cluster.brokers[broker].fenced

    def pass_time(self, ms: int) -> None:
        """Time passes; the running brokers heartbeat every third of a session meanwhile."""
        for _ in range(max(1, ms // (SESSION_MS // 3))):
            self.time.sleep(SESSION_MS // 3)
            for b, epoch in self.epochs.items():
                self.call(self.active.process_broker_heartbeat(record(
                    broker_id=b, broker_epoch=epoch, current_metadata_offset=self.raft.committed,
                    want_fence=False, want_shut_down=False)))
            self.step()

    def partition(self, topic: str = "orders", index: int = 0):
        return self.active.replication.topic(topic).partitions[index]

    def elect(self, election_type: int, partitions: dict[str, list[int]] | None):
        topic_partitions = None if partitions is None else [
            record(topic=t, partitions=ps) for t, ps in partitions.items()]
        response = self.call(self.active.elect_leaders(record(election_type=election_type,
                                                              topic_partitions=topic_partitions,
                                                              timeout_ms=1000)))
        return {(r["topic"], p["partition_id"]): p["error_code"]
                for r in response["replica_election_results"] for p in r["partition_result"]}

    def rejoin_isr(self, broker: int, topic: str = "orders", index: int = 0) -> None:
        """The leader adds a caught-up follower back to the ISR (AlterPartition)."""
        p = self.partition(topic, index)
        response = self.call(self.active.alter_partition(record(
            broker_id=p.leader, broker_epoch=self.epochs[p.leader],
            topics=[record(topic_name=topic, partitions=[
                record(partition_index=index, leader_epoch=p.leader_epoch, new_isr=sorted({*p.isr, broker}),
                       leader_recovery_state=0, partition_epoch=p.partition_epoch)])])))
        assert response["topics"][0]["partitions"][0]["error_code"] == Errors.NONE


def test_preferred_election_moves_leadership_back_once_the_preferred_replica_is_in_sync():
    cluster = ElectionCluster(auto_leader_rebalance_enable=False)
    cluster.start(1, 2, 3)
    cluster.create_topic("orders", 1, 3)
    preferred = cluster.partition().replicas[0]
    cluster.stop(preferred)
    assert cluster.partition().leader != preferred and preferred not in cluster.partition().isr

    cluster.start(preferred)  # back, but not in the ISR until its leader says it caught up
    assert cluster.elect(PREFERRED, {"orders": [0]}) == {("orders", 0): Errors.PREFERRED_LEADER_NOT_AVAILABLE}
    cluster.rejoin_isr(preferred)
    epoch = cluster.partition().leader_epoch
    assert cluster.elect(PREFERRED, {"orders": [0]}) == {("orders", 0): Errors.NONE}
    assert cluster.partition().leader == preferred and cluster.partition().leader_epoch == epoch + 1
    assert cluster.elect(PREFERRED, {"orders": [0]}) == {("orders", 0): Errors.ELECTION_NOT_NEEDED}
    assert cluster.standby.replication.topic("orders").partitions[0].leader == preferred


def test_electing_all_partitions_reports_only_those_that_needed_it_and_unknown_ones_fail():
    cluster = ElectionCluster(auto_leader_rebalance_enable=False)
    cluster.start(1, 2)
    cluster.create_topic("orders", 2, 2)
    assert cluster.elect(PREFERRED, None) == {}
    assert cluster.elect(PREFERRED, {"nope": [0], "orders": [7]}) == {
        ("nope", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION, ("orders", 7): Errors.UNKNOWN_TOPIC_OR_PARTITION}


def offline_partition(cluster: ElectionCluster) -> tuple[int, int]:
    """Replicas 1 and 2; the follower dies first (the ISR shrinks to the leader), then the leader: the
    ISR empties and the leader, which had every committed record, is its eligible leader (KIP-966)."""
    cluster.start(1, 2)
    cluster.create_topic("orders", 1, 2)
    leader, follower = cluster.partition().replicas
    cluster.stop(follower)
    cluster.stop(leader)
    partition = cluster.partition()
    assert (partition.leader, partition.isr, partition.elr) == (-1, (), (leader,))
    return leader, follower


def test_unclean_election_takes_a_replica_outside_the_isr_when_asked():
    cluster = ElectionCluster(auto_leader_rebalance_enable=False)
    leader, follower = offline_partition(cluster)
    cluster.start(follower)  # not in the ISR: with unclean election off, the partition stays offline
    assert cluster.partition().leader == -1
    assert cluster.elect(UNCLEAN, {"orders": [0]}) == {("orders", 0): Errors.NONE}
    assert (cluster.partition().leader, cluster.partition().isr) == (follower, (follower,))
    assert cluster.elect(UNCLEAN, {"orders": [0]}) == {("orders", 0): Errors.ELECTION_NOT_NEEDED}


def test_unclean_election_with_nobody_alive():
    cluster = ElectionCluster(auto_leader_rebalance_enable=False)
    offline_partition(cluster)
    assert cluster.elect(UNCLEAN, {"orders": [0]}) == {("orders", 0): Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE}


def test_unclean_leader_election_enable_elects_the_returning_replica_by_itself():
    cluster = ElectionCluster(auto_leader_rebalance_enable=False, unclean_leader_election_enable=True)
    leader, follower = offline_partition(cluster)
    cluster.start(follower)
    assert (cluster.partition().leader, cluster.partition().isr) == (follower, (follower,))


def test_the_auto_rebalance_gives_leadership_back_to_preferred_replicas():
    cluster = ElectionCluster(auto_leader_rebalance_enable=True, leader_imbalance_check_interval_ms=60_000)
    cluster.start(1, 2, 3)
    cluster.create_topic("orders", 1, 3)
    preferred = cluster.partition().replicas[0]
    cluster.stop(preferred)
    cluster.start(preferred)
    cluster.rejoin_isr(preferred)
    assert cluster.partition().leader != preferred
    cluster.pass_time(60_000)  # the next check: broker `preferred` leads 0 % of what it prefers
    assert cluster.partition().leader == preferred
