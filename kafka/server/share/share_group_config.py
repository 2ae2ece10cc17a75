"""ShareGroupConfig: the broker's group.share.* keys (Kafka's
org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig, with the share-group keys of its
GroupCoordinatorConfig): Kafka 4.4's names, defaults and bounds, declared here and read by KafkaConfig.

Each setting a share group may override with a group config has a min and a max key beside it, the
bounds a group's own value is held to; the broker's value must lie between them too
(`share_group_config_problem`, Kafka's validate()). Kafka's internal
group.share.initialize.retry.interval.ms is not a key: GroupCoordinatorConfig keeps its default.
docs/share_groups.md and docs/configuration.md say what each does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafka.server.config_def import INT, ConfigKey, at_least, between

SHARE_GROUP_CONFIG_KEYS: list[ConfigKey] = [
    *(ConfigKey(f"group.share.{name}", INT, default, doc, check) for name, default, doc, check in (
        ("session.timeout.ms", "45000", "A silent share-group member is removed after this.", at_least(1)),
        ("min.session.timeout.ms", "45000", "Smallest session timeout of share-group members.", at_least(1)),
        ("max.session.timeout.ms", "60000", "Largest session timeout of share-group members.", at_least(1)),
        ("heartbeat.interval.ms", "5000", "Share-group members heartbeat this often.", at_least(1)),
        ("min.heartbeat.interval.ms", "5000", "Smallest heartbeat interval of share-group members.",
         at_least(1)),
        ("max.heartbeat.interval.ms", "15000", "Largest heartbeat interval of share-group members.",
         at_least(1)),
        ("max.size", "200", "Most members one share group may have.", between(1, 1000)),
        ("assignment.interval.ms", "1000", "A share group's assignment is recomputed at most this often.",
         at_least(0)),
        ("min.assignment.interval.ms", "0", "Smallest assignment interval of a share group.", at_least(0)),
        ("max.assignment.interval.ms", "15000", "Largest assignment interval of a share group.", at_least(0)),
        ("record.lock.duration.ms", "30000", "How long a member holds a record it acquired.",
         between(1000, 3600000)),
        ("min.record.lock.duration.ms", "15000", "Smallest record lock duration.", between(1000, 30000)),
        ("max.record.lock.duration.ms", "60000", "Largest record lock duration.", between(30000, 3600000)),
        ("delivery.count.limit", "5", "Deliveries of a record before it is archived.", between(2, 10)),
        ("min.delivery.count.limit", "2", "Smallest delivery count limit.", between(2, 5)),
        ("max.delivery.count.limit", "10", "Largest delivery count limit.", between(5, 25)),
        ("partition.max.record.locks", "2000", "Records in flight per share partition.", between(100, 10000)),
        ("min.partition.max.record.locks", "100", "Smallest in-flight limit.", between(100, 2000)),
        ("max.partition.max.record.locks", "4000", "Largest in-flight limit.", between(2000, 10000)),
        ("max.share.sessions", "2000", "Share sessions this broker holds at most.", at_least(1)))),
    ConfigKey("share.fetch.purgatory.purge.interval.requests", INT, "1000",
              "Share fetches watched between two purges of the ShareFetch purgatory."),
]
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
