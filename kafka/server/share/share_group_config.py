"""ShareGroupConfig: the broker's group.share.* keys (Kafka's
org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig, with the share-group keys of its
GroupCoordinatorConfig): Kafka 4.4's names, defaults and bounds, declared here and read by KafkaConfig.

Each setting a share group may override with a group config has a min and a max key beside it, the
bounds a group's own value is held to; the broker's value must lie between them too
(`share_group_config_problem`, Kafka's validate()). Kafka's internal
group.share.initialize.retry.interval.ms is not a key: GroupCoordinatorConfig keeps its default. The
dead-letter queue's broker keys (errors.deadletterqueue.*) are Kafka's GroupCoordinatorConfig's, kept here
beside the share keys they serve.
docs/share_groups.md and docs/configuration.md say what each does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafka.server.config_def import BOOLEAN, INT, STRING, ConfigKey, at_least, between


class ShareGroupConfig:
    """The group.share.* keys, declared as AbstractKafkaConfig declares its own (which inherits these,
    as Kafka's CONFIG_DEF merges ShareGroupConfig's): `config.group_share_delivery_count_limit`."""

    group_share_session_timeout_ms = ConfigKey(
        "group.share.session.timeout.ms", INT, "45000", at_least(1),
        "A silent share-group member is removed after this.")
    group_share_min_session_timeout_ms = ConfigKey(
        "group.share.min.session.timeout.ms", INT, "45000", at_least(1),
        "Smallest session timeout of share-group members.")
    group_share_max_session_timeout_ms = ConfigKey(
        "group.share.max.session.timeout.ms", INT, "60000", at_least(1),
        "Largest session timeout of share-group members.")
    group_share_heartbeat_interval_ms = ConfigKey(
        "group.share.heartbeat.interval.ms", INT, "5000", at_least(1),
        "Share-group members heartbeat this often.")
    group_share_min_heartbeat_interval_ms = ConfigKey(
        "group.share.min.heartbeat.interval.ms", INT, "5000", at_least(1),
        "Smallest heartbeat interval of share-group members.")
    group_share_max_heartbeat_interval_ms = ConfigKey(
        "group.share.max.heartbeat.interval.ms", INT, "15000", at_least(1),
        "Largest heartbeat interval of share-group members.")
    group_share_max_size = ConfigKey(
        "group.share.max.size", INT, "200", between(1, 1000), "Most members one share group may have.")
    group_share_assignment_interval_ms = ConfigKey(
        "group.share.assignment.interval.ms", INT, "1000", at_least(0),
        "A share group's assignment is recomputed at most this often.")
    group_share_min_assignment_interval_ms = ConfigKey(
        "group.share.min.assignment.interval.ms", INT, "0", at_least(0),
        "Smallest assignment interval of a share group.")
    group_share_max_assignment_interval_ms = ConfigKey(
        "group.share.max.assignment.interval.ms", INT, "15000", at_least(0),
        "Largest assignment interval of a share group.")
    group_share_record_lock_duration_ms = ConfigKey(
        "group.share.record.lock.duration.ms", INT, "30000", between(1000, 3600000),
        "How long a member holds a record it acquired.")
    group_share_min_record_lock_duration_ms = ConfigKey(
        "group.share.min.record.lock.duration.ms", INT, "15000", between(1000, 30000),
        "Smallest record lock duration.")
    group_share_max_record_lock_duration_ms = ConfigKey(
        "group.share.max.record.lock.duration.ms", INT, "60000", between(30000, 3600000),
        "Largest record lock duration.")
    group_share_delivery_count_limit = ConfigKey(
        "group.share.delivery.count.limit", INT, "5", between(2, 10),
        "Deliveries of a record before it is archived.")
    group_share_min_delivery_count_limit = ConfigKey(
        "group.share.min.delivery.count.limit", INT, "2", between(2, 5), "Smallest delivery count limit.")
    group_share_max_delivery_count_limit = ConfigKey(
        "group.share.max.delivery.count.limit", INT, "10", between(5, 25), "Largest delivery count limit.")
    group_share_partition_max_record_locks = ConfigKey(
        "group.share.partition.max.record.locks", INT, "2000", between(100, 10000),
        "Records in flight per share partition.")
    group_share_min_partition_max_record_locks = ConfigKey(
        "group.share.min.partition.max.record.locks", INT, "100", between(100, 2000),
        "Smallest in-flight limit.")
    group_share_max_partition_max_record_locks = ConfigKey(
        "group.share.max.partition.max.record.locks", INT, "4000", between(2000, 10000),
        "Largest in-flight limit.")
    group_share_max_share_sessions = ConfigKey(
        "group.share.max.share.sessions", INT, "2000", at_least(1),
        "Share sessions this broker holds at most.")
    # the dead-letter queue (KIP-1191; Kafka's GroupCoordinatorConfig keys), both dynamic
    errors_deadletterqueue_auto_create_topics_enable = ConfigKey(
        "errors.deadletterqueue.auto.create.topics.enable", BOOLEAN, "false", None,
        "Whether the broker creates a share group's missing DLQ topic.")
    errors_deadletterqueue_topic_name_prefix = ConfigKey(
        "errors.deadletterqueue.topic.name.prefix", STRING, "dlq.", None,
        "The prefix every DLQ topic's name must have; empty: any name.")
    share_fetch_purgatory_purge_interval_requests = ConfigKey(
        "share.fetch.purgatory.purge.interval.requests", INT, "1000", None,
        "Share fetches watched between two purges of the ShareFetch purgatory.")

# group.share.<name> must lie between group.share.min.<name> and group.share.max.<name>
BOUNDED = ("session.timeout.ms", "heartbeat.interval.ms", "assignment.interval.ms", "record.lock.duration.ms",
           "delivery.count.limit", "partition.max.record.locks")


def share_group_config_problem(values: Mapping[str, Any]) -> str | None:
    """What is wrong with the group.share.* values, as a ConfigError says it; None if nothing."""
    for name in BOUNDED:
        low, value, high = (values[f"group.share.{k}"] for k in (f"min.{name}", name, f"max.{name}"))
        if not low <= value <= high:
            return (f"configuration key 'group.share.{name}' ({value}) must lie between "
                    f"group.share.min.{name} ({low}) and group.share.max.{name} ({high})")
    if values["group.share.heartbeat.interval.ms"] >= values["group.share.session.timeout.ms"]:
        return ("configuration key 'group.share.heartbeat.interval.ms' must be less than "
                "group.share.session.timeout.ms")
    return None
