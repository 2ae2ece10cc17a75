"""Dynamic broker configs (KIP-226, ConfigResource.Type.BROKER) asked of both brokers: IncrementalAlterConfigs
and AlterConfigs on one broker ("1") and on the cluster default (""), accepted and refused with Kafka's
messages (a key that is not dynamic, a bad value, a thread count more than doubled, a per-broker key for the
cluster, an ssl key without its listener prefix, a node id that is not this one), validate_only, and
DescribeConfigs' sources, synonyms and read_only after each change. Every change is deleted again: the
suite's brokers are shared."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from tests.differential.oracle import Pair
from tests.differential.test_configs import APPEND, BROKER, DELETE, SET, TOPIC, alter, describe
from tests.differential.test_topics import create_topics
from tests.helpers import unique_topic, wait_until

KEYS = ["log.retention.ms", "log.retention.hours", "num.io.threads", "num.network.threads",
        "max.connections.per.ip", "log.cleaner.threads", "message.max.bytes", "log.segment.bytes",
        "num.replica.fetchers", "log.cleaner.backoff.ms"]


def alter_broker(name: str, *ops: tuple[str, int, str | None], validate_only: bool = False) -> dict:
    return alter(name, *ops, validate_only=validate_only, resource_type=BROKER)


def legacy(name: str, configs: dict[str, str], validate_only: bool = False) -> dict:
    return {"resources": [{"resource_type": BROKER, "resource_name": name, "configs": [
        {"name": k, "value": v} for k, v in configs.items()]}], "validate_only": validate_only}


def described(pair: Pair, name: str, keys: list[str]) -> None:
    """Until both brokers run with what the controller last wrote, then compare all of it: Apache Kafka
    answers an alteration once its controller has it, before its broker applied it (ours waits)."""
    def values(answer) -> dict:
        return {c.name: (c.value, c.config_source) for c in answer.results[0].configs}

    def same_values() -> bool:
        ours, theirs = pair.ask(ApiKey.DESCRIBE_CONFIGS, 4, describe(BROKER, name, keys))
        return values(ours) == values(theirs)
    try:
        wait_until(same_values, timeout=15, message=f"both brokers to show broker '{name}'s configs")
    finally:  # the differences, if they stayed
        pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(BROKER, name, keys))


def test_the_cluster_default_and_one_brokers_configs(pair):
    """log.retention.ms at both levels: the broker's own wins (DYNAMIC_BROKER_CONFIG), the default's is
    its next synonym (DYNAMIC_DEFAULT_BROKER_CONFIG), then server.properties' log.retention.hours."""
    try:
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_broker("", ("log.retention.ms", SET, "3600000"),
                                                                    ("max.connections.per.ip", SET, "1000")))
        described(pair, "", ["log.retention.ms", "max.connections.per.ip", "num.io.threads"])
        described(pair, "1", KEYS)
        topic = unique_topic("under-dynamic-defaults")  # its configs' sources name the dynamic default
        pair.same(ApiKey.CREATE_TOPICS, 7, create_topics({"name": topic, "num_partitions": 1,
                                                          "replication_factor": 1}))
        pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, topic, ["retention.ms", "segment.bytes"]))
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_broker("1", ("log.retention.ms", SET, "7200000"),
                                                                    ("num.io.threads", SET, "10"),
                                                                    ("log.cleaner.threads", SET, "2")))
        described(pair, "1", KEYS)
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_broker("1", ("num.io.threads", SET, "12"),
                                                                    validate_only=True))
        described(pair, "1", ["num.io.threads"])
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_broker("1", ("no.such.config", SET, "1")))
        described(pair, "1", ["no.such.config"])
    finally:
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_broker(
            "1", ("log.retention.ms", DELETE, None), ("num.io.threads", DELETE, None),
            ("log.cleaner.threads", DELETE, None), ("no.such.config", DELETE, None)))
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_broker(
            "", ("log.retention.ms", DELETE, None), ("max.connections.per.ip", DELETE, None)))
    described(pair, "1", [*KEYS, "no.such.config"])
    described(pair, "", ["log.retention.ms", "max.connections.per.ip"])


def test_refused_changes(pair):
    """Kafka's INVALID_REQUEST and message for each, and nothing applied."""
    refused = [
        ("1", ("log.dirs", SET, "/elsewhere")),
        ("1", ("num.io.threads", SET, "abc")),
        ("1", ("num.io.threads", SET, "0")),
        ("1", ("num.io.threads", SET, "100")),
        ("1", ("num.io.threads", SET, "2")),
        ("1", ("num.network.threads", SET, "7")),
        ("1", ("log.cleaner.threads", SET, "3")),
        ("1", ("message.max.bytes", SET, "-5")),
        ("1", ("log.retention.bytes", SET, "x")),
        ("1", ("ssl.keystore.location", SET, "/tmp/keystore.p12")),
        ("", ("listener.name.plaintext.ssl.keystore.location", SET, "/tmp/keystore.p12")),
        ("", ("listeners", SET, "PLAINTEXT://127.0.0.1:1")),
        ("1", ("log.retention.ms", APPEND, "5")),
        ("1", ("leader.replication.throttled.rate", SET, "fast")),
        ("7", ("log.retention.ms", SET, "5")),
        ("x", ("log.retention.ms", SET, "5")),
        ("1", ("log.retention.ms", SET, None)),
    ]
    for name, op in refused:
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_broker(name, op))
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_broker("1", ("max.connections", SET, "1000"),
                                                                ("log.retention.bytes", SET, "x")))
    described(pair, "1", KEYS + ["max.connections"])


def test_legacy_alter_configs(pair):
    """AlterConfigs replaces the level's whole set: refused as IncrementalAlterConfigs is, validate_only
    changes nothing."""
    pair.same(ApiKey.ALTER_CONFIGS, 2, legacy("1", {"log.dirs": "/elsewhere"}))
    pair.same(ApiKey.ALTER_CONFIGS, 2, legacy("1", {"log.cleaner.threads": "2"}, validate_only=True))
    pair.same(ApiKey.ALTER_CONFIGS, 2, legacy("", {"listener.name.plaintext.ssl.key.password": "x"}))
    described(pair, "1", KEYS)
