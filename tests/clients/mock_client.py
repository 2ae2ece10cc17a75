"""MockClient: a NetworkClient without sockets, for driving the Sender by hand (Kafka's clients.MockClient).

The Sender's requests are recorded. The test answers them one at a time, with a body that goes
through the real protocol codec (encoded, then decoded), or with a disconnect. Their callbacks
run at the next ``poll``. Each node is always ready, and the one broker is the least loaded node.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from kafka.clients.client_request import ClientRequest, ClientResponse
from kafka.clients.errors import DisconnectError, KafkaError
from kafka.clients.metadata import Node
from kafka.protocol.api_keys import APIS
from kafka.protocol.errors import Errors
from kafka.protocol.header import decode_response, encode_request, encode_response
from kafka.utils.time import Time


class MockClient:
    def __init__(self, time: Time, node: Node, unsupported_apis: frozenset[int] = frozenset()) -> None:
        self.time = time
        self.node = node
        self.unsupported_apis = unsupported_apis  # APIs this "broker" leaves out of ApiVersions
        self.in_flight: list[ClientRequest] = []
        self.sent: list[ClientRequest] = []
        self._completed: list[ClientResponse] = []
        self._correlation_id = 0

    # ------------------------------------------------------------------ what the Sender calls
    def ready(self, node_id: int, now_ms: int) -> bool:
        return True

    def connection_delay(self, node_id: int, now_ms: int) -> int:
        return 0

    def least_loaded_node(self, now_ms: int) -> Node:
        return self.node

    def send(self, request: ClientRequest) -> Future:
        now_ms = self.time.hi_res_clock_ms()
        api = APIS[request.api_key]
        if request.api_key in self.unsupported_apis:  # what NetworkClient._choose_version answers
            self._completed.append(ClientResponse(request, received_ms=now_ms, error=KafkaError(
                Errors.UNSUPPORTED_VERSION, f"node {request.node_id} does not support {api.name}")))
            return Future()
        self._correlation_id += 1
        request.correlation_id = self._correlation_id
        request.version = api.max_version if request.max_version is None else min(api.max_version,
                                                                                  request.max_version)
        request.send_time_ms = now_ms
        encode_request(api, request.version, request.correlation_id, "mock", request.body)  # a valid body?
        self.in_flight.append(request)
        self.sent.append(request)
        return Future()

    def poll(self, timeout_ms: float) -> list[ClientResponse]:
        responses, self._completed = self._completed, []
        for response in responses:
            response.request.callback(response)
        return responses

    def wakeup(self) -> None:
        pass

    def has_pending(self) -> bool:
        return bool(self.in_flight or self._completed)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ what the test calls
    def requests(self, api_key: int) -> list[ClientRequest]:
        return [r for r in self.in_flight if r.api_key == api_key]

    def take(self, api_key: int) -> ClientRequest:
        """The oldest unanswered request of this API."""
        request = self.requests(api_key)[0]
        self.in_flight.remove(request)
        return request

    def respond(self, request: ClientRequest, body: dict[str, Any]) -> None:
        if request in self.in_flight:
            self.in_flight.remove(request)
        api = APIS[request.api_key]
        frame = bytes(encode_response(api, request.version, request.correlation_id, body))
        _, decoded = decode_response(api, request.version, frame[4:])
        self._completed.append(ClientResponse(request, decoded, received_ms=self.time.hi_res_clock_ms()))

    def disconnect(self, request: ClientRequest) -> None:
        if request in self.in_flight:
            self.in_flight.remove(request)
        self._completed.append(ClientResponse(request, disconnected=True,
                                              received_ms=self.time.hi_res_clock_ms(),
                                              error=DisconnectError("connection lost")))
