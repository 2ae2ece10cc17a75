"""QuorumController with a mock clock and an in-memory stand-in for the raft client: registration,
unfencing, placement, fencing on a missed session, a standby replaying the same log, renouncing."""

from __future__ import annotations

import uuid

import pytest

from kafka.controller.feature_control_manager import MAX_METADATA_VERSION, MIN_METADATA_VERSION
from kafka.controller.quorum_controller import QuorumController
from kafka.controller.quorum_controller_config import QuorumControllerConfig
from kafka.protocol.errors import Errors
from kafka.protocol.schema import Record
from kafka.raft.batch import Batch, LeaderAndEpoch
from kafka.utils.time import MockTime

CLUSTER = "controller-test-cluster0"


class LocalRaft:
    """Appends go to a list; the test decides when they are committed (and may make appends fail)."""

    def __init__(self) -> None:
        self.entries: list[bytes] = []
        self.committed = 0
        self.fail_with: Exception | None = None
        self.resigned: int | None = None

    def log_end_offset(self) -> int:
        return len(self.entries)

    def schedule_append(self, epoch: int, records: list[bytes]) -> int:
        if self.fail_with is not None:
            raise self.fail_with
        self.entries.extend(records)
        return len(self.entries) - 1

    def resign(self, epoch: int) -> None:
        self.resigned = epoch

    def commit_to(self, controllers) -> None:
        if self.committed < len(self.entries):
            batch = Batch(self.committed, len(self.entries) - 1, 1, 0, 0, self.entries[self.committed:])
            self.committed = len(self.entries)
            for controller in controllers:
                controller.handle_commit(batch)
                controller.queue.run_pending()


def record(**fields) -> Record:
    return Record(**fields)


def registration(broker_id: int) -> Record:
    return record(broker_id=broker_id, cluster_id=CLUSTER, incarnation_id=uuid.uuid4(), rack=None,
                  listeners=[record(name="PLAINTEXT", host="127.0.0.1", port=9090 + broker_id,
                                    security_protocol=0)],
                  features=[record(name="metadata.version", min_supported_version=MIN_METADATA_VERSION,
                                   max_supported_version=MAX_METADATA_VERSION)])


class Cluster:
    def __init__(self) -> None:
        self.time = MockTime()
        self.raft = LocalRaft()
        config = QuorumControllerConfig(num_partitions=1, default_replication_factor=1)
        self.active = QuorumController(1, self.raft, self.time, config, CLUSTER, threaded=False)
        self.standby = QuorumController(2, self.raft, self.time, config, CLUSTER, threaded=False)
        self.active.handle_leader_change(LeaderAndEpoch(1, 1))
        self.standby.handle_leader_change(LeaderAndEpoch(1, 1))
        self.step()

    def step(self):
        for c in (self.active, self.standby):
            c.queue.run_pending()
        self.raft.commit_to([self.active, self.standby])

    def call(self, future):
        self.step()
        self.step()
        assert future.done()
        return future.result()

    def register_and_unfence(self, broker_id: int) -> int:
        epoch = self.call(self.active.register_broker(registration(broker_id)))["broker_epoch"]
        response = self.call(self.active.process_broker_heartbeat(record(
            broker_id=broker_id, broker_epoch=epoch, current_metadata_offset=self.raft.committed,
            want_fence=False,
            want_shut_down=False)))
        assert response["is_fenced"] is False
        return epoch

    def create_topic(self, name: str, partitions: int, replication: int):
        topic = record(name=name, num_partitions=partitions, replication_factor=replication, assignments=[],
                       configs=[])
        return self.call(self.active.create_topics(record(topics=[topic], validate_only=False)))["topics"][0]


@pytest.fixture
def cluster() -> Cluster:
    return Cluster()


def test_a_topic_is_spread_over_the_brokers_and_a_standby_agrees(cluster):
    for b in (1, 2, 3):
        cluster.register_and_unfence(b)
    result = cluster.create_topic("orders", 6, 3)
    assert result["error_code"] == Errors.NONE
    partitions = cluster.active.replication.topic("orders").partitions
    assert sorted(p.leader for p in partitions.values()) == [1, 1, 2, 2, 3, 3]
    assert all(sorted(p.replicas) == [1, 2, 3] for p in partitions.values())
    assert cluster.standby.replication.topic("orders").partitions == partitions
    assert cluster.active.metrics_values() == {"ActiveControllerCount": 1, "OfflinePartitionsCount": 0,
                                               "GlobalTopicCount": 1, "GlobalPartitionCount": 6,
                                               "FencedBrokerCount": 0, "ActiveBrokerCount": 3,
                                               "MetadataErrorCount": 0}
    assert cluster.standby.metrics_values()["ActiveControllerCount"] == 0


