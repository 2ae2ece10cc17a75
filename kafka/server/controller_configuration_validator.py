"""ControllerConfigurationValidator: what the controller checks of a resource's configs before it writes
them (Kafka's kafka.server.ControllerConfigurationValidator).

The ConfigurationControlManager applies an IncrementalAlterConfigs to a resource's current configs and
hands the whole result here: a topic's must make a LogConfig (the controller's own ConfigurationValidator
checks that), a client-metrics subscription's ClientMetricsConfigs.validate (KIP-714), a group's must pass
GroupConfig.validate against this node's group.consumer.*,
group.share.* and group.streams.* bounds. A group needs no other existence: configs of a group nobody has
created yet are allowed, as in Kafka. The validator lives in the server because GroupConfig is the group
coordinator's, a layer the controller does not import.
"""

from __future__ import annotations

from kafka.controller.configuration_control_manager import ConfigError, ConfigurationValidator
from kafka.coordinator.group import group_config
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.log.log_config import LogConfig
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import GROUP_RESOURCE
from kafka.server import client_metrics_configs


class ControllerConfigurationValidator(ConfigurationValidator):
    def __init__(self, group_coordinator_config: GroupCoordinatorConfig,
                 default_log_config: LogConfig | None = None,
                 remote_storage_system_enable: bool = False) -> None:
        super().__init__(default_log_config, remote_storage_system_enable)
        self.group_coordinator_config = group_coordinator_config

    def validate(self, resource_type: int, name: str, configs: dict[str, str],
                 existing: dict[str, str] | None = None) -> None:
        if resource_type == GROUP_RESOURCE:
            self.validate_group(name, configs)
        elif resource_type == client_metrics_configs.CLIENT_METRICS_RESOURCE:
            try:
                client_metrics_configs.validate(name, configs)
            except client_metrics_configs.ClientMetricsConfigError as e:
                raise ConfigError(e.error, str(e)) from None
        else:
            super().validate(resource_type, name, configs, existing)

    def validate_group(self, name: str, configs: dict[str, str]) -> None:
        if not name:
            raise ConfigError(Errors.INVALID_REQUEST, "Default group resources are not allowed.")
        try:
            group_config.validate(configs, self.group_coordinator_config)
        except group_config.InvalidConfigurationError as e:
            raise ConfigError(Errors.INVALID_CONFIG, str(e)) from None
