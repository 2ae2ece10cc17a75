"""The SASL part of KafkaApis: SaslHandshake and SaslAuthenticate after authentication, and the
SCRAM credential APIs (KIP-554).

Kafka keeps these handlers in kafka.server.KafkaApis itself; here they sit beside it (as
ClientQuotaApis does). A SaslHandshake or SaslAuthenticate reaches KafkaApis only when the
connection's authentication is over (or its listener has none): Kafka answers ILLEGAL_SASL_STATE,
and so do we (re-authentication, KIP-368, is not built). AlterUserScramCredentials is the
controller's decision, forwarded as it came; DescribeUserScramCredentials is answered from this
broker's ScramImage, mechanisms and iterations only.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.image.scram_image import ScramImage
from kafka.network.request_channel import Request
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.forwarding_manager import ForwardingManager
from kafka.server.metadata.scram_publisher import ScramPublisher
from kafka.server.request_handler_helper import RequestHandlerHelper


class SaslApis:
    def __init__(self, request_helper: RequestHandlerHelper,
                 forwarding_manager: ForwardingManager | None = None,
                 scram_publisher: ScramPublisher | None = None) -> None:
        self.request_helper = request_helper
        self.forwarding_manager = forwarding_manager  # AlterUserScramCredentials: the controller's decision
        self.scram_publisher = scram_publisher  # DescribeUserScramCredentials: its ScramImage

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {
            ApiKey.SASL_HANDSHAKE: self.handle_sasl_handshake_request,
            ApiKey.SASL_AUTHENTICATE: self.handle_sasl_authenticate_request,
            ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS: self.handle_describe_user_scram_credentials_request,
            ApiKey.ALTER_USER_SCRAM_CREDENTIALS: self.handle_alter_user_scram_credentials_request,
        }

    def handle_sasl_handshake_request(self, request: Request) -> None:
        self.request_helper.send_response_maybe_throttle(request, dict(error_code=Errors.ILLEGAL_SASL_STATE,
                                                                       mechanisms=[]))

    def handle_sasl_authenticate_request(self, request: Request) -> None:
        self.request_helper.send_response_maybe_throttle(request, dict(
            error_code=Errors.ILLEGAL_SASL_STATE, auth_bytes=b"",
            error_message="SaslAuthenticate request received after successful authentication"))

    def handle_describe_user_scram_credentials_request(self, request: Request) -> None:
        image = self.scram_publisher.image if self.scram_publisher is not None else ScramImage()
        users = None if request.body.users is None else [u.name for u in request.body.users]
        self.request_helper.send_response_maybe_throttle(request, dict(
            throttle_time_ms=0, error_code=Errors.NONE, error_message=None, results=image.describe(users)))

    def handle_alter_user_scram_credentials_request(self, request: Request) -> None:
        req = request.body

        def on_response(response, error: Errors) -> None:
            if response is not None and error == Errors.NONE:
                self.request_helper.send_response_maybe_throttle(request, response.to_dict())
                return
            error = error if error != Errors.NONE else Errors.UNKNOWN_SERVER_ERROR
            users = dict.fromkeys([a.name for a in [*req.deletions, *req.upsertions]])
            self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, results=[
                dict(user=u, error_code=error, error_message="the active controller did not answer")
                for u in users]))

        self.forwarding_manager.forward_request(
            ApiKey.ALTER_USER_SCRAM_CREDENTIALS, req.to_dict(), 30_000, on_response,
            max_version=request.header.api_version)
