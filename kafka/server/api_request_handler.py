"""ApiRequestHandler: what KafkaApis and ControllerApis share (Kafka's ApiRequestHandler).

Both take a Request from their RequestChannel, decode its body with the schema of its API and
version, look the handler up in a table keyed by API key, and answer through their
RequestHandlerHelper, which encodes the response and hands it to the network thread that owns the
connection. The table is also what ApiVersions advertises, so each listener lists only the APIs it
serves: the broker's listener has no Vote, the controller's no Produce (Kafka's
ApiMessageType.ListenerType).
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from kafka.network.request_channel import Request
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import advertised_ranges, decode_request, encode_api_versions_fallback
from kafka.protocol.messages.api_versions import is_valid
from kafka.server.auth_helper import AuthorizationError
from kafka.server.request_handler_helper import RequestHandlerHelper

log = structlog.get_logger("kafka.server.ApiRequestHandler")


class ApiRequestHandler:
    request_helper: RequestHandlerHelper
    handlers: dict[int, Callable[[Request], None]]

    def handle(self, request: Request) -> None:
        header = request.header
        api = APIS[header.api_key]
        if header.api_key == ApiKey.API_VERSIONS and not api.is_supported(header.api_version):
            self.request_helper.send_payload(
                request, encode_api_versions_fallback(header.correlation_id, self.api_version_ranges()))
            return
        handler = self.handlers.get(header.api_key)
        if handler is None:  # an API of the other listener (Vote on a broker port, Produce on a controller's)
            log.warning("API not served on this listener, closing connection", api=api.name,
                        listener=request.listener, connection=request.connection_id)
            self.request_helper.close_connection(request)
            return
        try:
            request.body = decode_request(api, header.api_version, request.buffer, header.header_size)
        except Exception as e:  # a body that does not match its schema: drop this connection only
            log.warning("malformed request body, closing connection", api=api.name,
                        version=header.api_version, connection=request.connection_id, error=str(e))
            self.request_helper.close_connection(request)
            return
        try:
            handler(request)
        except AuthorizationError as e:  # refused as a whole (Kafka's ClusterAuthorizationException)
            self.request_helper.send_error_response_maybe_throttle(request, e.error)
        if request.api_local_complete_time_ns < 0:  # the answer waits in a purgatory
            request.api_local_complete_time_ns = request.mark("I/O thread done; waiting in purgatory")

    def handle_error(self, request: Request) -> None:
        """A handler raised: the KafkaRequestHandler logged it, the helper answers it (Kafka's
        handleError)."""
        self.request_helper.handle_error(request)

    def api_version_ranges(self) -> list[tuple[int, int, int]]:
        return [r for r in advertised_ranges() if r[0] in self.handlers]

    def handle_api_versions_request(self, request: Request) -> None:
        if (error := self.api_versions_error(request)) != Errors.NONE:  # no ranges then (getErrorResponse)
            self.request_helper.send_response_maybe_throttle(request, dict(
                error_code=error, api_keys=[], throttle_time_ms=0))
            return
        api_keys = [dict(api_key=key, min_version=low, max_version=high)
                    for key, low, high in self.api_version_ranges()]
        self.request_helper.send_response_maybe_throttle(request, dict(
            error_code=Errors.NONE, api_keys=api_keys, throttle_time_ms=0,
            **self.api_versions_features(request.header.api_version)))

    def api_versions_error(self, request: Request) -> Errors:
        """Why this ApiVersions is refused: INVALID_REQUEST for what ApiVersionsRequest.isValid refuses. A
        controller's listener checks no more (ControllerApis); a broker's checks the cluster and node id
        the client means to reach too (KafkaApis, KIP-1242)."""
        return Errors.NONE if is_valid(request.body, request.header.api_version) else Errors.INVALID_REQUEST

    def api_versions_features(self, version: int) -> dict:
        """ApiVersions v3+'s feature fields (KIP-584); none unless the listener knows its features."""
        return {}
