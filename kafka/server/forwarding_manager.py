"""ForwardingManager: admin requests a broker receives go to the active controller (Kafka's
kafka.server.ForwardingManager, KIP-590).

Seed 004: in KRaft only the controller changes metadata. A client may send CreateTopics to any
broker (Metadata names a random live broker as "controller"); the broker forwards the request over
the control plane and relays the answer. Kafka wraps the client's request in an Envelope so the
controller sees the original principal; the teaching broker has no authentication, so it forwards
the request body itself, at the version the client used when the controller speaks it.
"""

from __future__ import annotations

import threading
from typing import Any

from kafka.network.request_channel import wake_deferred
from kafka.protocol.errors import Errors


class ControllerUnavailableError(Exception):
    """No active controller answered before the deadline."""

    def __init__(self, error: Errors) -> None:
        super().__init__(f"the active controller did not answer: {error.name}")
        self.error = error


class ForwardingManager:
    def __init__(self, channel) -> None:
        self.channel = channel  # a NodeToControllerChannelManager
        self._lock = threading.Lock()
        self._waiting: set = set()  # the on_response of every forward_and_wait not yet answered
        self._closed = False

    def forward(self, api_key: int, body: dict[str, Any], timeout_ms: int, callback,
                max_version: int | None = None) -> None:
        """Send now; `callback(response body or None, error)` runs on the channel's thread."""
        self.channel.send_request(api_key, body, callback, timeout_ms, max_version)

    def forward_and_wait(self, api_key: int, body: dict[str, Any], timeout_ms: int,
                         max_version: int | None = None) -> Any:
        """Forward and block the calling I/O thread until the controller answers (admin requests are
        rare; Kafka answers them asynchronously, which a purgatory-style callback would do here)."""
        done = threading.Event()
        result: list = []

        def on_response(response, error: Errors) -> None:
            result.append((response, error))
            done.set()

        with self._lock:
            if self._closed:
                raise ControllerUnavailableError(Errors.BROKER_NOT_AVAILABLE)
            self._waiting.add(on_response)
        try:
            self.forward(api_key, body, timeout_ms, on_response, max_version)
            wake_deferred()  # what this I/O thread already answered goes out before it waits
            if not done.wait(timeout_ms / 1000 + 1):
                raise ControllerUnavailableError(Errors.REQUEST_TIMED_OUT)
        finally:
            with self._lock:
                self._waiting.discard(on_response)
        response, error = result[0]
        if error != Errors.NONE:
            raise ControllerUnavailableError(error)
        return response

    def shutdown(self) -> None:
        """Release every I/O thread still waiting for the controller: the broker is stopping, and a
        controller busy with a long event must not hold its shutdown for a whole request timeout."""
        with self._lock:
            self._closed = True
            waiting, self._waiting = list(self._waiting), set()
        for on_response in waiting:
            on_response(None, Errors.BROKER_NOT_AVAILABLE)
