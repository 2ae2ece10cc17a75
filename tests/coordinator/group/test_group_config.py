"""Group configs (KIP-848/932): GroupConfig's keys and checks as Kafka 4.4's GroupConfig has them (the
controller's validate: names, types, validators, the broker's bounds, with Kafka's messages), its getters
(a key the group does not set is None), evaluate's capping, the GroupConfigManager, and a consumer and a
share group taking their own session timeout and heartbeat interval from it."""

from __future__ import annotations

import dataclasses

import pytest

from kafka.coordinator.group import group_config
from kafka.coordinator.group.group_config import GroupConfig, InvalidConfigurationError
from kafka.coordinator.group.group_config_manager import GroupConfigManager
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.coordinator.group.share_group_auto_offset_reset_strategy import ShareGroupAutoOffsetResetStrategy
from tests.coordinator.group.shard_harness import Shard
from tests.coordinator.group.test_consumer_group_manager import join

pytestmark = pytest.mark.fast

BROKER = GroupCoordinatorConfig()  # Kafka's defaults: consumer sessions 45 to 60 s, heartbeats 5 to 15 s, ...


def refusal(props: dict[str, str], config: GroupCoordinatorConfig = BROKER) -> str | None:
    try:
        group_config.validate(props, config)
    except InvalidConfigurationError as e:
        return str(e)
    return None


def test_the_keys_and_which_are_internal():
    assert len(group_config.config_names()) == 27
    internal = {name for name in group_config.config_names() if group_config.is_internal(name)}
    assert internal == {"consumer.assignor.offload.enable", "share.assignor.offload.enable",
                        "streams.assignor.offload.enable", "streams.task.offset.interval.ms",
                        "streams.num.warmup.replicas", "streams.acceptable.recovery.lag"}
    assert group_config.broker_synonym("share.record.lock.duration.ms") == \
        "group.share.record.lock.duration.ms"
    assert group_config.broker_synonym("streams.assignor.name") == "group.streams.assignors"
    assert group_config.broker_synonym("share.auto.offset.reset") is None
    assert group_config.config_type("share.partition.max.record.locks") == "INT"
    assert group_config.config_type("no.such.key") is None


@pytest.mark.parametrize("props, message", [
    ({"share.auto.offset.reset": "earliest"}, None),
    ({"share.auto.offset.reset": "by_duration:PT1H30M"}, None),
    ({"share.isolation.level": "read_committed", "share.record.lock.duration.ms": "20000"}, None),
    ({"streams.num.warmup.replicas": "3"}, None),  # internal keys may be set
    ({"no.such.config": "1"}, "Unknown group config name: no.such.config"),
    ({"consumer.session.timeout.ms": "soon"},
     "Invalid value soon for configuration consumer.session.timeout.ms: Not a number of type INT"),
    ({"share.delivery.count.limit": "1"},
     "Invalid value 1 for configuration share.delivery.count.limit: Value must be at least 2"),
    ({"share.isolation.level": "serializable"}, "Invalid value serializable for configuration "
     "share.isolation.level: String must be one of: read_committed, read_uncommitted"),
    ({"share.auto.offset.reset": "none"}, "Invalid value none for configuration share.auto.offset.reset: "
     "Invalid value `none` for configuration share.auto.offset.reset. The value must be either 'earliest', "
     "'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'."),
    ({"share.renew.acknowledge.enable": "yes"}, "Invalid value yes for configuration "
     "share.renew.acknowledge.enable: Expected value to be either true or false"),
    ({"share.record.lock.duration.ms": "5000"},
     "share.record.lock.duration.ms must be in the range 15000 to 60000 inclusive."),
    ({"consumer.session.timeout.ms": "30000"},
     "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive."),
    ({"streams.num.standby.replicas": "3"}, "streams.num.standby.replicas must be less than or equal to 2"),
    ({"streams.task.offset.interval.ms": "1000"},
     "streams.task.offset.interval.ms must be greater than or equal to 15000"),
    ({"streams.assignor.name": "greedy"}, "streams.assignor.name 'greedy' is not a registered task "
     "assignor. Registered assignors are: [sticky]."),
    ({"streams.rack.aware.assignment.tags": "zone, rack,zone"},
     "streams.rack.aware.assignment.tags must not contain duplicate tag keys."),
    ({"errors.deadletterqueue.topic.name": "__dlq"},
     "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'"),
])
def test_validate_answers_as_kafka(props, message):
    assert refusal(props) == message


def test_the_session_must_outlast_the_heartbeat_with_the_brokers_value_for_the_key_left_out():
    wide = dataclasses.replace(BROKER, share_group_min_session_timeout_ms=1000,
                               share_group_min_heartbeat_interval_ms=1000)
    assert refusal({"share.session.timeout.ms": "5000"}, wide) == \
        "share.session.timeout.ms must be greater than share.heartbeat.interval.ms"  # the broker's 5000
    assert refusal({"share.session.timeout.ms": "5000", "share.heartbeat.interval.ms": "2000"}, wide) is None


