"""GroupConfigManager: every group's own configs on this broker (Kafka's
org.apache.kafka.coordinator.group.GroupConfigManager).

The controller stores a group's configs as ConfigRecords (resource type GROUP); the broker's metadata
publisher hands each change here (`update_group_config`, Kafka's DynamicConfigPublisher ->
GroupConfigHandler -> GroupCoordinator.updateGroupConfig). A group's configs are held to the broker's
bounds as they are now (GroupConfig.evaluate caps a value the bounds no longer allow) and kept parsed.

Who asks (`group_config(group_id)`, None for a group that sets nothing, or `group_props`, the keys it
sets): the group coordinator for a consumer or share group's session timeout, heartbeat and assignment
intervals, and the share partitions (through the ShareGroupConfigProvider) for share.auto.offset.reset,
share.record.lock.duration.ms and the other share.* keys. A group's configs live as long as the
controller keeps them: deleting the group leaves them, as in Kafka, and a group that does not exist yet
may have them.
"""

from __future__ import annotations

from collections.abc import Mapping

import structlog

from kafka.coordinator.group.group_config import GroupConfig, evaluate
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig

log = structlog.get_logger("kafka.coordinator.group.GroupConfigManager")


class GroupConfigManager:
    def __init__(self, config: GroupCoordinatorConfig) -> None:
        self.config = config  # the broker's bounds (Kafka passes GroupCoordinatorConfig and ShareGroupConfig)
        # written by the publisher's thread, read by request and coordinator threads (Kafka's
        # ConcurrentHashMap)
        self._configs: dict[str, GroupConfig] = {}

    def update_group_config(self, group_id: str, props: Mapping[str, str]) -> None:
        """The group's configs are now `props` (all of them; empty: it has none left)."""
        if not group_id:
            raise ValueError("Group name can't be empty.")  # Kafka's InvalidRequestException
        if not props:
            self._configs.pop(group_id, None)
            return
        evaluated = evaluate(props, group_id, self.config, log.warning)
        self._configs[group_id] = GroupConfig(evaluated)

    def group_config(self, group_id: str) -> GroupConfig | None:
        return self._configs.get(group_id)

    def group_props(self, group_id: str) -> Mapping[str, str]:
        """The keys the group sets, as held to the bounds ({} for none): what the share and consumer group
        managers and the ShareGroupConfigProvider read by name."""
        config = self._configs.get(group_id)
        return config.originals if config is not None else {}

    def group_ids(self) -> list[str]:
        return list(self._configs)

    def close(self) -> None:
        self._configs.clear()
