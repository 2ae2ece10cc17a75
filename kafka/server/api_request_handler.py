"""ApiRequestHandler: what KafkaApis and ControllerApis share (Kafka's ApiRequestHandler and RequestHandlerHelper).

Both take a Request from their RequestChannel, decode its body with the schema of its API and
version, look the handler up in a table keyed by API key, and answer through a callback that
encodes the response and hands it to the network thread that owns the connection. The table is
also what ApiVersions advertises, so each listener lists only the APIs it serves: the broker's
listener has no Vote, the controller's no Produce (Kafka's ApiMessageType.ListenerType).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import structlog

from kafka.metrics.request_metrics import count_error_codes
from kafka.network.request_channel import Request, RequestChannel, Response
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import (
    advertised_ranges,
    decode_request,
    encode_api_versions_fallback,
    encode_response,
)
from kafka.server.auth_helper import AuthorizationError
from kafka.server.error_responses import error_response

log = structlog.get_logger("kafka.server.ApiRequestHandler")


class ApiRequestHandler:
    request_channel: RequestChannel
    handlers: dict[int, Callable[[Request], None]]

    def handle(self, request: Request) -> None:
        header = request.header
        api = APIS[header.api_key]
        if header.api_key == ApiKey.API_VERSIONS and not api.is_supported(header.api_version):
            self.send_payload(request, encode_api_versions_fallback(header.correlation_id, self.api_version_ranges()))
            return
        handler = self.handlers.get(header.api_key)
        if handler is None:  # an API of the other listener (Vote on a broker port, Produce on a controller's)
            log.warning("API not served on this listener, closing connection", api=api.name,
                        listener=request.listener, connection=request.connection_id)
            self.request_channel.close_connection(request)
            return
        try:
            request.body = decode_request(api, header.api_version, request.buffer, header.header_size)
        except Exception as e:  # a body that does not match its schema: drop this connection only
            log.warning("malformed request body, closing connection", api=api.name,
                        version=header.api_version, connection=request.connection_id, error=str(e))
            self.request_channel.close_connection(request)
            return
        try:
            handler(request)
        except AuthorizationError as e:  # refused as a whole (Kafka's ClusterAuthorizationException)
            self.send_error_response(request, e.error)
        if request.api_local_complete_time_ns < 0:  # the answer waits in a purgatory
            request.api_local_complete_time_ns = request.mark("I/O thread done; waiting in purgatory")

    def send_error_response(self, request: Request, error: Errors) -> None:
        """The request's own error response, every part of it answered with `error`."""
        body = error_response(request.header.api_key, request.header.api_version, request.body, error)
        if body is None:
            self.request_channel.close_connection(request)
        else:
            self.send_response(request, body)

    def handle_error(self, request: Request) -> None:
        """A handler raised (Kafka's handleError): answer every partition, topic, resource or group
        of the request with UNKNOWN_SERVER_ERROR, keeping the connection. Only a request whose
        error response cannot be built (or encoded) costs its connection."""
        header = request.header
        body = error_response(header.api_key, header.api_version, request.body)
        if header.api_key == ApiKey.PRODUCE and getattr(request.body, "acks", None) == 0:
            body = None  # the producer reads no response: closing is the only way to tell it
        if body is not None and request.api_remote_complete_time_ns < 0:
            try:
                self.send_response(request, body)
                return
            except Exception:
                log.exception("cannot encode the error response", api=APIS[header.api_key].name)
        self.request_channel.close_connection(request)

    def api_version_ranges(self) -> list[tuple[int, int, int]]:
        return [r for r in advertised_ranges() if r[0] in self.handlers]

    def handle_api_versions_request(self, request: Request) -> None:
        api_keys = [dict(api_key=key, min_version=low, max_version=high)
                    for key, low, high in self.api_version_ranges()]
        self.send_response(request, dict(error_code=Errors.NONE, api_keys=api_keys, throttle_time_ms=0,
                                         **self.api_versions_features()))

    def api_versions_features(self) -> dict:
        """ApiVersions v3+'s feature fields (KIP-584); none unless the listener knows its features."""
        return {}

    def send_response_when_done(self, request: Request, future: Future, body_of: Callable[[Any], dict]) -> None:
        """Answer once `future` is done, from the thread that completes it (the controller channel's,
        the metadata publisher's, a purgatory's reaper): the I/O thread has long moved on."""
        def done(finished: Future) -> None:
            try:
                body = body_of(finished.result())
            except Exception:  # a bug: answer with the error response, as handle() would
                log.exception("building a delayed response failed", api=APIS[request.header.api_key].name)
                self.handle_error(request)
                return
            self.send_response(request, body)

        future.add_done_callback(done)

    def send_response(self, request: Request, body: dict) -> None:
        header = request.header
        api = APIS[header.api_key]
        self.request_channel.update_error_metrics(request, count_error_codes(body))
        self.send_payload(request, encode_response(api, header.api_version, header.correlation_id, body))

    def send_payload(self, request: Request, payload: bytes | bytearray | None) -> None:
        if request.api_local_complete_time_ns < 0:  # answered on the I/O thread
            now = request.api_local_complete_time_ns = request.mark("I/O thread done")
        else:  # answered later, by whichever thread completed the delayed operation
            now = request.mark("out of purgatory")
        request.api_remote_complete_time_ns = now
        self.request_channel.send_response(Response(request, payload))
