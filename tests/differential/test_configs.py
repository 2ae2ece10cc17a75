"""DescribeConfigs and IncrementalAlterConfigs asked of both brokers: a topic's configs with their
sources, synonyms and types, the broker's, and every kind of change, the refused ones included."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from tests.differential.oracle import Intended
from tests.differential.test_produce_fetch import create
from tests.helpers import unique_topic

TOPIC, BROKER = 2, 4
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
# Kafka's documentation strings are its prose: this broker words its own (never copied), so only their
# presence is compared.
OWN_WORDS = (Intended("*.documentation", "each broker documents its configs in its own words"),)
# Broker keys both brokers know, with the values both are started with.
BROKER_KEYS = ["log.retention.hours", "log.retention.ms", "log.retention.minutes", "log.segment.bytes",
               "num.partitions", "message.max.bytes", "min.insync.replicas", "auto.create.topics.enable",
               "log.cleanup.policy", "default.replication.factor", "log.roll.hours", "log.roll.ms",
               "unclean.leader.election.enable", "compression.type", "log.index.interval.bytes"]


def describe(resource_type: int, name: str, keys: list[str] | None = None, documentation: bool = False) -> dict:
    return {"resources": [{"resource_type": resource_type, "resource_name": name, "configuration_keys": keys}],
            "include_synonyms": True, "include_documentation": documentation}


def alter(topic: str, *ops: tuple[str, int, str | None], validate_only: bool = False, resource_type: int = TOPIC) -> dict:
    return {"resources": [{"resource_type": resource_type, "resource_name": topic, "configs": [
        {"name": k, "config_operation": op, "value": v} for k, op, v in ops]}], "validate_only": validate_only}


def test_describe_a_topics_configs(pair):
    topic = unique_topic("described")
    create(pair, topic, configs={"retention.ms": "60000", "cleanup.policy": "compact,delete"})
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, topic))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, topic, documentation=True), intended=OWN_WORDS)
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, topic, ["segment.bytes", "no.such.config"]))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 1, describe(TOPIC, topic, ["retention.ms", "segment.ms"]))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, unique_topic("nowhere")))


def test_describe_the_brokers_configs(pair):
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(BROKER, "1", BROKER_KEYS))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(BROKER, "", ["log.segment.bytes"]))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(BROKER, "7", ["log.segment.bytes"]))


def test_incremental_alter_configs(pair):
    topic = unique_topic("altered")
    create(pair, topic)
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter(topic, ("retention.ms", SET, "1000"),
                                                         ("cleanup.policy", APPEND, "compact")))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, topic, ["retention.ms", "cleanup.policy"]))
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter(topic, ("cleanup.policy", SUBTRACT, "delete"),
                                                         ("retention.ms", DELETE, None)))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, topic, ["retention.ms", "cleanup.policy"]))
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter(topic, ("segment.bytes", SET, "2000000"),
                                                         validate_only=True))
    refused = [("retention.ms", SET, "soon"), ("no.such.config", SET, "1"), ("retention.ms", APPEND, "1"),
               ("retention.ms", SUBTRACT, "1"), ("remote.storage.enable", SET, "true"), ("no.such.config", DELETE, None)]
    for op in refused:
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter(topic, op))
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter(unique_topic("nowhere"), ("retention.ms", SET, "1")))
    for broker in ("1", "7"):
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter(broker, ("leader.replication.throttled.rate", DELETE, None),
                                                             resource_type=BROKER))
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter(topic, ("leader.replication.throttled.replicas", DELETE, None)))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, topic, ["retention.ms", "cleanup.policy", "segment.bytes"]))
