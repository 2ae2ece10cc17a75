"""ShareGroupConfigProvider: a share group's own settings, or the broker's (Kafka's
org.apache.kafka.coordinator.group.modern.share.ShareGroupConfigProvider).

A share group may override the broker's group.share.* defaults with group configs (IncrementalAlterConfigs
on a GROUP resource, `kafka-configs --entity-type groups`): share.record.lock.duration.ms,
share.delivery.count.limit, share.partition.max.record.locks, share.auto.offset.reset (latest, earliest or
by_duration:<ISO-8601 duration>), share.isolation.level, share.renew.acknowledge.enable and the dead-letter
queue's errors.deadletterqueue.topic.name and errors.deadletterqueue.copy.record.enable. The share
partitions and ShareFetch ask here, by group id, each time they need one: a change applies from the next
fetch or the next share partition on.

`group_configs(group_id)` answers the keys a group sets, {} for a group with none: on a broker, the
GroupConfigManager that the metadata publisher keeps up to date (`for_manager`), as Kafka's provider
asks its GroupConfigManager.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kafka.coordinator.group.group_config_manager import GroupConfigManager
from kafka.coordinator.group.share_group_auto_offset_reset_strategy import ShareGroupAutoOffsetResetStrategy

READ_UNCOMMITTED, READ_COMMITTED = 0, 1


class ShareGroupConfigProvider:
    def __init__(self, group_configs: Callable[[str], Mapping[str, str]] | None = None) -> None:
        self._group_configs = group_configs or (lambda group_id: {})

    @classmethod
    def for_manager(cls, manager: GroupConfigManager) -> ShareGroupConfigProvider:
        return cls(manager.group_props)

    def _int(self, group_id: str, key: str, default: int) -> int:
        value = self._group_configs(group_id).get(key)
        return int(value) if value is not None else default

    def record_lock_duration_ms_or_default(self, group_id: str, default: int) -> int:
        return self._int(group_id, "share.record.lock.duration.ms", default)

    def delivery_count_limit_or_default(self, group_id: str, default: int) -> int:
        return self._int(group_id, "share.delivery.count.limit", default)

    def partition_max_record_locks_or_default(self, group_id: str, default: int) -> int:
        return self._int(group_id, "share.partition.max.record.locks", default)

    def is_renew_acknowledge_enabled(self, group_id: str) -> bool:
        value = self._group_configs(group_id).get("share.renew.acknowledge.enable", "true")
        return value.strip().lower() == "true"

    def auto_offset_reset(self, group_id: str) -> ShareGroupAutoOffsetResetStrategy:
        value = self._group_configs(group_id).get("share.auto.offset.reset", "latest")
        return ShareGroupAutoOffsetResetStrategy.parse(value)

    def isolation_level(self, group_id: str) -> int:
        """share.isolation.level as a Fetch isolation level: 0 read_uncommitted (the default),
        1 read_committed."""
        value = self._group_configs(group_id).get("share.isolation.level", "read_uncommitted")
        return READ_COMMITTED if value.strip().lower() == "read_committed" else READ_UNCOMMITTED

    def errors_dlq_topic_name(self, group_id: str) -> str | None:
        """The group's dead-letter queue topic (Kafka's errorsDLQTopicName); None for none (empty)."""
        return self._group_configs(group_id).get("errors.deadletterqueue.topic.name") or None

    def is_dlq_copy_record_enabled(self, group_id: str) -> bool:
        value = self._group_configs(group_id).get("errors.deadletterqueue.copy.record.enable", "false")
        return value.strip().lower() == "true"
