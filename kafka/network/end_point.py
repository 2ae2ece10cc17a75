"""EndPoint: one listener, NAME://host:port (Kafka's kafka.cluster.EndPoint).

`listeners` says where the broker binds; `advertised.listeners` says what it tells clients in
Metadata responses. Each listener speaks one SecurityProtocol, named for it in
listener.security.protocol.map (KafkaConfig fills it in; parsing alone gives PLAINTEXT).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafka.security.security_protocol import SecurityProtocol

_LISTENER = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)://(?P<host>\[[^\]]*\]|[^:/]*):(?P<port>\d+)$")


@dataclass(frozen=True)
class EndPoint:
    listener_name: str
    host: str
    port: int
    security_protocol: SecurityProtocol = SecurityProtocol.PLAINTEXT

    @property
    def connection_string(self) -> str:
        return f"{self.listener_name}://{self.host}:{self.port}"


def parse_listeners(value: str) -> list[EndPoint]:
    """Parse "PLAINTEXT://127.0.0.1:9092,OTHER://:9093"; raise ValueError saying what is wrong."""
    endpoints = []
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        match = _LISTENER.match(item)
        if not match:
            raise ValueError(f"{item!r} is not of the form NAME://host:port")
        port = int(match["port"])
        if port > 65535:
            raise ValueError(f"port {port} in {item!r} is out of range")
        endpoints.append(EndPoint(match["name"].upper(), match["host"].strip("[]"), port))
    if not endpoints:
        raise ValueError("no listener given")
    names = [e.listener_name for e in endpoints]
    if len(set(names)) != len(names):
        raise ValueError(f"listener names must be unique, got {names}")
    return endpoints
