"""Acceptance: DescribeTopicPartitions (KIP-966) over loopback, with the wire client and with our admin
client: topics in name order whatever order they are asked in, all topics when none is named (internal
ones flagged), UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist, paging with a small
ResponsePartitionLimit and its NextCursor, the cursors refused as INVALID_REQUEST, and `kafka-topics
--describe` printing each partition's Elr and LastKnownElr from it."""

from __future__ import annotations

from kafka.clients.admin import AdminClient
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.tools import topics as kafka_topics
from tests.helpers import unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.wire import WireClient


def describe(client: WireClient, *names: str, limit: int = 2000, cursor: tuple[str, int] | None = None):
    return client.request(ApiKey.DESCRIBE_TOPIC_PARTITIONS, 0, {
        "topics": [{"name": n} for n in names], "response_partition_limit": limit,
        "cursor": None if cursor is None else {"topic_name": cursor[0], "partition_index": cursor[1]}})


def test_named_and_all_topics_in_name_order(broker):
    b, a = unique_topic("dtp-b"), unique_topic("dtp-a")
    create_topic(broker.bootstrap, b, 2)
    create_topic(broker.bootstrap, a, 1)
    client = WireClient(broker.port)
    missing = unique_topic("dtp-missing")
    named = describe(client, b, missing, a)
    assert [(t.name, t.error_code) for t in named.topics] == sorted(
        [(a, Errors.NONE), (b, Errors.NONE), (missing, Errors.UNKNOWN_TOPIC_OR_PARTITION)])
    by_name = {t.name: t for t in named.topics}
    assert [p.partition_index for p in by_name[b].partitions] == [0, 1]
    partition = by_name[a].partitions[0]
    assert (partition.leader_id, partition.replica_nodes, partition.isr_nodes) == (1, [1], [1])
    assert (partition.eligible_leader_replicas, partition.last_known_elr) == ([], [])
    assert by_name[a].topic_id == broker.server.metadata_cache.get_topic(a).topic_id
    assert not by_name[a].is_internal and named.next_cursor is None

    # all topics: FindCoordinator creates __consumer_offsets, flagged internal
    client.request(ApiKey.FIND_COORDINATOR, 4, {"key_type": 0, "coordinator_keys": ["dtp-group"]})
    wait_until(lambda: "__consumer_offsets" in {t.name for t in describe(client).topics},
               message="__consumer_offsets among all topics")
    every = describe(client).topics
    assert [t.name for t in every] == sorted(t.name for t in every)
    assert {t.name for t in every if t.is_internal} == {"__consumer_offsets"}
    assert {a, b} <= {t.name for t in every} and all(t.error_code == Errors.NONE for t in every)


def test_paging_with_a_small_limit(broker):
    a, b = unique_topic("dtp-page-a"), unique_topic("dtp-page-b")
    create_topic(broker.bootstrap, a, 3)
    create_topic(broker.bootstrap, b, 2)
    client = WireClient(broker.port)
    cursor, pages = None, []
    while True:
        answer = describe(client, b, a, limit=2, cursor=cursor)
        pages.append([(t.name, p.partition_index) for t in answer.topics for p in t.partitions])
        if answer.next_cursor is None:
            break
        cursor = answer.next_cursor.topic_name, answer.next_cursor.partition_index
    assert pages == [[(a, 0), (a, 1)], [(a, 2), (b, 0)], [(b, 1)]]
    between = describe(client, a, b, limit=3).next_cursor
    assert (between.topic_name, between.partition_index) == (b, 0)
    for refused in (describe(client, a, cursor=(b, 0)), describe(client, a, cursor=(a, -1))):
        assert [(t.name, t.error_code) for t in refused.topics] == [(a, Errors.INVALID_REQUEST)]

    # our admin client pages the same way and puts each topic back together
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        described = admin.describe_topics([a, b], partition_size_limit_per_response=1)
    assert {name: [p.partition for p in d.partitions] for name, d in described.items()} == {
        a: [0, 1, 2], b: [0, 1]}
    assert all(p.elr == () and p.last_known_elr == () for d in described.values() for p in d.partitions)


def test_kafka_topics_describe_prints_the_elr(broker, capsys):
    topic = unique_topic("dtp-tool")
    create_topic(broker.bootstrap, topic, 2)
    assert kafka_topics.main(["--bootstrap-server", broker.bootstrap, "--describe", "--topic", topic,
                              "--partition-size-limit-per-response", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == [f"\tTopic: {topic}\tPartition: {p}\tLeader: 1\tReplicas: 1\tIsr: 1"
                         "\tElr: \tLastKnownElr: " for p in (0, 1)]
