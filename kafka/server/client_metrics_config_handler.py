"""ClientMetricsConfigHandler: client-metrics subscriptions from the metadata log to the
ClientMetricsManager (Kafka's kafka.server.ClientMetricsConfigHandler, which its DynamicConfigPublisher
calls for CLIENT_METRICS resources).

Installed on the MetadataLoader as a publisher of its own: each committed image whose CLIENT_METRICS
ConfigRecords changed hands each changed subscription's whole set of configs to the manager (none left:
the subscription is gone); the first image hands them all, so a restarted broker knows every
subscription. Then `on_update` runs, so that an alteration asked of this broker is answered once the
broker serves it (AdminManager.metadata_updated).
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from kafka.server.client_metrics_configs import CLIENT_METRICS_RESOURCE, ClientMetricsConfigError
from kafka.server.client_metrics_manager import ClientMetricsManager

log = structlog.get_logger("kafka.server.ClientMetricsConfigHandler")


class ClientMetricsConfigHandler:
    def __init__(self, client_metrics_manager: ClientMetricsManager,
                 on_update: Callable[[], None] = lambda: None) -> None:
        self.client_metrics_manager = client_metrics_manager
        self.on_update = on_update
        self._first = True

    def name(self) -> str:
        return "ClientMetricsConfigHandler"

    def on_metadata_update(self, delta, image, manifest=None) -> None:
        if self._first:
            changed = {name for t, name in image.configs.resources if t == CLIENT_METRICS_RESOURCE}
        else:
            changed = {name for t, name in getattr(delta, "configs_delta", None) or ()
                       if t == CLIENT_METRICS_RESOURCE}
        self._first = False
        for name in sorted(changed):
            self.process_config_changes(name, image.configs.config_props(CLIENT_METRICS_RESOURCE, name))
        if changed:
            self.on_update()

    def process_config_changes(self, subscription_name: str, props: dict[str, str]) -> None:
        try:
            self.client_metrics_manager.update_subscription(subscription_name, props)
        except ClientMetricsConfigError as e:  # the controller checked them: not to happen
            log.error("cannot apply a client-metrics subscription", subscription=subscription_name,
                      configs=props, error=str(e))

    def close(self) -> None:
        pass

