"""InterBrokerSendThread: one thread that sends requests to other brokers and hands their answers to
callbacks (Kafka's kafka.server.util.InterBrokerSendThread, which TransactionMarkerChannelManager extends).

Seed 000: the coordinators append through ReplicaManager -- their own partitions. A transaction's
other partitions live on other brokers, so the transaction coordinator sends WriteTxnMarkers to each
partition's leader on the inter-broker listener. This is that road: the client package's
NetworkClient (the one the replica fetchers and the controller channel use), nodes registered as
they are named, polled by one daemon thread. ``send(destination, api_key, body, callback)`` never
blocks; ``callback(response body or None, error)`` runs on this thread, once per request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import structlog

from kafka.clients.client_config import ADMIN, ClientConfig
from kafka.clients.client_request import ClientRequest, ClientResponse
from kafka.clients.manual_metadata_updater import ManualMetadataUpdater
from kafka.clients.metadata import Node
from kafka.clients.network_client import NetworkClient
from kafka.protocol.errors import Errors
from kafka.utils.time import Time

log = structlog.get_logger("kafka.server.InterBrokerSendThread")


class InterBrokerSendThread(threading.Thread):
    def __init__(self, name: str, node_id: int, request_timeout_ms: int, time: Time,
                 client_configs: dict | None = None) -> None:
        super().__init__(name=name, daemon=True)
        self.time = time
        self.request_timeout_ms = request_timeout_ms
        config = ClientConfig(ADMIN, {
            "bootstrap.servers": "127.0.0.1:9", "client.id": f"broker-{node_id}-{name}",
            "request.timeout.ms": request_timeout_ms, "reconnect.backoff.ms": 50,
            "reconnect.backoff.max.ms": 1000,
            **(client_configs or {}),  # security.protocol and ssl.* of the inter-broker listener
        })
        self.client = NetworkClient(ManualMetadataUpdater([]), config, time)
        self._running = threading.Event()

    def send(self, destination, api_key: int, body: dict[str, Any],
             callback: Callable[[Any, Errors], None]) -> None:
        """``destination`` has node_id, host and port (a broker's inter-broker end point)."""
        node = Node(destination.node_id, destination.host, destination.port)
        known = self.client.node(node.node_id)
        if known is None or (known.host, known.port) != (node.host, node.port):
            self.client.register_node(node)

        def on_response(response: ClientResponse) -> None:
            if response.body is None or response.error is not None:
                callback(None, Errors.NETWORK_EXCEPTION)
            else:
                callback(response.body, Errors.NONE)

        self.client.send(ClientRequest(node.node_id, api_key, body, callback=on_response,
                                       timeout_ms=self.request_timeout_ms))

    def run(self) -> None:
        self._running.set()
        while self._running.is_set():
            try:
                self.client.poll(1000)
            except Exception:
                log.exception("inter-broker send thread: poll failed")

    def shutdown(self) -> None:
        self._running.clear()
        self.client.wakeup()
        if self.is_alive():
            self.join(timeout=5)
        self.client.close()
