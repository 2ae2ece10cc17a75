"""ScramSaslServer: SCRAM-SHA-256/512 on the broker (Kafka's common.security.scram.internals.ScramSaslServer;
RFC 5802, RFC 7677). A state machine: token in, token out, no sockets.

    client-first  -> look the user up in the CredentialCache -> server-first (salt, iterations, nonce)
    client-final  -> same nonce? channel binding = our gs2 header? proof recovers StoredKey? -> v=signature

Any mismatch is a SaslAuthenticationException and the exchange is over: a wrong password, an unknown
user, a nonce that is not the one we sent, a proof of the wrong length, a token that does not parse.
One exception for old librdkafka (kcat on Debian 12): its client-final nonce repeats the client's
nonce in front of the combined one; that exact form is accepted, as Kafka's endsWith check did.
"""

from __future__ import annotations

import hmac

from kafka.security.credential_cache import CredentialCache
from kafka.security.sasl_authentication_exception import SaslAuthenticationException
from kafka.security.scram_formatter import ScramFormatter, auth_message, secure_nonce
from kafka.security.scram_mechanism import MIN_ITERATIONS, ScramMechanism
from kafka.security.scram_messages import (
    ClientFinalMessage,
    ClientFirstMessage,
    ScramFormatError,
    ServerFinalMessage,
    ServerFirstMessage,
)

RECEIVE_CLIENT_FIRST_MESSAGE, RECEIVE_CLIENT_FINAL_MESSAGE, COMPLETE, FAILED = range(4)


class ScramSaslServer:
    def __init__(self, mechanism: ScramMechanism, credential_cache: CredentialCache,
                 server_nonce: str | None = None) -> None:
        self.mechanism = mechanism.mechanism_name
        self.formatter = ScramFormatter(mechanism)
        self.credential_cache = credential_cache
        self._server_nonce = server_nonce  # fixed only by tests (the RFC's vector)
        self.state = RECEIVE_CLIENT_FIRST_MESSAGE
        self.authorization_id: str | None = None
        self.attempted_user: str | None = None  # for the log line of a failure
        self._client_first: ClientFirstMessage | None = None
        self._server_first: ServerFirstMessage | None = None
        self._credential = None

    @property
    def is_complete(self) -> bool:
        return self.state == COMPLETE

    def evaluate_response(self, token: bytes) -> bytes:
        try:
            if self.state == RECEIVE_CLIENT_FIRST_MESSAGE:
                return self._client_first_message(token)
            if self.state == RECEIVE_CLIENT_FINAL_MESSAGE:
                return self._client_final_message(token)
            raise SaslAuthenticationException("Authentication failed: unexpected SCRAM token in state "
                                              f"{self.state}")
        except ScramFormatError as e:
            self.state = FAILED
            raise SaslAuthenticationException(f"Authentication failed: {e}") from None
        except SaslAuthenticationException:
            self.state = FAILED
            raise

    def _client_first_message(self, token: bytes) -> bytes:
        first = ClientFirstMessage.parse(token)
        self.attempted_user = first.username
        if "tokenauth" in first.extensions:
            raise SaslAuthenticationException("Authentication failed: delegation tokens are not supported")
        credential = self.credential_cache.get(self.mechanism, first.username)
        if credential is None:
            raise SaslAuthenticationException("Authentication failed: Invalid user credentials")
        if credential.iterations < MIN_ITERATIONS:
            raise SaslAuthenticationException(f"Iterations {credential.iterations} is less than the minimum "
                                              f"{MIN_ITERATIONS} for {self.mechanism}")
        if first.authzid and first.authzid != first.username:
            raise SaslAuthenticationException("Authentication failed: Client requested an authorization id "
                                              "that is different from username")
        self._client_first, self._credential = first, credential
        nonce = first.nonce + (self._server_nonce or secure_nonce())
        self._server_first = ServerFirstMessage.create(nonce, credential.salt, credential.iterations)
        self.state = RECEIVE_CLIENT_FINAL_MESSAGE
        return self._server_first.text.encode()

    def _client_final_message(self, token: bytes) -> bytes:
        final = ClientFinalMessage.parse(token)
        first, server_first, credential = self._client_first, self._server_first, self._credential
        # librdkafka before 2.1 repeats its own nonce in front of the combined one; Kafka accepted that
        # with endsWith (any prefix), we accept exactly that repetition and nothing else
        if final.nonce not in (server_first.nonce, first.nonce + server_first.nonce):
            raise SaslAuthenticationException("Authentication failed: Invalid client nonce in the "
                                              "final client message.")
        if final.channel_binding != first.gs2_header.encode():
            raise SaslAuthenticationException("Authentication failed: Invalid channel binding in the "
                                              "final client message.")
        message = auth_message(first.bare, server_first.text, final.without_proof)
        computed = self.formatter.stored_key_from_proof(final.proof, credential.stored_key, message)
        if not hmac.compare_digest(computed, credential.stored_key):
            raise SaslAuthenticationException("Authentication failed: Invalid client credentials")
        self.authorization_id = first.username
        self.state = COMPLETE
        return ServerFinalMessage.format(self.formatter.server_signature(credential.server_key,
                                                                         message)).encode()
