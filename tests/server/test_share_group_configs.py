"""The group.share.* broker configs (KIP-932): Kafka 4.4's defaults, each value held between its min and max
keys and by its own bounds, and what the group coordinator reads of them."""

from __future__ import annotations

import pytest

from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.server.config_def import ConfigError
from kafka.server.kafka_config import KafkaConfig


def test_kafka_4_4s_defaults_reach_the_group_coordinator():
    config = KafkaConfig({})
    assert (config.group_share_record_lock_duration_ms, config.group_share_delivery_count_limit,
            config.group_share_partition_max_record_locks, config.group_share_max_share_sessions) == \
        (30000, 5, 2000, 2000)
    groups = GroupCoordinatorConfig.from_kafka_config(
        KafkaConfig({"group.share.heartbeat.interval.ms": "6000"}))
    assert (groups.share_group_session_timeout_ms, groups.share_group_heartbeat_interval_ms,
            groups.share_group_max_size, groups.share_group_assignment_interval_ms) == \
        (45000, 6000, 200, 1000)


@pytest.mark.parametrize("props, problem", [
    ({"group.share.record.lock.duration.ms": "1000"},
     "between group.share.min.record.lock.duration.ms (15000)"),
    ({"group.share.delivery.count.limit": "11"},
     "'group.share.delivery.count.limit': must be between 2 and 10"),
    ({"group.share.delivery.count.limit": "6", "group.share.max.delivery.count.limit": "5"},
     "between group.share.min.delivery.count.limit (2) and group.share.max.delivery.count.limit (5)"),
    ({"group.share.heartbeat.interval.ms": "20000"}, "between group.share.min.heartbeat.interval.ms (5000)"),
    ({"group.share.min.session.timeout.ms": "5000", "group.share.session.timeout.ms": "5000"},
     "'group.share.heartbeat.interval.ms' must be less than group.share.session.timeout.ms"),
    ({"group.share.max.size": "1001"}, "must be between 1 and 1000"),
])
def test_a_value_outside_its_bounds_stops_start_up(props, problem):
    with pytest.raises(ConfigError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        KafkaConfig(props)


def test_the_bounds_move_with_their_min_and_max_keys():
    config = KafkaConfig({"group.share.record.lock.duration.ms": "1000",
                          "group.share.min.record.lock.duration.ms": "1000"})
    assert config.group_share_record_lock_duration_ms == 1000
