"""DescribeTopicPartitions (KIP-966) asked of both brokers: topics by name (in name order, whatever order
they are asked in), each partition's ELR and last known ELR, a topic that does not exist and a name no
topic may have, paging with a small ResponsePartitionLimit and the NextCursor followed to the end, and
the cursors Kafka refuses as INVALID_REQUEST."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from tests.differential.group_steps import create_topic
from tests.helpers import unique_topic

VERSION = 0


def describe(*names: str, limit: int = 2000, cursor: tuple[str, int] | None = None) -> dict:
    return {"topics": [{"name": n} for n in names], "response_partition_limit": limit,
            "cursor": None if cursor is None else {"topic_name": cursor[0], "partition_index": cursor[1]}}


def test_topics_by_name_with_their_elr(pair):
    first, second = unique_topic("dtp-b"), unique_topic("dtp-a")
    create_topic(pair, first, partitions=3)
    create_topic(pair, second, partitions=2)
    ours = pair.same(ApiKey.DESCRIBE_TOPIC_PARTITIONS, VERSION, describe(first, second))
    assert [t.name for t in ours.topics] == sorted([first, second])
    assert all(p.eligible_leader_replicas == [] and p.last_known_elr == []
               for t in ours.topics for p in t.partitions)
    assert ours.next_cursor is None


def test_unknown_and_invalid_topics(pair):
    known = unique_topic("dtp-known")
    create_topic(pair, known)
    pair.same(ApiKey.DESCRIBE_TOPIC_PARTITIONS, VERSION, describe(known, unique_topic("dtp-missing")))
    pair.same(ApiKey.DESCRIBE_TOPIC_PARTITIONS, VERSION, describe("bad name!", known))


def test_paging_with_a_small_limit_follows_the_cursor(pair):
    a, b = unique_topic("dtp-page-a"), unique_topic("dtp-page-b")
    create_topic(pair, a, partitions=3)
    create_topic(pair, b, partitions=2)
    cursor, pages = None, []
    while True:  # 2 partitions a page: a 0-1, a 2 and b 0, b 1
        ours = pair.same(ApiKey.DESCRIBE_TOPIC_PARTITIONS, VERSION, describe(a, b, limit=2, cursor=cursor))
        pages.append([(t.name, p.partition_index) for t in ours.topics for p in t.partitions])
        if ours.next_cursor is None:
            break
        cursor = (ours.next_cursor.topic_name, ours.next_cursor.partition_index)
    assert pages == [[(a, 0), (a, 1)], [(a, 2), (b, 0)], [(b, 1)]]
    # the limit falling exactly between two topics: the cursor names the next one at partition 0
    ours = pair.same(ApiKey.DESCRIBE_TOPIC_PARTITIONS, VERSION, describe(a, b, limit=3))
    assert (ours.next_cursor.topic_name, ours.next_cursor.partition_index) == (b, 0)
    # a cursor past the topic's last partition, and a limit of 0 (taken as 1)
    pair.same(ApiKey.DESCRIBE_TOPIC_PARTITIONS, VERSION, describe(a, b, cursor=(a, 7)))
    pair.same(ApiKey.DESCRIBE_TOPIC_PARTITIONS, VERSION, describe(b, limit=0))


def test_cursors_kafka_refuses(pair):
    topic = unique_topic("dtp-cursor")
    create_topic(pair, topic)
    other = unique_topic("dtp-other")
    pair.same(ApiKey.DESCRIBE_TOPIC_PARTITIONS, VERSION, describe(topic, cursor=(other, 0)))
    pair.same(ApiKey.DESCRIBE_TOPIC_PARTITIONS, VERSION, describe(topic, cursor=(topic, -1)))
