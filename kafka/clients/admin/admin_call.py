"""How the admin client sends one call (the retry part of Kafka's KafkaAdminClient.Call): a call whose
connection broke before its answer is a RetriableException (Kafka's DisconnectException), so it is sent
again after retry.backoff.ms, until default.api.timeout.ms. A broker that drops a connection -- a network
thread retired by a smaller dynamic num.network.threads, a restart -- is no reason to fail the call.
"""

from __future__ import annotations

from typing import Any

from kafka.clients.client_request import ClientResponse
from kafka.clients.errors import DisconnectError


def call_retrying_disconnects(admin: Any, node_id: int, api_key: int, body: dict[str, Any],
                              max_version: int | None = None) -> ClientResponse:
    """admin: the AdminClient, for its NetworkClient, time, retry.backoff.ms and default.api.timeout.ms."""
    time, backoff_ms = admin.time, admin.config["retry.backoff.ms"]
    deadline = time.milliseconds() + admin.timeout_ms
    while True:
        try:
            return admin.client.send_and_wait(node_id, api_key, body, max(deadline - time.milliseconds(), 0),
                                              max_version)
        except DisconnectError:
            if time.milliseconds() + backoff_ms >= deadline:
                raise
            time.sleep(backoff_ms)
