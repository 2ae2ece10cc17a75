"""ConfigurationControlManager: topic, broker and group configs
(Kafka's org.apache.kafka.controller.ConfigurationControlManager).

IncrementalAlterConfigs arrives here (from any broker, forwarded): each operation (SET, DELETE,
APPEND, SUBTRACT) is applied to the resource's current overrides, the result is checked as a whole by
the ConfigurationValidator (a topic's with the rules its LogConfig uses, a group's with GroupConfig's; a
broker's values were checked by the broker that forwarded them, against its DynamicBrokerConfig), and the
change is written as ConfigRecords (a value of None removes the override). A BROKER resource is one
broker's dynamic configs ("<id>") or the cluster-wide default (""). A topic that does
not exist has no configs to change: it is refused with UNKNOWN_TOPIC_OR_PARTITION (Kafka's
ConfigResourceExistenceChecker).
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.controller.controller_result import ControllerResult
from kafka.log import log_config
from kafka.log.log_config import LogConfig
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import (
    BROKER_RESOURCE,
    TOPIC_RESOURCE,
    ApiMessageAndVersion,
    MetadataRecordType,
    record,
)

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
MAX_CONFIG_VALUE_SIZE = 32767  # Kafka's bound on a ConfigRecord's value (its length, though it says bytes)


class ConfigError(Exception):
    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error = error


def apply_config_ops(current: dict[str, str], ops, lists: bool = True) -> dict[str, str]:
    """A resource's configs after IncrementalAlterConfigs' operations (each with name, config_operation
    and value), in order; ConfigError for an operation that does not exist, or APPEND and SUBTRACT where
    no key is a list (`lists` False: a group's, which Kafka's KafkaConfigSchema does not know)."""
    updated = dict(current)
    for op in ops:
        key, value, kind = op["name"], op.get("value"), op["config_operation"]
        if kind == SET:
            updated[key] = value
        elif kind == DELETE:
            updated.pop(key, None)
        elif kind in (APPEND, SUBTRACT) and not lists:
            raise ConfigError(Errors.INVALID_CONFIG, f"Can't {'APPEND' if kind == APPEND else 'SUBTRACT'} to "
                              f"key {key} because its type is not LIST.")
        elif kind in (APPEND, SUBTRACT):
            items = [v for v in (updated.get(key) or "").split(",") if v]
            given = [v for v in (value or "").split(",") if v]
            items = items + [v for v in given if v not in items] if kind == APPEND else \
                [v for v in items if v not in given]
            updated[key] = ",".join(items)
        else:
            raise ConfigError(Errors.INVALID_REQUEST, f"unknown config operation {kind}")
    return updated


class ConfigurationValidator:
    """Kafka's ConfigurationValidator: a resource's whole new set of configs, checked before it is written
    (ConfigError if it may not be). This one knows topics (Kafka's LogConfig.validate, over this node's log.*
    defaults and its remote.log.storage.system.enable); the server gives the controller Kafka's
    ControllerConfigurationValidator, which knows groups as well (their rules are the group coordinator's,
    a layer above the controller)."""

    def __init__(self, default_log_config: LogConfig | None = None,
                 remote_storage_system_enable: bool = False) -> None:
        self.default_log_config = default_log_config
        self.remote_storage_system_enable = remote_storage_system_enable

    def validate(self, resource_type: int, name: str, configs: dict[str, str],
                 existing: dict[str, str] | None = None) -> None:
        if resource_type == TOPIC_RESOURCE:
            try:
                log_config.validate(existing or {}, configs, self.default_log_config,
                                    self.remote_storage_system_enable)
            except ValueError as e:
                raise ConfigError(Errors.INVALID_CONFIG, str(e)) from None
        elif resource_type == BROKER_RESOURCE and name and not name.isdigit():
            # the values were checked by the broker that forwarded them (its DynamicBrokerConfig, as
            # Kafka's ConfigAdminManager does): here only that a broker resource is a node id, or ""
            raise ConfigError(Errors.INVALID_REQUEST, f"Node id must be an integer, but it is: {name}")


class ConfigurationControlManager:
    def __init__(self, validator: ConfigurationValidator | None = None) -> None:
        self.configs: dict[tuple[int, str], dict[str, str]] = {}
        self.validator = validator or ConfigurationValidator()

    def reset(self) -> None:
        self.configs = {}

    def config_props(self, resource_type: int, name: str) -> dict[str, str]:
        return dict(self.configs.get((resource_type, name), {}))

    def validate_topic_configs(self, props: dict[str, str]) -> None:
        """A new topic's configs (CreateTopics), checked by the validator."""
        self.validator.validate(TOPIC_RESOURCE, "", props)

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
        updated = apply_config_ops(current, ops, lists=resource_type in (TOPIC_RESOURCE, BROKER_RESOURCE))
        for key, value in updated.items():
            if value is not None and len(value) > MAX_CONFIG_VALUE_SIZE and current.get(key) != value:
                raise ConfigError(Errors.INVALID_CONFIG, "The configuration value cannot be added because it "
                                  f"exceeds the maximum value size of {MAX_CONFIG_VALUE_SIZE} bytes.")
        self.validator.validate(resource_type, name, updated, current)
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
