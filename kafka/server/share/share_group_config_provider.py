"""ShareGroupConfigProvider: a share group's own settings, or the broker's (Kafka's
org.apache.kafka.coordinator.group.modern.share.ShareGroupConfigProvider).

A share group may override the broker's group.share.* defaults with group configs
(IncrementalAlterConfigs on a GROUP resource): share.record.lock.duration.ms,
share.delivery.count.limit, share.partition.max.record.locks, share.auto.offset.reset (latest,
earliest or by_duration:<ISO-8601 duration>), share.isolation.level and share.renew.acknowledge.enable.
`group_configs(group_id)` is whatever holds the groups' dynamic configs (the lead wires the group
config manager's lookup); it answers a dict of the keys set, {} for a group with none.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kafka.utils.time import Time

READ_UNCOMMITTED, READ_COMMITTED = 0, 1
_DURATION = re.compile(r"^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$")


@dataclass(frozen=True)
class ShareGroupAutoOffsetResetStrategy:
    """Kafka's ShareGroupAutoOffsetResetStrategy: 'latest', 'earliest' or 'by_duration' (with its
    timestamp)."""

    type: str
    duration_ms: int = 0

    def timestamp(self, time: Time) -> int:
        return time.milliseconds() - self.duration_ms

    @classmethod
    def parse(cls, value: str) -> ShareGroupAutoOffsetResetStrategy:
        value = value.strip().lower()
        if value in ("latest", "earliest"):
            return cls(value)
        if value.startswith("by_duration:"):
            match = _DURATION.match(value.split(":", 1)[1].upper())
            if match and any(match.groups()):
                days, hours, minutes, seconds = (float(g or 0) for g in match.groups())
                return cls("by_duration", int((((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000))
        raise ValueError(f"Invalid value `{value}` for configuration share.auto.offset.reset")


class ShareGroupConfigProvider:
    def __init__(self, group_configs: Callable[[str], Mapping[str, str]] | None = None) -> None:
        self._group_configs = group_configs or (lambda group_id: {})

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
        return self._group_configs(group_id).get("share.renew.acknowledge.enable", "true").lower() == "true"

    def auto_offset_reset(self, group_id: str) -> ShareGroupAutoOffsetResetStrategy:
        value = self._group_configs(group_id).get("share.auto.offset.reset", "latest")
        return ShareGroupAutoOffsetResetStrategy.parse(value)

    def isolation_level(self, group_id: str) -> int:
        """share.isolation.level as a Fetch isolation level: 0 read_uncommitted (the default),
        1 read_committed."""
        value = self._group_configs(group_id).get("share.isolation.level", "read_uncommitted")
        return READ_COMMITTED if value.lower() == "read_committed" else READ_UNCOMMITTED
