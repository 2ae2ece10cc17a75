"""ClusterConnectionStates: per-node connection state and reconnect backoff
(Kafka's clients.ClusterConnectionStates).

Seed 003: "the connection is opened only once, when the first request is sent. Connection state
for each broker (1 by broker) is held inside ClusterConnectionStates." After a failed attempt the
node is left alone for ``reconnect.backoff.ms``, doubling with each failure up to
``reconnect.backoff.max.ms``, with 20% jitter so a fleet of clients does not reconnect in step.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import Enum


class ConnectionState(Enum):
    DISCONNECTED = "DISCONNECTED"
    CONNECTING = "CONNECTING"
    CHECKING_API_VERSIONS = "CHECKING_API_VERSIONS"
    READY = "READY"


@dataclass
class NodeConnectionState:
    state: ConnectionState = ConnectionState.DISCONNECTED
    last_attempt_ms: int = 0
    failures: int = 0
    backoff_ms: int = 0


class ClusterConnectionStates:
    def __init__(self, reconnect_backoff_ms: int, reconnect_backoff_max_ms: int) -> None:
        self.reconnect_backoff_ms = reconnect_backoff_ms
        self.reconnect_backoff_max_ms = max(reconnect_backoff_ms, reconnect_backoff_max_ms)
        self._states: dict[int, NodeConnectionState] = {}

    def _get(self, node_id: int) -> NodeConnectionState:
        return self._states.setdefault(node_id, NodeConnectionState())

    def state(self, node_id: int) -> ConnectionState:
        return self._get(node_id).state

    def can_connect(self, node_id: int, now_ms: int) -> bool:
        s = self._get(node_id)
        return s.state == ConnectionState.DISCONNECTED and now_ms - s.last_attempt_ms >= s.backoff_ms

    def connection_delay(self, node_id: int, now_ms: int) -> int:
        """How long until we may try ``node_id`` again (0 if we may now)."""
        s = self._get(node_id)
        if s.state != ConnectionState.DISCONNECTED:
            return 2**31 - 1  # connecting or connected: nothing to wait for here
        return max(0, s.last_attempt_ms + s.backoff_ms - now_ms)

    def connecting(self, node_id: int, now_ms: int) -> None:
        s = self._get(node_id)
        s.state, s.last_attempt_ms = ConnectionState.CONNECTING, now_ms

    def checking_api_versions(self, node_id: int) -> None:
        self._get(node_id).state = ConnectionState.CHECKING_API_VERSIONS

    def ready(self, node_id: int) -> None:
        s = self._get(node_id)
        s.state, s.failures, s.backoff_ms = ConnectionState.READY, 0, 0

    def disconnected(self, node_id: int, now_ms: int) -> None:
        s = self._get(node_id)
        s.state, s.last_attempt_ms = ConnectionState.DISCONNECTED, now_ms
        s.failures += 1
        backoff = min(self.reconnect_backoff_ms * 2 ** (s.failures - 1), self.reconnect_backoff_max_ms)
        s.backoff_ms = int(backoff * random.uniform(0.8, 1.2))

    def is_ready(self, node_id: int) -> bool:
        return self._get(node_id).state == ConnectionState.READY
