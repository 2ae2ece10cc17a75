"""StreamsGroupConfigs: the broker's group.streams.* keys (the streams-group part of Kafka's
org.apache.kafka.coordinator.group.GroupCoordinatorConfig), with Kafka 4.4's names, defaults and bounds.

The streams groups' settings (KIP-1071, kafka/coordinator/group/streams/): sessions, heartbeats, the
group's size, its standby replicas, the initial rebalance delay and the assignment interval, the task
assignors. A group may set its own streams.* group configs (IncrementalAlterConfigs on a GROUP resource,
group_config.py); these keys are their defaults (DescribeConfigs' synonyms) and min and max bounds.
AbstractKafkaConfig inherits them, as it does ShareGroupConfig's group.share.* keys; Kafka's internal
group.streams.* keys are not keys here (GroupCoordinatorConfig keeps their defaults), nor is
group.streams.topology.description.plugin.class (KIP-1331's plugin is not built).
"""

from __future__ import annotations

from kafka.server.config_def import INT, LIST, ConfigKey, at_least


class StreamsGroupConfigs:
    """The group.streams.* keys, declared as AbstractKafkaConfig declares its own:
    `config.group_streams_session_timeout_ms`."""

    group_streams_session_timeout_ms = ConfigKey(
        "group.streams.session.timeout.ms", INT, "45000", at_least(1),
        "Default of a group's streams.session.timeout.ms.")
    group_streams_min_session_timeout_ms = ConfigKey(
        "group.streams.min.session.timeout.ms", INT, "45000", at_least(1),
        "Smallest streams session timeout.")
    group_streams_max_session_timeout_ms = ConfigKey(
        "group.streams.max.session.timeout.ms", INT, "60000", at_least(1),
        "Largest streams session timeout.")
    group_streams_heartbeat_interval_ms = ConfigKey(
        "group.streams.heartbeat.interval.ms", INT, "5000", at_least(1),
        "Default of a group's streams.heartbeat.interval.ms.")
    group_streams_min_heartbeat_interval_ms = ConfigKey(
        "group.streams.min.heartbeat.interval.ms", INT, "5000", at_least(1),
        "Smallest streams heartbeat interval.")
    group_streams_max_heartbeat_interval_ms = ConfigKey(
        "group.streams.max.heartbeat.interval.ms", INT, "15000", at_least(1),
        "Largest streams heartbeat interval.")
    group_streams_max_size = ConfigKey(
        "group.streams.max.size", INT, "2147483647", at_least(1), "Most members a streams group may have.")
    group_streams_num_standby_replicas = ConfigKey(
        "group.streams.num.standby.replicas", INT, "0", at_least(0),
        "Default of a group's streams.num.standby.replicas.")
    group_streams_max_standby_replicas = ConfigKey(
        "group.streams.max.standby.replicas", INT, "2", at_least(0), "Most standby replicas a group may ask.")
    group_streams_initial_rebalance_delay_ms = ConfigKey(
        "group.streams.initial.rebalance.delay.ms", INT, "3000", at_least(0),
        "Default of a group's streams.initial.rebalance.delay.ms.")
    group_streams_assignment_interval_ms = ConfigKey(
        "group.streams.assignment.interval.ms", INT, "1000", at_least(0),
        "Default of a group's streams.assignment.interval.ms.")
    group_streams_min_assignment_interval_ms = ConfigKey(
        "group.streams.min.assignment.interval.ms", INT, "0", at_least(0),
        "Smallest streams assignment interval.")
    group_streams_max_assignment_interval_ms = ConfigKey(
        "group.streams.max.assignment.interval.ms", INT, "15000", at_least(0),
        "Largest streams assignment interval.")
    group_streams_assignors = ConfigKey(
        "group.streams.assignors", LIST, "sticky", None,
        "Task assignors a streams group may name (streams.assignor.name); the first is the default.")
    group_streams_rack_aware_assignment_tags = ConfigKey(
        "group.streams.rack.aware.assignment.tags", LIST, "", None,
        "Default of a group's streams.rack.aware.assignment.tags.")