def test_a_group_config_answers_only_what_the_group_sets():
    config = GroupConfig({"share.auto.offset.reset": "by_duration:P1D",
                          "share.isolation.level": "read_committed", "consumer.session.timeout.ms": "50000"})
    assert config.share_auto_offset_reset == ShareGroupAutoOffsetResetStrategy("by_duration", 86_400_000)
    assert config.share_isolation_level == "read_committed"
    assert config.consumer_session_timeout_ms == 50000
    assert config.share_record_lock_duration_ms is None and config.consumer_heartbeat_interval_ms is None
    assert config.values["share.record.lock.duration.ms"] == 30000, "every key has a value: its default"
    described = GroupConfig.from_props({"share.record.lock.duration.ms": 45000}, {})
    assert described.non_internal_values()["share.record.lock.duration.ms"] == 45000
    assert "streams.num.warmup.replicas" not in described.non_internal_values()


def test_evaluate_caps_a_value_the_bounds_no_longer_allow():
    narrower = dataclasses.replace(BROKER, share_group_max_record_lock_duration_ms=40_000)
    warnings = []
    evaluated = group_config.evaluate({"share.record.lock.duration.ms": "50000", "share.isolation.level":
                                       "read_committed"}, "g", narrower, warnings.append)
    assert evaluated == {"share.record.lock.duration.ms": "40000", "share.isolation.level": "read_committed"}
    assert warnings == ["The group config 'share.record.lock.duration.ms' for group 'g' has value 50000 "
                        "which exceeds the broker's allowed maximum 40000. The effective value will be "
                        "capped to 40000."]


def test_the_group_config_manager_keeps_each_groups_configs_held_to_the_bounds():
    manager = GroupConfigManager(dataclasses.replace(BROKER, share_group_max_delivery_count_limit=6))
    assert manager.group_config("g") is None and manager.group_props("g") == {}
    manager.update_group_config("g", {"share.delivery.count.limit": "8",
                                      "share.auto.offset.reset": "earliest"})
    assert manager.group_config("g").share_delivery_count_limit == 6
    assert manager.group_props("g") == {"share.delivery.count.limit": "6",
                                        "share.auto.offset.reset": "earliest"}
    assert manager.group_ids() == ["g"]
    manager.update_group_config("g", {})
    assert manager.group_config("g") is None and manager.group_ids() == []
    with pytest.raises(ValueError, match="Group name can't be empty."):
        manager.update_group_config("", {"share.auto.offset.reset": "earliest"})


def test_a_consumer_group_takes_its_own_session_timeout_and_heartbeat_interval():
    shard = Shard()
    manager = GroupConfigManager(BROKER)
    manager.update_group_config("g", {"consumer.session.timeout.ms": "55000",
                                      "consumer.heartbeat.interval.ms": "6000"})
    shard.consumer_groups.group_configs = manager.group_props
    assert join(shard, "a")["heartbeat_interval_ms"] == 6000
    assert join(shard, "b", group="other")["heartbeat_interval_ms"] == 5000, "the broker's, for the others"
    shard.time.sleep(50_000)
    shard.fire_timers()
    assert set(shard.consumer_groups.consumer_group("g").members) == {"a"}, "45 s is the broker's, not g's"
    assert not shard.consumer_groups.consumer_group("other").members
    shard.time.sleep(5_000)
    shard.fire_timers()
    assert not shard.consumer_groups.consumer_group("g").members


@pytest.mark.parametrize("props, problem", [
    ({"group.consumer.session.timeout.ms": "30000"},
     "group.consumer.session.timeout.ms must be greater than or equal to "
     "group.consumer.min.session.timeout.ms"),
    ({"group.consumer.max.heartbeat.interval.ms": "4000"},
     "group.consumer.max.heartbeat.interval.ms must be greater than or equal to "
     "group.consumer.min.heartbeat.interval.ms"),
    ({"group.streams.assignment.interval.ms": "20000"},
     "group.streams.assignment.interval.ms must be less than or equal to "
     "group.streams.max.assignment.interval.ms"),
    ({"group.streams.num.standby.replicas": "3"},
     "group.streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas"),
])
def test_the_brokers_own_values_lie_between_its_bounds(props, problem):
    """Kafka's GroupCoordinatorConfig requires it of server.properties, in these words."""
    from kafka.server.config_def import ConfigError
    from kafka.server.kafka_config import KafkaConfig

    with pytest.raises(ConfigError, match=problem):
        KafkaConfig(props)
    assert KafkaConfig({}).extract_group_config_map()["streams.assignor.name"] == "sticky"
