"""NodeToControllerChannelManager: how a broker sends requests to the active controller
(Kafka's kafka.server.NodeToControllerChannelManagerImpl and RaftControllerNodeProvider).

Seed 002 separates the control plane from the data plane: a broker registers, heartbeats and
forwards admin requests to the *active* controller only, over the controllers' own listener. Which
controller is active is what the metadata quorum says: the broker's raft client (an observer of
`__cluster_metadata`) knows the current leader, and the leader of the quorum is the active
controller. A request sent while no leader is known, or answered NOT_CONTROLLER because leadership
just moved, is retried against the new leader until its deadline.

One thread polls a NetworkClient whose nodes are the voters of controller.quorum.voters.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import structlog

from kafka.clients.client_config import ADMIN, ClientConfig
from kafka.clients.client_request import ClientRequest, ClientResponse
from kafka.clients.manual_metadata_updater import ManualMetadataUpdater
from kafka.clients.metadata import Node
from kafka.clients.network_client import NetworkClient
from kafka.protocol.api_keys import APIS
from kafka.protocol.errors import Errors
from kafka.utils.time import Time

log = structlog.get_logger("kafka.server.NodeToControllerChannelManager")


@dataclass(eq=False)
class ControllerRequest:
    api_key: int
    body: dict[str, Any]
    callback: Callable[[Any, Errors], None]  # (response body or None, error)
    deadline_ms: int
    max_version: int | None = None
    attempts: int = field(default=0)


def answered_not_controller(body: Any) -> bool:
    """NOT_CONTROLLER anywhere in a response: a standby controller answers each topic or resource so."""
    if isinstance(body, list):
        return any(answered_not_controller(item) for item in body)
    values = body.to_dict() if hasattr(body, "to_dict") else body if isinstance(body, dict) else None
    if values is None:
        return False
    if values.get("error_code") == Errors.NOT_CONTROLLER:
        return True
    return any(answered_not_controller(v) for v in values.values() if isinstance(v, list))


class NodeToControllerChannelManager(threading.Thread):
    def __init__(self, node_id: int, controllers: dict[int, tuple[str, int]],
                 active_controller: Callable[[], int | None],
                 request_timeout_ms: int, retry_backoff_ms: int, time: Time, name: str = "forwarding",
                 client_configs: dict | None = None) -> None:
        super().__init__(name=f"kafka-{node_id}-to-controller-{name}-channel", daemon=True)
        self.time = time
        self.active_controller = active_controller
        self.retry_backoff_ms = max(retry_backoff_ms, 20)
        nodes = [Node(i, host, port) for i, (host, port) in sorted(controllers.items())]
        config = ClientConfig(ADMIN, {
            "bootstrap.servers": ",".join(f"{n.host}:{n.port}" for n in nodes),
            "client.id": f"broker-{node_id}-to-controller-{name}",
            "request.timeout.ms": request_timeout_ms,
            "reconnect.backoff.ms": 50, "reconnect.backoff.max.ms": 1000,
            **(client_configs or {}),  # security.protocol and ssl.* of the controller listener
        })
        self.client = NetworkClient(ManualMetadataUpdater(nodes), config, time)
        self._waiting: deque[tuple[int, ControllerRequest]] = deque()  # (not before ms, request)
        self._lock = threading.Lock()
        self._running = threading.Event()
        # KIP-853: where a controller id listens, for an active controller not among `controllers`
        self.endpoint_of: Callable[[int], tuple[str, int] | None] = lambda controller_id: None

    def send_request(self, api_key: int, body: dict[str, Any], callback: Callable[[Any, Errors], None],
                     timeout_ms: int, max_version: int | None = None) -> None:
        request = ControllerRequest(api_key, body, callback, self.time.milliseconds() + timeout_ms,
                                    max_version)
        with self._lock:
            self._waiting.append((0, request))
        self.client.wakeup()

    def run(self) -> None:
        self._running.set()
        while self._running.is_set():
            now = self.time.milliseconds()
            self._send_ready(now)
            with self._lock:  # sleep until a retry is due; a new request wakes the client at once
                due = min((not_before for not_before, _ in self._waiting), default=now + 1000)
            self.client.poll(max(1, min(due - now, 1000)))

    def _send_ready(self, now_ms: int) -> None:
        with self._lock:
            ready = [r for not_before, r in self._waiting if not_before <= now_ms]
            self._waiting = deque((nb, r) for nb, r in self._waiting if nb > now_ms)
        for request in ready:
            if now_ms >= request.deadline_ms:
                request.callback(None, Errors.REQUEST_TIMED_OUT)
                continue
            controller = self.active_controller()
            if controller is None:  # no leader known yet: the quorum is electing one
                self._retry(request, now_ms)
                continue
            request.attempts += 1
            if (address := self.endpoint_of(controller)) is not None:
                self.client.metadata.add_nodes([Node(controller, *address)])
            self.client.send(ClientRequest(controller, request.api_key, request.body,
                                           max_version=request.max_version,
                                           timeout_ms=max(1, request.deadline_ms - now_ms),
                                           callback=lambda response,
                                           r=request: self._on_response(r, response)))

    def _on_response(self, request: ControllerRequest, response: ClientResponse) -> None:
        now_ms = self.time.milliseconds()
        if response.body is None or response.error is not None:
            log.debug("controller unreachable, will retry", api=APIS[request.api_key].name,
                      controller=response.request.node_id, error=str(response.error or "disconnected"))
            self._retry(request, now_ms)
        elif answered_not_controller(response.body):
            self._retry(request, now_ms)
        else:
            request.callback(response.body, Errors.NONE)

    def _retry(self, request: ControllerRequest, now_ms: int) -> None:
        with self._lock:
            self._waiting.append((now_ms + self.retry_backoff_ms, request))

    def shutdown(self) -> None:
        self._running.clear()
        self.client.wakeup()
        if self.is_alive():
            self.join(timeout=5)
        with self._lock:
            pending, self._waiting = list(self._waiting), deque()
        for _, request in pending:
            request.callback(None, Errors.BROKER_NOT_AVAILABLE)
        self.client.close()
