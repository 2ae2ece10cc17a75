"""ClusterImage and BrokerRegistration: the registered brokers (Kafka's image.ClusterImage,
metadata.BrokerRegistration).

A broker is registered by a RegisterBrokerRecord; its epoch is that record's offset, so a restarted
broker (a new incarnation) gets a new epoch and anything still speaking for the old one is fenced
off. `fenced` brokers get no leaderships and are not shown to clients. The controllers register too
(RegisterControllerRecord, KIP-919), and from 4.4-IV2 a registration can be removed. A broker names its log
directories (their directory.id) and, from metadata.version 4.3-IV0, which of them are cordoned (KIP-1066):
a broker whose every directory is cordoned gets no new replicas.
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
    directories: tuple[uuid.UUID, ...] = ()
    cordoned_directories: tuple[uuid.UUID, ...] | None = None  # None: the broker has not said yet

    def has_uncordoned_dirs(self) -> bool:
        """Kafka's BrokerRegistration.hasUncordonedDirs: may new replicas go here? Yes unless every
        directory the broker registered is cordoned (no directories known, or none cordoned: yes)."""
        return has_uncordoned_dirs(self.directories, self.cordoned_directories)


def has_uncordoned_dirs(directories, cordoned) -> bool:
    if not directories or cordoned is None:
        return True
    return bool(set(directories) - set(cordoned))


@dataclass(frozen=True)
class ControllerRegistration:
    """A controller's registration (Kafka's metadata.ControllerRegistration, KIP-919): where it listens,
    which feature levels it runs. From metadata.version 4.4-IV2 it can be removed (UnregisterController)."""

    id: int
    incarnation_id: uuid.UUID
    listeners: dict[str, Endpoint]
    supported_features: dict[str, tuple[int, int]]


@dataclass(frozen=True)
class ClusterImage:
    brokers: dict[int, BrokerRegistration] = field(default_factory=dict)
    controllers: dict[int, ControllerRegistration] = field(default_factory=dict)

    def broker(self, broker_id: int) -> BrokerRegistration | None:
        return self.brokers.get(broker_id)
