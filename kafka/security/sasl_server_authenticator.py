"""SaslServerAuthenticator: SASL on a broker connection, frame by frame, before any request reaches
the RequestChannel (Kafka's common.security.authenticator.SaslServerAuthenticator).

The Selector hands it each complete frame of a connection that is not authenticated yet:

    HANDSHAKE_OR_VERSIONS_REQUEST  ApiVersions -> handed on to KafkaApis like any request (FORWARD),
                                   so the client learns which versions we speak; then
    HANDSHAKE_REQUEST              SaslHandshake v0-1: an enabled mechanism -> its SaslServer;
                                   another -> UNSUPPORTED_SASL_MECHANISM with the enabled list
    AUTHENTICATE                   SaslAuthenticate v0-2 (after handshake v1), or the raw token
                                   (after handshake v0, KIP-43): one SaslServer step each
    COMPLETE                       principal User:<authorization id>; frames go to KafkaApis from now on
    FAILED                         the Selector answers after connection.failed.authentication.delay.ms
                                   and closes

Anything else in any state (another API, a body that does not parse, a second ApiVersions) fails the
connection. Bytes in, bytes out: no sockets and no clock here.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import decode_request, encode_response, parse_request_header
from kafka.security.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka.security.sasl_authentication_exception import SaslAuthenticationException

HANDSHAKE_OR_VERSIONS_REQUEST, HANDSHAKE_REQUEST, AUTHENTICATE, COMPLETE, FAILED = (
    "HANDSHAKE_OR_VERSIONS_REQUEST", "HANDSHAKE_REQUEST", "AUTHENTICATE", "COMPLETE", "FAILED")
_SIZE = struct.Struct(">i")


@dataclass
class AuthenticateResult:
    """What the Selector does with a frame: hand it on (forward), send `response` and read on,
    or fail: send `response` (if any) after the delay and close."""

    forward: bool = False
    response: bytes | bytearray | None = None
    failure: str | None = None


class SaslServerAuthenticator:
    def __init__(self, enabled_mechanisms: Sequence[str], create_server: Callable[[str], object]) -> None:
        self.enabled_mechanisms = list(enabled_mechanisms)
        self._create_server = create_server
        self.state = HANDSHAKE_OR_VERSIONS_REQUEST
        self.mechanism: str | None = None
        self.sasl_server = None
        self._handshake_version = 1
        self.principal: KafkaPrincipal | None = None

    @property
    def complete(self) -> bool:
        return self.state == COMPLETE

    @property
    def attempted_user(self) -> str | None:
        """Who the client said it was, for the log line of a failure (None before it said)."""
        return getattr(self.sasl_server, "attempted_user", None)

    def authenticate(self, frame: bytes | memoryview) -> AuthenticateResult:
        try:
            if self.state == AUTHENTICATE and self._handshake_version == 0:
                return self._raw_token(bytes(frame))
            return self._kafka_request(frame)
        except SaslAuthenticationException as e:
            self.state = FAILED
            return AuthenticateResult(failure=str(e))

    # ------------------------------------------------------------------ Kafka requests
    def _kafka_request(self, frame) -> AuthenticateResult:
        try:
            header = parse_request_header(frame)
        except Exception as e:
            raise SaslAuthenticationException(f"Invalid SASL request: {e}") from None
        api = APIS.get(header.api_key)
        name = api.name if api is not None else f"api key {header.api_key}"
        if header.api_key == ApiKey.API_VERSIONS and self.state == HANDSHAKE_OR_VERSIONS_REQUEST:
            # a too-new one is answered and may be asked again (KIP-511)
            if api.is_supported(header.api_version):
                self.state = HANDSHAKE_REQUEST
            return AuthenticateResult(forward=True)
        expected = ApiKey.SASL_AUTHENTICATE if self.state == AUTHENTICATE else ApiKey.SASL_HANDSHAKE
        if header.api_key != expected:
            during = "authentication" if self.state == AUTHENTICATE else "handshake"
            raise SaslAuthenticationException(
                f"Unexpected Kafka request of type {name} during SASL {during}.")
        if not api.is_supported(header.api_version):
            raise SaslAuthenticationException(f"{name} v{header.api_version} is not supported "
                                              f"({api.min_version}-{api.max_version})")
        try:
            body = decode_request(api, header.api_version, frame, header.header_size)
        except Exception as e:
            raise SaslAuthenticationException(f"Invalid {name} request: {e}") from None
        if expected == ApiKey.SASL_HANDSHAKE:
            return self._handshake(header, body)
        return self._sasl_authenticate(header, body)

    def _handshake(self, header, body) -> AuthenticateResult:
        api = APIS[ApiKey.SASL_HANDSHAKE]
        mechanism = body.mechanism
        if mechanism not in self.enabled_mechanisms:
            self.state = FAILED
            response = encode_response(api, header.api_version, header.correlation_id,
                                       {"error_code": Errors.UNSUPPORTED_SASL_MECHANISM,
                                        "mechanisms": self.enabled_mechanisms})
            return AuthenticateResult(response=response, failure=f"Unsupported SASL mechanism {mechanism}")
        self.mechanism = mechanism
        self.sasl_server = self._create_server(mechanism)
        self._handshake_version = header.api_version
        self.state = AUTHENTICATE
        return AuthenticateResult(response=encode_response(api, header.api_version, header.correlation_id,
                                                           {"error_code": Errors.NONE,
                                                            "mechanisms": self.enabled_mechanisms}))

    def _sasl_authenticate(self, header, body) -> AuthenticateResult:
        api = APIS[ApiKey.SASL_AUTHENTICATE]
        try:
            challenge = self.sasl_server.evaluate_response(bytes(body.auth_bytes))
        except SaslAuthenticationException as e:
            self.state = FAILED
            response = encode_response(api, header.api_version, header.correlation_id,
                                       {"error_code": Errors.SASL_AUTHENTICATION_FAILED,
                                        "error_message": str(e),
                                        "auth_bytes": b""})
            return AuthenticateResult(response=response, failure=str(e))
        self._maybe_complete()
        return AuthenticateResult(response=encode_response(api, header.api_version, header.correlation_id,
                                                           {"error_code": Errors.NONE,
                                                            "auth_bytes": challenge,
                                                            "session_lifetime_ms": 0}))

    # ------------------------------------------------------------------ raw tokens (SaslHandshake v0)
    def _raw_token(self, token: bytes) -> AuthenticateResult:
        challenge = self.sasl_server.evaluate_response(token)
        self._maybe_complete()
        return AuthenticateResult(response=_SIZE.pack(len(challenge)) + challenge)

    def _maybe_complete(self) -> None:
        if self.sasl_server.is_complete:
            self.state = COMPLETE
            self.principal = KafkaPrincipal(USER_TYPE, self.sasl_server.authorization_id)
