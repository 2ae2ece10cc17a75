"""Every count in an admin request is bounded before the QuorumController acts on it (issue 27):
Kafka's 10,000-partition cap per request, its manual-assignment checks, its cap on the records of
one operation, and a shutdown that answers the callers still waiting instead of leaving them hang."""

from __future__ import annotations

import pytest

from kafka.controller.controller_result import EXCESSIVE_BATCH_MESSAGE, SHUTTING_DOWN_MESSAGE
from kafka.controller.request_bounds import (
    EXCESSIVE_PARTITIONS_MESSAGE,
    MAX_PARTITIONS_PER_BATCH,
)
from kafka.protocol.errors import Errors
from kafka.protocol.messages.elect_leaders import PREFERRED
from tests.controller.test_quorum_controller import Cluster, record

BROKER_RESOURCE = 4


def new_topic(name: str, partitions: int = -1, replication: int = -1, assignments=()):
    return record(name=name, num_partitions=partitions, replication_factor=replication, configs=[],
                  assignments=[record(partition_index=i, broker_ids=list(ids)) for i, ids in assignments])


def create_topics(cluster: Cluster, *topics, validate_only: bool = False) -> list[dict]:
    return cluster.call(cluster.active.create_topics(record(topics=list(topics),
                                                            validate_only=validate_only)))["topics"]


def create_partitions(cluster: Cluster, name: str, count: int, assignments=None,
                      validate_only: bool = False) -> dict:
    request = record(topics=[record(name=name, count=count, assignments=assignments)],
                     validate_only=validate_only)
    return cluster.call(cluster.active.create_partitions(request))["results"][0]


@pytest.fixture
def cluster() -> Cluster:
    c = Cluster()
    for b in (1, 2, 3):
        c.register_and_unfence(b)
    return c


@pytest.mark.parametrize("validate_only", [False, True])
def test_the_partition_cap_is_summed_over_the_topics_of_a_create_topics(cluster, validate_only):
    written = len(cluster.raft.entries)
    results = create_topics(cluster, new_topic("a", 5000, 1), new_topic("b", 5000, 1), new_topic("c", 1, 1),
                            validate_only=validate_only)
    assert [(r["error_code"], r["error_message"]) for r in results] == \
        [(Errors.POLICY_VIOLATION, EXCESSIVE_PARTITIONS_MESSAGE)] * 3
    assert len(cluster.raft.entries) == written and cluster.active.replication.topic("a") is None
    # a million, or the most an int32 can say, costs no more than three topics did
    for count in (1_000_000, 2**31 - 1):
        [result] = create_topics(cluster, new_topic("huge", count, 1), validate_only=validate_only)
        assert result["error_code"] == Errors.POLICY_VIOLATION


def test_assignments_count_toward_the_cap_as_given(cluster):
    many = [(i, [1]) for i in range(MAX_PARTITIONS_PER_BATCH + 1)]
    [result] = create_topics(cluster, new_topic("manual", assignments=many))
    assert result["error_code"] == Errors.POLICY_VIOLATION


@pytest.mark.parametrize("validate_only", [False, True])
def test_create_partitions_counts_what_each_topic_would_gain(cluster, validate_only):
    create_topics(cluster, new_topic("t", 3, 1))
    written = len(cluster.raft.entries)
    result = create_partitions(cluster, "t", 3 + MAX_PARTITIONS_PER_BATCH + 1, validate_only=validate_only)
    assert (result["error_code"], result["error_message"]) == (Errors.POLICY_VIOLATION,
                                                               EXCESSIVE_PARTITIONS_MESSAGE)
    assert create_partitions(cluster, "t", 2**31 - 1, validate_only=validate_only)["error_code"] == \
        Errors.POLICY_VIOLATION
    assert len(cluster.raft.entries) == written and len(cluster.active.replication.topic("t").partitions) == 3
    assert create_partitions(cluster, "t", 5, validate_only=validate_only)["error_code"] == Errors.NONE


@pytest.mark.slow  # builds 10,000 partitions twice: seconds, so make test runs it and the quick loop does not
def test_one_topic_of_the_batch_record_limit_is_refused_as_kafka_refuses_it(cluster):
    """Exactly 10,000 partitions pass the partition cap, but with its TopicRecord the topic is 10,001
    records: more than one operation may write (MAX_RECORDS_PER_USER_OP), as in Kafka."""
    [result] = create_topics(cluster, new_topic("edge", MAX_PARTITIONS_PER_BATCH, 1))
    assert (result["error_code"], result["error_message"]) == (Errors.POLICY_VIOLATION,
                                                               EXCESSIVE_BATCH_MESSAGE)
    assert cluster.active.replication.topic("edge") is None
    [result] = create_topics(cluster, new_topic("big", MAX_PARTITIONS_PER_BATCH - 1, 1))
    assert result["error_code"] == Errors.NONE


