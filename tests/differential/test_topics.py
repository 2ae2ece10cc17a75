"""CreateTopics, DeleteTopics and CreatePartitions asked of both brokers, the refusals above all:
bad configs, impossible replication factors and partition counts, bad names, existing topics."""

from __future__ import annotations

import uuid

from kafka.protocol.api_keys import ApiKey
from tests.differential.oracle import Intended
from tests.differential.test_produce_fetch import create
from tests.helpers import unique_topic


def create_topics(*topics: dict, validate_only: bool = False) -> dict:
    return {"topics": [{"num_partitions": 1, "replication_factor": 1, "assignments": [], "configs": [], **t}
                       for t in topics], "timeout_ms": 30000, "validate_only": validate_only}


def configs(**pairs: str) -> list[dict]:
    return [{"name": k.replace("_", "."), "value": v} for k, v in pairs.items()]


def test_create_topics_refusals(pair):
    pair.same(ApiKey.CREATE_TOPICS, 7, create_topics(
        {"name": unique_topic("unknown-config"), "configs": [{"name": "no.such.config", "value": "1"}]},
        {"name": unique_topic("bad-value"), "configs": configs(retention_ms="soon")},
        {"name": unique_topic("below-range"), "configs": configs(retention_ms="-5")},
        {"name": unique_topic("small-segments"), "configs": configs(segment_bytes="10")},
        {"name": unique_topic("not-an-int"), "configs": configs(max_message_bytes="2147483648")},
        {"name": unique_topic("not-a-bool"), "configs": configs(preallocate="yes")},
        {"name": unique_topic("not-a-ratio"), "configs": configs(min_cleanable_dirty_ratio="1.5")},
        {"name": unique_topic("bad-type"), "configs": configs(message_timestamp_type="Now")},
        {"name": unique_topic("empty-policy"), "configs": configs(cleanup_policy="")},
        {"name": unique_topic("bad-choice"), "configs": configs(cleanup_policy="shred")},
        {"name": unique_topic("null-value"), "configs": [{"name": "retention.ms", "value": None}]},
        {"name": unique_topic("tiered"), "configs": [{"name": "remote.storage.enable", "value": "true"}]},
        {"name": unique_topic("too-many-replicas"), "replication_factor": 3},
        {"name": unique_topic("no-partitions"), "num_partitions": 0},
        {"name": unique_topic("no-replicas"), "replication_factor": 0},
        {"name": "bad/name"}, {"name": ""}, {"name": "."}, {"name": "x" * 250},
    ))


def test_create_topics_with_defaults_validate_only_and_twice(pair):
    topic = unique_topic("defaults")
    pair.same(ApiKey.CREATE_TOPICS, 7,
              create_topics({"name": topic, "num_partitions": -1, "replication_factor": -1},
                            validate_only=True))
    pair.same(ApiKey.CREATE_TOPICS, 7,
              create_topics({"name": topic, "num_partitions": -1, "replication_factor": -1,
                             "configs": configs(retention_ms="60000")}))
    pair.same(ApiKey.CREATE_TOPICS, 7, create_topics({"name": topic}))  # it exists now
    pair.same(ApiKey.CREATE_TOPICS, 7, create_topics({"name": topic}, validate_only=True))
    twice = unique_topic("twice")
    pair.same(ApiKey.CREATE_TOPICS, 7, create_topics({"name": twice}, {"name": twice}))


def test_delete_topics_and_create_partitions(pair):
    topic = unique_topic("grow")
    create(pair, topic, partitions=2)
    nowhere = unique_topic("nowhere")
    for count in (1, 2):  # fewer, the same
        pair.same(ApiKey.CREATE_PARTITIONS, 3,
                  {"topics": [{"name": topic, "count": count, "assignments": None}],
                   "timeout_ms": 30000, "validate_only": False})
    pair.same(ApiKey.CREATE_PARTITIONS, 3, {"topics": [{"name": topic, "count": 3, "assignments": None},
                                                       {"name": nowhere, "count": 3, "assignments": None}],
                                            "timeout_ms": 30000, "validate_only": True})
    pair.same(ApiKey.DELETE_TOPICS, 6,
              {"topics": [{"name": nowhere, "topic_id": uuid.UUID(int=0)}], "timeout_ms": 30000})
    pair.same(ApiKey.DELETE_TOPICS, 5, {"topic_names": [nowhere], "timeout_ms": 30000})
    pair.same(ApiKey.DELETE_TOPICS, 6,
              {"topics": [{"name": None, "topic_id": uuid.uuid4()}], "timeout_ms": 30000})
    pair.same(ApiKey.CREATE_PARTITIONS, 3, {"topics": [{"name": topic, "count": 3, "assignments": None}] * 2,
                                            "timeout_ms": 30000, "validate_only": False})
    pair.same(ApiKey.DELETE_TOPICS, 6,
              {"topics": [{"name": topic, "topic_id": uuid.UUID(int=0)}], "timeout_ms": 30000})


def test_alter_partition_reassignments_v1_with_and_without_replication_factor_changes(pair):
    """KIP-860: v1's AllowReplicationFactorChange, echoed in the answer. One broker a side, so every
    target of another size names a broker that is not there: INVALID_REPLICA_ASSIGNMENT, which Kafka
    checks before the replication factor (the RF refusal itself: tests/controller/
    test_partition_reassignment.py). The same replica again is no change at all. (A partition named twice
    in one request is left out: Kafka alters it twice, this broker refuses the second, INVALID_REQUEST.)"""
    topic = unique_topic("reassign")
    create(pair, topic, partitions=4)
    node = {side.name: side.request(ApiKey.METADATA, 12, {"topics": []}).brokers[0].node_id
            for side in pair.sides}

    def reassign(allow: bool, *targets):
        return lambda side: {"timeout_ms": 30000, "allow_replication_factor_change": allow, "topics": [
            {"name": name, "partitions": [{"partition_index": index, "replicas": None if replicas is None
                                           else [node[side.name] if r == "me" else r for r in replicas]}]}
            for name, index, replicas in targets]}

    for allow in (False, True):
        ours = pair.same(ApiKey.ALTER_PARTITION_REASSIGNMENTS, 1, reassign(
            allow, (topic, 0, ["me"]), (topic, 1, ["me", 99]), (topic, 2, []), (topic, 3, None),
            (unique_topic("nowhere"), 0, ["me"]), (topic, 7, ["me"])),
            intended=(Intended("responses[*].partitions[*].error_message", "the wording"),))
        assert ours.allow_replication_factor_change is allow
