"""The MetadataCache's half of DescribeTopicPartitions (Kafka's getTopicMetadataForDescribeTopicResponse),
on a real cache: each partition's ELR and last known ELR as the controller decided them, the offline
replicas and the leader as this listener sees them, and the partition limit cutting a topic or falling
between two."""

from __future__ import annotations

import uuid

from kafka.network.end_point import EndPoint
from kafka.protocol.errors import Errors
from kafka.server.metadata_cache import Broker, MetadataCache, PartitionState, TopicMetadata


def broker(node_id: int, fenced: bool = False) -> Broker:
    return Broker(node_id, (EndPoint("PLAINTEXT", "127.0.0.1", 9090 + node_id),), fenced=fenced)


def cache_with(*topics: TopicMetadata) -> MetadataCache:
    cache = MetadataCache("cluster", broker(1))
    cache.set_snapshot({t.name: t for t in topics}, {1: broker(1), 2: broker(2, fenced=True)}, 10)
    return cache


def topic(name: str, *partitions: PartitionState) -> TopicMetadata:
    return TopicMetadata(name, uuid.uuid4(), len(partitions), partitions=partitions)


def test_elr_last_known_elr_offline_replicas_and_the_leader():
    cache = cache_with(topic("t", PartitionState(0, 1, 4, (1, 2, 3), (1,), elr=(2,), last_known_elr=(3,)),
                             PartitionState(1, 3, 2, (3, 1), (3,))))
    answer = cache.topic_metadata_for_describe_topic_response(["t"], "PLAINTEXT", None, 2000, False)
    first, second = answer["topics"][0]["partitions"]
    assert (first["eligible_leader_replicas"], first["last_known_elr"]) == ([2], [3])
    assert first["offline_replicas"] == [2, 3]  # 2 fenced, 3 not registered
    assert (first["leader_id"], second["leader_id"]) == (1, -1)  # 3 is no broker this listener knows
    assert answer["next_cursor"] is None


def test_the_limit_cuts_a_topic_or_falls_between_two():
    three = topic("a", *(PartitionState(p, 1, 0, (1,), (1,)) for p in range(3)))
    one = topic("b", PartitionState(0, 1, 0, (1,), (1,)))
    cache = cache_with(three, one)
    cut = cache.topic_metadata_for_describe_topic_response(["a", "b"], "PLAINTEXT", ("a", 1), 1, False)
    assert [p["partition_index"] for p in cut["topics"][0]["partitions"]] == [1]
    assert cut["next_cursor"] == dict(topic_name="a", partition_index=2)
    between = cache.topic_metadata_for_describe_topic_response(["a", "b", "c"], "PLAINTEXT", None, 3, False)
    assert [t["name"] for t in between["topics"]] == ["a"]
    assert between["next_cursor"] == dict(topic_name="b", partition_index=0)
    rest = cache.topic_metadata_for_describe_topic_response(["b", "c", "no way"], "PLAINTEXT", None, 3, False)
    assert [(t["name"], t["error_code"]) for t in rest["topics"]] == [
        ("b", Errors.NONE), ("c", Errors.UNKNOWN_TOPIC_OR_PARTITION),
        ("no way", Errors.INVALID_TOPIC_EXCEPTION)]
    every = cache.topic_metadata_for_describe_topic_response(["a", "gone"], "PLAINTEXT", None, 10, True)
    assert [t["name"] for t in every["topics"]] == ["a"]  # all topics asked: one deleted meanwhile left out
