"""DescribeConfigs and IncrementalAlterConfigs asked of both brokers: a topic's configs with their
sources, synonyms and types, the broker's, and every kind of change, the refused ones included."""

from __future__ import annotations

import re

from kafka.protocol.api_keys import ApiKey
from tests.differential.oracle import Intended, differences
from tests.differential.test_produce_fetch import create
from tests.helpers import unique_topic

TOPIC, BROKER = 2, 4
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
# Kafka's documentation strings are its prose: this broker words its own (never copied), so only their
# presence is compared.
OWN_WORDS = (Intended("*.documentation", "each broker documents its configs in its own words"),)
# Broker keys both brokers know, with the values both are started with (test_configs_of_every_broker_key
# compares them all; these also by name, so that a key dropped on either side is noticed).
BROKER_KEYS = ["log.retention.hours", "log.retention.ms", "log.retention.minutes", "log.segment.bytes",
               "num.partitions", "message.max.bytes", "min.insync.replicas", "auto.create.topics.enable",
               "log.cleanup.policy", "default.replication.factor", "log.roll.hours", "log.roll.ms",
               "unclean.leader.election.enable", "compression.type", "log.index.interval.bytes"]
# Broker keys only this broker has: its own (metrics.listener, request.trace.enable), the authoriser's
# (Kafka's StandardAuthorizer reads super.users and allow.everyone.if.no.acl.found itself, outside
# KafkaConfig), and two Kafka 4 made internal or dropped. Kafka 4.4 has some 200 more this broker does not
# build (docs/configuration.md): a few of share and streams groups', tiered storage, Kerberos and OAuth,
# delegation tokens, quotas of replication, purgatories, metric reporters... Neither set is compared.
OURS_ONLY = {"allow.everyone.if.no.acl.found", "leader.imbalance.per.broker.percentage", "metrics.listener",
             "producer.id.expiration.check.interval.ms", "request.trace.enable", "super.users"}
# Values each broker has from its own start-up config (tests/differential/conftest.py gives both the same
# keys): its ports and its data directory. Compared by shape: ports as <port>, a path as <a path>. node.id
# is 1 on both and compared as it is; no broker key holds the cluster id.
OWN_START_UP = {"listeners", "advertised.listeners", "controller.quorum.voters", "log.dirs"}
ONE_NODE_DEFAULTS = tuple(
    Intended(f"*configs[name={key}].synonyms[1].value",
             "defaults of 1 here, so that one broker started without server.properties has its internal "
             "topics; Kafka's are 3 (2 for the min ISR) and its server.properties sets 1")
    for key in ("offsets.topic.replication.factor", "transaction.state.log.replication.factor",
                "transaction.state.log.min.isr"))

def describe(resource_type: int, name: str, keys: list[str] | None = None,
             documentation: bool = False) -> dict:
    return {"resources": [{"resource_type": resource_type, "resource_name": name,
                           "configuration_keys": keys}],
            "include_synonyms": True, "include_documentation": documentation}


def alter(topic: str, *ops: tuple[str, int, str | None], validate_only: bool = False,
          resource_type: int = TOPIC) -> dict:
    return {"resources": [{"resource_type": resource_type, "resource_name": topic, "configs": [
        {"name": k, "config_operation": op, "value": v} for k, op, v in ops]}],
        "validate_only": validate_only}


def test_describe_a_topics_configs(pair):
    topic = unique_topic("described")
    create(pair, topic, configs={"retention.ms": "60000", "cleanup.policy": "compact,delete"})
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, topic))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, topic, documentation=True), intended=OWN_WORDS)
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, topic, ["segment.bytes", "no.such.config"]))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 1, describe(TOPIC, topic, ["retention.ms", "segment.ms"]))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, unique_topic("nowhere")))


def _by_shape(answer) -> dict:
    """A broker's DescribeConfigs answer with its OWN_START_UP values (and their synonyms') as shapes."""
    def shape(value: str | None) -> str | None:
        return value and ("<a path>" if value.startswith("/") else re.sub(r":\d+", ":<port>", value))
    as_dict = answer.to_dict()
    for config in (c for result in as_dict["results"] for c in result["configs"]
                   if c["name"] in OWN_START_UP):
        config["value"] = shape(config["value"])
        for synonym in config["synonyms"]:
            synonym["value"] = shape(synonym["value"])
    return as_dict


def test_configs_of_every_broker_key(pair):
    """Every broker key both brokers know, with its source, synonyms, value, type and sensitivity."""
    ours, theirs = ({c["name"] for c in answer.to_dict()["results"][0]["configs"]}
                    for answer in pair.ask(ApiKey.DESCRIBE_CONFIGS, 4, describe(BROKER, "1")))
    assert ours - theirs == OURS_ONLY
    assert set(BROKER_KEYS) <= ours & theirs
    answers = pair.ask(ApiKey.DESCRIBE_CONFIGS, 4, describe(BROKER, "1", sorted(ours & theirs)))
    found = differences(*map(_by_shape, answers), intended=ONE_NODE_DEFAULTS)
    assert not found, "DescribeConfigs v4: our broker and Apache Kafka differ:\n  " + "\n  ".join(found)


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
               ("retention.ms", SUBTRACT, "1"), ("remote.storage.enable", SET, "true"),
               ("no.such.config", DELETE, None)]
    for op in refused:
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter(topic, op))
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter(unique_topic("nowhere"), ("retention.ms", SET, "1")))
    for broker in ("1", "7"):
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1,
                  alter(broker, ("leader.replication.throttled.rate", DELETE, None),
                                                             resource_type=BROKER))
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1,
              alter(topic, ("leader.replication.throttled.replicas", DELETE, None)))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4,
              describe(TOPIC, topic, ["retention.ms", "cleanup.policy", "segment.bytes"]))
