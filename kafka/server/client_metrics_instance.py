"""ClientMetricsInstance and ClientMetricsInstanceMetadata: one client's telemetry state on this broker
(Kafka's org.apache.kafka.server.metrics.ClientMetricsInstance and ClientMetricsInstanceMetadata).

The metadata is what a subscription's `match` patterns are tried against: the client instance id the
broker assigned, the request header's client id, the software name and version the client gave in
ApiVersions, its address and port. The instance is the subscription the client was given (its id, the
metric prefixes, the push interval) and when it last asked and pushed: a GetTelemetrySubscriptions or a
PushTelemetry earlier than one push interval after the last is refused THROTTLING_QUOTA_EXCEEDED, except
the first push after a GetTelemetrySubscriptions (the client jitters its interval).
"""

from __future__ import annotations

import re
import threading
import uuid
from dataclasses import dataclass

from kafka.protocol.errors import Errors
from kafka.server import client_metrics_configs as configs
from kafka.utils.uuid import uuid_to_string


@dataclass(frozen=True)
class ClientMetricsInstanceMetadata:
    client_instance_id: uuid.UUID
    client_id: str | None
    client_software_name: str | None = None
    client_software_version: str | None = None
    client_source_address: str | None = None
    client_source_port: str | None = None

    def attributes(self) -> dict[str, str | None]:
        return {configs.CLIENT_INSTANCE_ID: uuid_to_string(self.client_instance_id),
                configs.CLIENT_ID: self.client_id,
                configs.CLIENT_SOFTWARE_NAME: self.client_software_name,
                configs.CLIENT_SOFTWARE_VERSION: self.client_software_version,
                configs.CLIENT_SOURCE_ADDRESS: self.client_source_address,
                configs.CLIENT_SOURCE_PORT: self.client_source_port}

    def is_match(self, patterns: dict[str, re.Pattern]) -> bool:
        """Every pattern matches its attribute whole (Java's Matcher.matches); no patterns match all."""
        attributes = self.attributes()
        return all(attributes.get(name) is not None and pattern.fullmatch(attributes[name]) is not None
                   for name, pattern in patterns.items())


class ClientMetricsInstance:
    def __init__(self, client_instance_id: uuid.UUID, instance_metadata: ClientMetricsInstanceMetadata,
                 subscription_id: int, subscription_version: int, metrics: frozenset[str],
                 push_interval_ms: int) -> None:
        self.client_instance_id = client_instance_id
        self.instance_metadata = instance_metadata
        self.subscription_id = subscription_id
        self.subscription_version = subscription_version  # the manager's subscription version it was built at
        self.metrics = metrics
        self.push_interval_ms = push_interval_ms
        self.terminating = False
        self.last_known_error = Errors.NONE
        self.expires_at_ms = 0  # Kafka's expiration timer task, as a deadline the manager sweeps
        self._last_get_request_ms = 0
        self._last_push_request_ms = 0
        self._lock = threading.Lock()

    def maybe_update_get_request_timestamp(self, now_ms: int) -> bool:
        with self._lock:
            last = max(self._last_get_request_ms, self._last_push_request_ms)
            if now_ms - last >= self.push_interval_ms:
                self._last_get_request_ms = now_ms
                return True
            return False

    def maybe_update_push_request_timestamp(self, now_ms: int) -> bool:
        """A push right after a GetTelemetrySubscriptions is accepted whenever it comes: the client
        pushes between 0.5 and 1.5 intervals after it (its jitter)."""
        with self._lock:
            accept = self._last_get_request_ms > self._last_push_request_ms
            if not accept:
                accept = now_ms - self._last_push_request_ms >= self.push_interval_ms
            if accept:
                self._last_push_request_ms = now_ms
            return accept
