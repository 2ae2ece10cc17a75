"""ClusterImage and BrokerRegistration: the registered brokers (Kafka's image.ClusterImage,
metadata.BrokerRegistration).

A broker is registered by a RegisterBrokerRecord; its epoch is that record's offset, so a restarted
broker (a new incarnation) gets a new epoch and anything still speaking for the old one is fenced
off. `fenced` brokers get no leaderships and are not shown to clients.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Endpoint:
    name: str
    host: str
    port: int
    security_protocol: int = 0


@dataclass(frozen=True)
class BrokerRegistration:
    id: int
    epoch: int
    incarnation_id: uuid.UUID
    listeners: dict[str, Endpoint]
    supported_features: dict[str, tuple[int, int]]
    rack: str | None
    fenced: bool
    in_controlled_shutdown: bool = False


@dataclass(frozen=True)
class ClusterImage:
    brokers: dict[int, BrokerRegistration] = field(default_factory=dict)

    def broker(self, broker_id: int) -> BrokerRegistration | None:
        return self.brokers.get(broker_id)