@pytest.mark.parametrize(("partitions", "replication", "error"), [
    (-5, 1, Errors.INVALID_PARTITIONS),
    (0, 1, Errors.INVALID_PARTITIONS),
    (1, 0, Errors.INVALID_REPLICATION_FACTOR),
    (1, -3, Errors.INVALID_REPLICATION_FACTOR),
    (1, 4, Errors.INVALID_REPLICATION_FACTOR),  # three brokers
    (1, 32767, Errors.INVALID_REPLICATION_FACTOR),
])
def test_counts_out_of_range_get_kafkas_error_codes(cluster, partitions, replication, error):
    assert create_topics(cluster, new_topic("t", partitions, replication))[0]["error_code"] == error


@pytest.mark.parametrize(("assignments", "says"), [
    ([(0, [1, 1])], "includes the broker 1 more than once"),
    ([(0, list(range(100, 100_100)))], "includes broker 100, but no such broker is registered"),
    ([(0, [])], "empty replica list"),
    ([(0, [1, 2]), (1, [3])], "not consistent with previous partitions"),
    ([(0, [1]), (0, [2])], "multiple manual partition assignments for partition 0"),
    ([(0, [1]), (2, [2])], "consecutive 0-based"),
])
def test_manual_assignments_are_checked_as_kafka_checks_them(cluster, assignments, says):
    [result] = create_topics(cluster, new_topic("manual", assignments=assignments))
    assert result["error_code"] == Errors.INVALID_REPLICA_ASSIGNMENT
    assert says in result["error_message"] and len(result["error_message"]) < 200


def test_a_valid_manual_assignment_is_kept_as_given(cluster):
    [result] = create_topics(cluster, new_topic("manual", assignments=[(0, [3, 1]), (1, [2, 3])]))
    assert result["error_code"] == Errors.NONE
    partitions = cluster.active.replication.topic("manual").partitions
    assert [(p.replicas, p.leader) for _, p in sorted(partitions.items())] == [((3, 1), 3), ((2, 3), 2)]
    bad = [record(broker_ids=[1, 1])]
    assert create_partitions(cluster, "manual", 3, bad)["error_code"] == Errors.INVALID_REPLICA_ASSIGNMENT
    assert create_partitions(cluster, "manual", 4, [record(broker_ids=[1, 2])])["error_code"] == \
        Errors.INVALID_REPLICA_ASSIGNMENT  # two partitions to add, one assignment given


def test_a_partition_named_many_times_is_elected_once(cluster):
    create_topics(cluster, new_topic("t", 1, 3))
    written = len(cluster.raft.entries)
    response = cluster.call(cluster.active.elect_leaders(record(
        election_type=PREFERRED, topic_partitions=[record(topic="t", partitions=[0] * 200_000)])))
    assert [len(t["partition_result"]) for t in response["replica_election_results"]] == [1]
    assert len(cluster.raft.entries) == written


def test_too_many_records_or_bytes_for_one_batch_are_refused_whole(cluster):
    """A broker's configs are not checked against a schema: their count and size are what is bounded."""
    def alter(configs):
        request = record(resources=[record(resource_type=BROKER_RESOURCE, resource_name="1", configs=[
            dict(name=k, config_operation=0, value=v) for k, v in configs.items()])], validate_only=False)
        return cluster.call(cluster.active.incremental_alter_configs(request))["responses"][0]

    written = len(cluster.raft.entries)
    too_many = alter({f"k{i}": "v" for i in range(10_001)})
    too_big = alter({f"k{i}": "x" * 30_000 for i in range(40)})
    for response in (too_many, too_big):
        assert (response["error_code"], response["error_message"]) == (Errors.POLICY_VIOLATION,
                                                                       EXCESSIVE_BATCH_MESSAGE)
    assert len(cluster.raft.entries) == written
    assert alter({"k": "v"})["error_code"] == Errors.NONE


def test_shutdown_answers_every_caller_still_waiting_in_the_queue(cluster):
    waiting = cluster.active.create_topics(record(topics=[new_topic("t", 1, 1)], validate_only=False))
    cluster.active.shutdown()  # before the event ran: the queue rejects it
    after = cluster.active.create_partitions(record(topics=[record(name="t", count=2, assignments=None)],
                                                    validate_only=False))
    assert waiting.done() and after.done()
    [topic] = waiting.result()["topics"]
    assert (topic["error_code"], topic["error_message"]) == (Errors.REQUEST_TIMED_OUT, SHUTTING_DOWN_MESSAGE)
    assert after.result()["results"][0]["error_code"] == Errors.REQUEST_TIMED_OUT
