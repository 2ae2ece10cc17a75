"""ClientRequest and ClientResponse (Kafka's clients.ClientRequest / ClientResponse).

A request names its destination node, its API and a body (a dict the protocol codec writes); the
NetworkClient fills in the version agreed with that broker and the correlation id. Its callback
gets a ClientResponse: the decoded body, or ``disconnected`` when the connection broke first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class ClientRequest:
    node_id: int
    api_key: int
    # the body, or (Kafka's AbstractRequest.Builder) a function of the version agreed that returns it
    body: dict[str, Any] | Callable[[int], dict[str, Any]]
    callback: Callable[[ClientResponse], None] | None = None
    expect_response: bool = True  # False for a Produce with acks=0
    timeout_ms: int = 30000
    created_ms: int = 0
    version: int = -1  # chosen by the NetworkClient from the broker's ApiVersions
    correlation_id: int = -1
    send_time_ms: int = 0
    max_version: int | None = None  # cap, for a caller that needs an older version's shape


@dataclass(eq=False)
class ClientResponse:
    request: ClientRequest
    body: Any = None  # a kafka.protocol Record; None for acks=0 or a disconnect
    disconnected: bool = False
    timed_out: bool = False
    received_ms: int = 0
    error: Exception | None = field(default=None)

    @property
    def version(self) -> int:
        return self.request.version
