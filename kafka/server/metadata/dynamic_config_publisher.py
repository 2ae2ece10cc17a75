"""DynamicConfigPublisher: a broker's dynamic configs from the metadata log to its DynamicBrokerConfig
(Kafka's kafka.server.metadata.DynamicConfigPublisher, for BROKER resources).

Every committed image whose BROKER ConfigRecords changed -- this broker's own (resource "<id>") or the
cluster default's (resource "") -- hands the whole set of each to the DynamicBrokerConfig, which applies
what changed to the reconfigurables (docs/dynamic_configs.md). The first image does it too, so a restarted
broker takes the dynamic configs it missed. Then the AdminManager hears of it: an alteration asked of this
broker is answered once the broker runs with it.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.protocol.metadata_records import BROKER_RESOURCE
from kafka.server import broker_reconfigurables
from kafka.server.dynamic_broker_config import DynamicBrokerConfig


class DynamicConfigPublisher:
    def __init__(self, node_id: int, dynamic_config: DynamicBrokerConfig,
                 on_update: Callable[[], None] = lambda: None) -> None:
        self.node_id = node_id
        self.dynamic_config = dynamic_config
        self.on_update = on_update
        self._first = True

    @classmethod
    def for_broker(cls, server) -> DynamicConfigPublisher:
        """Kafka's BrokerServer: the broker's reconfigurables join its DynamicBrokerConfig
        (addReconfigurables), then this publisher feeds it."""
        dynamic_config = server.config.dynamic_config
        for reconfigurable in broker_reconfigurables.of_broker(server, dynamic_config):
            dynamic_config.add_broker_reconfigurable(reconfigurable)
        return cls(server.config.node_id, dynamic_config, server.admin_manager.metadata_updated)

    def name(self) -> str:
        return "DynamicConfigPublisher"

    def on_metadata_update(self, delta, image, manifest=None) -> None:
        changed = getattr(delta, "configs_delta", None) or set()
        default, own = (BROKER_RESOURCE, ""), (BROKER_RESOURCE, str(self.node_id))
        if not (self._first or default in changed or own in changed):
            return
        if self._first or default in changed:
            self.dynamic_config.update_default_config(image.configs.config_props(*default))
        if self._first or own in changed:
            self.dynamic_config.update_broker_config(image.configs.config_props(*own))
        self._first = False
        self.on_update()

    def close(self) -> None:
        pass
