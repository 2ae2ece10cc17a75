"""PlainSaslServer: SASL/PLAIN on the broker (Kafka's common.security.plain.internals.PlainSaslServer,
RFC 4616).

One message from the client, `authzid NUL username NUL password`, checked against the JAAS options
`user_<name>="<password>"` of PlainLoginModule (Kafka's PlainServerCallbackHandler). The password
travels in the clear: use PLAIN on SASL_SSL only, except on a trusted network.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping

from kafka.security.sasl_authentication_exception import SaslAuthenticationException

PLAIN_MECHANISM = "PLAIN"
_USER_PREFIX = "user_"


class PlainSaslServer:
    mechanism = PLAIN_MECHANISM

    def __init__(self, jaas_options: Mapping[str, str]) -> None:
        self._passwords = {k[len(_USER_PREFIX):]: v for k, v in jaas_options.items()
                           if k.startswith(_USER_PREFIX)}
        self.authorization_id: str | None = None
        self.attempted_user: str | None = None  # for the log line of a failure

    @property
    def is_complete(self) -> bool:
        return self.authorization_id is not None

    def evaluate_response(self, token: bytes) -> bytes:
        if self.is_complete:
            raise SaslAuthenticationException("Authentication failed: PLAIN exchange already complete")
        parts = token.split(b"\x00")
        if len(parts) != 3:
            raise SaslAuthenticationException("Invalid SASL/PLAIN response: expected 3 tokens, got "
                                              f"{len(parts)}")
        try:
            authzid, username, password = (p.decode("utf-8") for p in parts)
        except UnicodeDecodeError:
            raise SaslAuthenticationException("Invalid SASL/PLAIN response: not UTF-8") from None
        self.attempted_user = username or None
        if not username:
            raise SaslAuthenticationException("Authentication failed: username not specified")
        if not password:
            raise SaslAuthenticationException("Authentication failed: password not specified")
        expected = self._passwords.get(username)
        if expected is None or not hmac.compare_digest(expected.encode(), password.encode()):
            raise SaslAuthenticationException("Authentication failed: Invalid username or password")
        if authzid and authzid != username:
            raise SaslAuthenticationException("Authentication failed: Client requested an authorization id "
                                              "that is different from username")
        self.authorization_id = username
        return b""
