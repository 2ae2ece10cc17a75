"""RaftRequest and RaftResponse: what the raft core sends and receives (Kafka's RaftRequest/RaftResponse).

The core never sees a socket. Its messages name the node they come from and go to, the API, and a
body shaped exactly like the wire schema (a dict to send, a decoded Record received). The network
channel, or the simulation in tests/raft/, carries them. A request that could not be delivered comes
back as a response whose body holds only a top-level error_code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors


@dataclass(frozen=True)
class RaftRequest:
    correlation_id: int
    source_id: int
    destination_id: int
    api_key: ApiKey
    body: Any
    created_ms: int = 0


@dataclass(frozen=True)
class RaftResponse:
    correlation_id: int
    source_id: int
    destination_id: int
    api_key: ApiKey
    body: Any
    received_ms: int = 0


@dataclass(frozen=True)
class RaftTransportFailure:
    """No answer to one of our requests: `error` is REQUEST_TIMED_OUT or BROKER_NOT_AVAILABLE. Like a
    response, it comes from the node we asked (source_id) and names the request (correlation_id)."""
    correlation_id: int
    source_id: int
    destination_id: int
    api_key: ApiKey
    error: Errors
    received_ms: int = 0
