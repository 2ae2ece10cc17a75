"""The QuorumController keeps "state changes only in replay" (issue 31): the raft client's not-leader
error renounces quietly, any other exception is a fault (logged, counted in MetadataErrorCount,
renounced and resigned); decisions never replay a record early; reads and record-less answers wait
for the highest pending write to commit."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from kafka.controller import controller_result
from kafka.protocol.errors import Errors
from kafka.raft.batch import LeaderAndEpoch, NotLeaderError
from tests.controller.test_quorum_controller import Cluster, record


def new_topic(name: str, partitions: int = 1, replication: int = 1):
    return record(name=name, num_partitions=partitions, replication_factor=replication, assignments=[],
                  configs=[])


def create_topic_request(name: str, partitions: int = 1):
    return record(topics=[new_topic(name, partitions)], validate_only=False)


@pytest.fixture
def cluster() -> Cluster:
    c = Cluster()
    c.register_and_unfence(1)
    return c


def test_a_refused_append_renounces_without_a_fault(cluster):
    cluster.raft.fail_with = NotLeaderError("node 1 is not the leader of epoch 1")
    future = cluster.active.create_topics(create_topic_request("t"))
    cluster.active.queue.run_pending()
    assert future.result()["topics"][0]["error_code"] == Errors.NOT_CONTROLLER
    assert not cluster.active.is_active()
    assert cluster.active.metrics_values()["MetadataErrorCount"] == 0


def test_a_bug_is_a_fault_not_a_silent_renounce(cluster):
    cluster.raft.fail_with = RuntimeError("a bug in the append path")
    future = cluster.active.create_topics(create_topic_request("t"))
    with capture_logs() as logs:
        cluster.active.queue.run_pending()
    assert future.result()["topics"][0]["error_code"] == Errors.UNKNOWN_SERVER_ERROR
    assert cluster.active.metrics_values()["MetadataErrorCount"] == 1
    assert not cluster.active.is_active() and cluster.raft.resigned == 1  # another voter should lead now
    assert cluster.active.replication.topic("t") is None
    [fault] = [e for e in logs if e["log_level"] == "error"]
    assert fault["event"] == "controller event failed with a fault; renouncing"
    assert fault["operation"] == "create_topics" and isinstance(fault["exc_info"], RuntimeError)


def test_a_fault_in_a_periodic_task_is_counted_and_renounces(cluster):
    cluster.raft.fail_with = RuntimeError("a bug in the no-op writer")
    cluster.time.sleep(cluster.active.config.metadata_max_idle_interval_ms)
    cluster.active.queue.run_pending()
    assert cluster.active.metrics_values()["MetadataErrorCount"] == 1
    assert not cluster.active.is_active()


def test_a_refused_controlled_shutdown_leaves_no_trace_in_the_active_controller(cluster, monkeypatch):
    """The decision once replayed the broker's controlled-shutdown change before the batch was checked:
    refused as too large, nothing was written, yet the active controller believed it (the standbys did
    not)."""
    cluster.register_and_unfence(2)
    cluster.call(cluster.active.create_topics(record(topics=[new_topic("t", 4)], validate_only=False)))
    epoch = cluster.active.cluster.brokers[1].epoch
    monkeypatch.setattr(controller_result, "MAX_RECORDS_PER_USER_OP", 2)  # 1 + the partitions broker 1 leads
    response = cluster.call(cluster.active.process_broker_heartbeat(record(
        broker_id=1, broker_epoch=epoch, current_metadata_offset=cluster.raft.committed, want_fence=False,
        want_shut_down=True)))
    assert response["error_code"] == Errors.POLICY_VIOLATION
    assert cluster.active.cluster.brokers == cluster.standby.cluster.brokers
    assert not cluster.active.cluster.brokers[1].in_controlled_shutdown


def test_an_answer_that_writes_nothing_waits_for_the_pending_write(cluster):
    first = cluster.active.create_topics(create_topic_request("t"))
    cluster.active.queue.run_pending()  # decided and appended, not committed
    again = cluster.active.create_topics(create_topic_request("t"))
    cluster.active.queue.run_pending()
    assert not again.done(), "TOPIC_ALREADY_EXISTS must not be said of a topic the quorum may never commit"
    cluster.raft.commit_to([cluster.active, cluster.standby])
    assert first.result()["topics"][0]["error_code"] == Errors.NONE
    assert again.result()["topics"][0]["error_code"] == Errors.TOPIC_ALREADY_EXISTS


def test_a_read_waits_for_the_pending_write_and_fails_if_it_is_lost(cluster):
    cluster.register_and_unfence(2)
    cluster.call(cluster.active.create_topics(create_topic_request("t")))
    leader = cluster.active.replication.topic("t").partitions[0].leader
    move = record(topics=[record(name="t", partitions=[record(partition_index=0, replicas=[3 - leader])])])
    cluster.active.alter_partition_reassignments(move)
    cluster.active.queue.run_pending()  # the reassignment is decided, not committed
    listing = cluster.active.list_partition_reassignments(record(topics=None))
    cluster.active.queue.run_pending()
    assert not listing.done(), "a reassignment the quorum has not committed must not be listed"
    cluster.active.handle_leader_change(LeaderAndEpoch(2, 2))
    cluster.active.queue.run_pending()
    assert listing.result()["error_code"] == Errors.NOT_CONTROLLER


def test_a_read_with_nothing_pending_is_answered_at_once(cluster):
    listing = cluster.active.list_partition_reassignments(record(topics=None))
    cluster.active.queue.run_pending()
    assert listing.result() == dict(throttle_time_ms=0, error_code=Errors.NONE, error_message=None, topics=[])