def test_validation_answers_with_kafkas_error_codes(cluster):
    cluster.register_and_unfence(1)
    assert cluster.create_topic("t", 1, 3)["error_code"] == Errors.INVALID_REPLICATION_FACTOR
    assert cluster.create_topic("bad name", 1, 1)["error_code"] == Errors.INVALID_TOPIC_EXCEPTION
    assert cluster.create_topic("t", 0, 1)["error_code"] == Errors.INVALID_PARTITIONS
    assert cluster.create_topic("t", 1, 1)["error_code"] == Errors.NONE
    assert cluster.create_topic("t", 1, 1)["error_code"] == Errors.TOPIC_ALREADY_EXISTS
    standby = cluster.call(cluster.standby.create_topics(record(topics=[record(
        name="u", num_partitions=1, replication_factor=1, assignments=[], configs=[])], validate_only=False)))
    assert standby["topics"][0]["error_code"] == Errors.NOT_CONTROLLER


def test_a_broker_whose_session_expires_is_fenced_and_loses_its_leaderships(cluster):
    epochs = {b: cluster.register_and_unfence(b) for b in (1, 2, 3)}
    cluster.create_topic("orders", 6, 3)
    for _ in range(4):  # brokers 1 and 2 keep heartbeating; broker 3 has gone silent
        cluster.time.sleep(3000)
        for b in (1, 2):
            cluster.call(cluster.active.process_broker_heartbeat(record(
                broker_id=b, broker_epoch=epochs[b], current_metadata_offset=cluster.raft.committed,
                want_fence=False, want_shut_down=False)))
        cluster.step()
    assert cluster.active.cluster.brokers[3].fenced
    for partitions in (cluster.active.replication.topic("orders").partitions,
                       cluster.standby.replication.topic("orders").partitions):
        assert all(p.leader in (1, 2) and 3 not in p.isr for p in partitions.values())


def test_two_brokers_silent_at_once_are_both_fenced_in_one_check(cluster):
    """fence-stale-brokers fences one broker per run and, with work left, runs again at once
    (PeriodicTaskControlManager): the second fence is decided on the first one's replayed records."""
    epochs = {b: cluster.register_and_unfence(b) for b in (1, 2, 3)}
    cluster.create_topic("orders", 6, 3)
    session = cluster.active.config.broker_session_timeout_ms
    cluster.time.sleep(session // 2)
    cluster.call(cluster.active.process_broker_heartbeat(record(
        broker_id=1, broker_epoch=epochs[1], current_metadata_offset=cluster.raft.committed,
        want_fence=False, want_shut_down=False)))
    cluster.time.sleep(session // 2 + max(100, session // 4))  # one check after brokers 2 and 3 expired
    cluster.step()
    cluster.step()
    assert [b for b in (1, 2, 3) if cluster.active.cluster.brokers[b].fenced] == [2, 3]
    for partitions in (cluster.active.replication.topic("orders").partitions,
                       cluster.standby.replication.topic("orders").partitions):
        assert [(p.leader, list(p.isr)) for p in partitions.values()] == [(1, [1])] * 6, partitions


def test_controlled_shutdown_moves_leadership_then_says_go(cluster):
    epochs = {b: cluster.register_and_unfence(b) for b in (1, 2)}
    cluster.create_topic("orders", 2, 2)
    heartbeat = record(broker_id=1, broker_epoch=epochs[1], current_metadata_offset=cluster.raft.committed,
                       want_fence=False, want_shut_down=True)
    assert cluster.call(cluster.active.process_broker_heartbeat(heartbeat))["should_shut_down"] is False
    assert cluster.call(cluster.active.process_broker_heartbeat(heartbeat))["should_shut_down"] is True
    assert all(p.leader == 2 for p in cluster.active.replication.topic("orders").partitions.values())


def test_renouncing_forgets_what_was_not_committed(cluster):
    cluster.register_and_unfence(1)
    future = cluster.active.create_topics(record(topics=[record(
        name="uncommitted", num_partitions=1, replication_factor=1, assignments=[], configs=[])],
        validate_only=False))
    cluster.active.queue.run_pending()  # decided and replayed, but not committed
    assert cluster.active.replication.topic("uncommitted") is not None
    cluster.active.handle_leader_change(LeaderAndEpoch(2, 2))
    cluster.active.queue.run_pending()
    assert cluster.active.replication.topic("uncommitted") is None
    assert future.result()["topics"][0]["error_code"] == Errors.NOT_CONTROLLER
