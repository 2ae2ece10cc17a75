"""Group configs (KIP-848/932, ConfigResource.Type.GROUP) asked of both brokers: DescribeConfigs of a
group that sets nothing and of one that sets keys (values, sources, synonyms, types, documentation's
presence), IncrementalAlterConfigs and AlterConfigs accepted and refused (an unknown key, a bad value, one
out of the broker's bounds, the empty group name), and a group's configs outliving the group."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from tests.differential.group_steps import Script, create_topic, find_coordinator
from tests.differential.oracle import Pair
from tests.differential.test_configs import APPEND, DELETE, OWN_WORDS, SET, SUBTRACT, alter, describe
from tests.differential.test_groups import COMMIT, commit
from tests.helpers import unique_topic, wait_until

GROUP = 32  # ConfigResource.Type.GROUP
GROUP_KEY = 0  # FindCoordinator's key type


def alter_group(group: str, *ops: tuple[str, int, str | None], validate_only: bool = False) -> dict:
    return alter(group, *ops, validate_only=validate_only, resource_type=GROUP)


def described(pair: Pair, group: str) -> None:
    """Until both brokers show the group's configs as the controller last wrote them (the same values from
    the same sources), then compare all of it: Apache Kafka answers an alteration once its controller has
    the change, before its broker applied it (ours waits)."""
    def values(answer) -> dict:
        return {c.name: (c.value, c.config_source) for c in answer.results[0].configs}

    def same_values() -> bool:
        ours, theirs = pair.ask(ApiKey.DESCRIBE_CONFIGS, 4, describe(GROUP, group))
        return values(ours) == values(theirs)
    wait_until(same_values, timeout=15, message=f"both brokers to show group {group}'s configs")
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(GROUP, group))


def test_describe_a_group_that_sets_nothing(pair):
    group = unique_topic("plain-group")
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(GROUP, group))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(GROUP, group, documentation=True), intended=OWN_WORDS)
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4,
              describe(GROUP, group, ["share.auto.offset.reset", "no.such.config"]))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 1, describe(GROUP, group, ["consumer.session.timeout.ms"]))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(GROUP, ""))  # Group name must not be empty


def test_a_groups_own_configs_described_and_changed(pair):
    group = unique_topic("configured-group")
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_group(
        group, ("share.auto.offset.reset", SET, "earliest"), ("consumer.session.timeout.ms", SET, "50000"),
        ("share.isolation.level", SET, "read_committed"), ("streams.num.warmup.replicas", SET, "3")))
    described(pair, group)  # an internal key the group sets is listed too
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(GROUP, group, documentation=True), intended=OWN_WORDS)
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_group(
        group, ("consumer.session.timeout.ms", DELETE, None), ("no.such.config", DELETE, None),
        ("streams.rack.aware.assignment.tags", SET, "zone,rack")))
    described(pair, group)
    for op in (APPEND, SUBTRACT):  # no group config is a LIST to Kafka's controller, not even this one
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_group(
            group, ("streams.rack.aware.assignment.tags", op, "zone")))
    described(pair, group)
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1,
              alter_group(group, ("share.delivery.count.limit", SET, "3"), validate_only=True))
    described(pair, group)


def test_refused_changes(pair):
    group = unique_topic("refused-group")
    refused = [("no.such.config", SET, "1"), ("consumer.session.timeout.ms", SET, "soon"),
               ("consumer.session.timeout.ms", SET, "0"), ("consumer.session.timeout.ms", SET, "30000"),
               ("share.record.lock.duration.ms", SET, "1000000"), ("share.auto.offset.reset", SET, "none"),
               ("share.auto.offset.reset", SET, "by_duration:-PT1H"), ("share.isolation.level", SET, "x"),
               ("share.renew.acknowledge.enable", SET, "yes"), ("streams.num.standby.replicas", SET, "3"),
               ("streams.assignor.name", SET, "greedy"), ("errors.deadletterqueue.topic.name", SET, "__dlq"),
               ("share.auto.offset.reset", APPEND, "earliest")]
    for op in refused:
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_group(group, op))
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1,
              alter_group("", ("share.auto.offset.reset", SET, "earliest")))
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_group(
        group, ("share.auto.offset.reset", SET, "earliest"), ("share.delivery.count.limit", SET, "50")))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(GROUP, group, ["share.auto.offset.reset"]))


def legacy_alter(group: str, configs: dict[str, str]) -> dict:
    return {"resources": [{"resource_type": GROUP, "resource_name": group, "configs": [
        {"name": k, "value": v} for k, v in configs.items()]}], "validate_only": False}


def test_alter_configs_replaces_a_groups_configs(pair):
    group = unique_topic("replaced-group")
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_group(
        group, ("share.auto.offset.reset", SET, "earliest"), ("share.delivery.count.limit", SET, "4")))
    described(pair, group)
    pair.same(ApiKey.ALTER_CONFIGS, 2, legacy_alter(group, {"share.delivery.count.limit": "6"}))
    described(pair, group)
    pair.same(ApiKey.ALTER_CONFIGS, 2, legacy_alter(group, {"no.such.config": "1"}))


def test_a_groups_configs_outlive_the_group(pair):
    """DeleteGroups deletes the group's offsets, not its configs (they are the controller's)."""
    script, topic, group = Script(pair), unique_topic("kept"), unique_topic("kept-group")
    create_topic(pair, topic)
    find_coordinator(pair, group, GROUP_KEY)
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_group(group, ("consumer.heartbeat.interval.ms", SET,
                                                                       "6000")))
    script.same(ApiKey.OFFSET_COMMIT, COMMIT, commit(group, -1, "", {topic: {0: 1}}))
    script.same(ApiKey.DELETE_GROUPS, 2, {"groups_names": [group]})
    described(pair, group)
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(GROUP, group, ["consumer.heartbeat.interval.ms"]))
