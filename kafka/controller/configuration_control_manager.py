"""ConfigurationControlManager: topic and broker configs
(Kafka's org.apache.kafka.controller.ConfigurationControlManager).

IncrementalAlterConfigs arrives here (from any broker, forwarded): each operation (SET, DELETE,
APPEND, SUBTRACT) is applied to the resource's current overrides, the result is checked as a whole
with the same rules a topic's LogConfig uses, and the change is written as ConfigRecords (a value of
None removes the override). A topic that does not exist has no configs to change: it is refused with
UNKNOWN_TOPIC_OR_PARTITION (Kafka's ConfigResourceExistenceChecker).
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.controller.controller_result import ControllerResult
from kafka.log.log_config import LogConfig
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import TOPIC_RESOURCE, ApiMessageAndVersion, MetadataRecordType, record

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


class ConfigError(Exception):
    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error = error


class ConfigurationControlManager:
    def __init__(self) -> None:
        self.configs: dict[tuple[int, str], dict[str, str]] = {}

    def reset(self) -> None:
        self.configs = {}

    def config_props(self, resource_type: int, name: str) -> dict[str, str]:
        return dict(self.configs.get((resource_type, name), {}))

    @staticmethod
    def validate_topic_configs(props: dict[str, str]) -> None:
        try:
            LogConfig.from_props(props)
        except ValueError as e:
            raise ConfigError(Errors.INVALID_CONFIG, str(e)) from None

    def topic_config_records(self, topic: str, props: dict[str, str]) -> list[ApiMessageAndVersion]:
        return [record(MetadataRecordType.CONFIG_RECORD, resource_type=TOPIC_RESOURCE, resource_name=topic,
                       name=k, value=v) for k, v in sorted(props.items())]

    def incremental_alter_configs(self, resources, topic_exists: Callable[[str], bool]) -> ControllerResult:
        """IncrementalAlterConfigs (Kafka's incrementalAlterConfigs): the ConfigRecords of every
        resource whose changes are valid, and each resource's entry of the response."""
        records, responses = [], []
        for resource in resources:
            resource_type, name = resource.resource_type, resource.resource_name
            entry = dict(resource_type=resource_type, resource_name=name)
            if resource_type == TOPIC_RESOURCE and not topic_exists(name):
                responses.append(dict(entry, error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                      error_message=f"topic '{name}' does not exist"))
                continue
            try:
                records += self.incremental_alter(resource_type, name, resource.configs)
            except ConfigError as e:
                responses.append(dict(entry, error_code=e.error, error_message=str(e)))
                continue
            responses.append(dict(entry, error_code=Errors.NONE, error_message=None))
        return ControllerResult(records, dict(throttle_time_ms=0, responses=responses))

    def incremental_alter(self, resource_type: int, name: str, ops) -> list[ApiMessageAndVersion]:
        current = self.config_props(resource_type, name)
        updated = dict(current)
        for op in ops:
            key, value, kind = op["name"], op.get("value"), op["config_operation"]
            if kind == SET:
                updated[key] = value
            elif kind == DELETE:
                updated.pop(key, None)
            elif kind in (APPEND, SUBTRACT):
                items = [v for v in (updated.get(key) or "").split(",") if v]
                given = [v for v in (value or "").split(",") if v]
                items = items + [v for v in given if v not in items] if kind == APPEND else \
                    [v for v in items if v not in given]
                updated[key] = ",".join(items)
            else:
                raise ConfigError(Errors.INVALID_REQUEST, f"unknown config operation {kind}")
        if resource_type == TOPIC_RESOURCE:
            self.validate_topic_configs(updated)
        changed = {k: v for k, v in updated.items() if current.get(k) != v}
        removed = [k for k in current if k not in updated]
        return [record(MetadataRecordType.CONFIG_RECORD, resource_type=resource_type, resource_name=name,
                       name=k, value=v) for k, v in sorted(changed.items())] + \
               [record(MetadataRecordType.CONFIG_RECORD, resource_type=resource_type, resource_name=name,
                       name=k, value=None) for k in sorted(removed)]

    def replay_config(self, r) -> None:
        key = (r.resource_type, r.resource_name)
        props = self.configs.setdefault(key, {})
        if r.value is None:
            props.pop(r.name, None)
        else:
            props[r.name] = r.value
        if not props:
            del self.configs[key]

    def remove_resource(self, resource_type: int, name: str) -> None:
        self.configs.pop((resource_type, name), None)
