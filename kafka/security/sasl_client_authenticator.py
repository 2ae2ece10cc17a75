"""SaslClientAuthenticator: the client side of a SASL login (Kafka's
common.security.authenticator.SaslClientAuthenticator, with the JDK's PLAIN client and Kafka's
ScramSaslClient).

The NetworkClient drives it once ApiVersions is answered: SaslHandshake(mechanism), then
SaslAuthenticate with `first_token()`, then with `evaluate(challenge)` for each answer until it
returns None. Tokens only: the requests are the NetworkClient's business.

The credentials come from `sasl.jaas.config` (PlainLoginModule or ScramLoginModule with
username="..." password="...").
"""

from __future__ import annotations

from kafka.security.jaas_context import JaasConfigError, JaasContext
from kafka.security.plain_sasl_server import PLAIN_MECHANISM
from kafka.security.sasl_authentication_exception import SaslAuthenticationException
from kafka.security.scram_mechanism import MECHANISM_NAMES, ScramMechanism
from kafka.security.scram_sasl_client import ScramSaslClient


class _PlainSaslClient:
    def __init__(self, username: str, password: str) -> None:
        self.username, self.password = username, password
        self._sent = False

    def evaluate_challenge(self, challenge: bytes) -> bytes | None:
        if self._sent:
            return None
        self._sent = True
        return b"\x00" + self.username.encode() + b"\x00" + self.password.encode()


class SaslClientAuthenticator:
    def __init__(self, mechanism: str, username: str, password: str) -> None:
        self.mechanism = mechanism
        if mechanism == PLAIN_MECHANISM:
            self.client = _PlainSaslClient(username, password)
        elif mechanism in MECHANISM_NAMES:
            self.client = ScramSaslClient(ScramMechanism.for_name(mechanism), username, password)
        else:
            raise ValueError(f"SASL mechanism {mechanism!r} is not supported by this client "
                             f"(use PLAIN or {' or '.join(MECHANISM_NAMES)})")

    @classmethod
    def from_configs(cls, mechanism: str, jaas_config: str | None) -> SaslClientAuthenticator:
        """From sasl.mechanism and sasl.jaas.config; ValueError naming the key when they do not do."""
        if not jaas_config:
            raise ValueError("configuration key 'sasl.jaas.config' must name the username and password to "
                             "log in with")
        try:
            credentials = JaasContext.load("sasl.jaas.config", jaas_config).credentials()
        except JaasConfigError as e:
            raise ValueError(str(e)) from None
        if credentials is None:
            raise ValueError("configuration key 'sasl.jaas.config' needs username=\"...\" and "
                             "password=\"...\"")
        return cls(mechanism, *credentials)

    def first_token(self) -> bytes:
        return self.client.evaluate_challenge(b"")

    def evaluate(self, challenge: bytes) -> bytes | None:
        """The next token, or None when the login is complete. Raises SaslAuthenticationException."""
        token = self.client.evaluate_challenge(challenge)
        if token is None and isinstance(self.client, ScramSaslClient) and not self.client.is_complete:
            raise SaslAuthenticationException("SCRAM exchange ended before the server signature was checked")
        return token
