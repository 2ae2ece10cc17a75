"""ScramSaslClient: the client half of SCRAM (Kafka's common.security.scram.internals.ScramSaslClient).

    initial response  n,,n=user,r=client-nonce
    server-first      -> check it extends our nonce, iterations >= 4096 -> client-final with the proof
    server-final      -> check the server's signature: the server knew our credential too

Used by the broker's own clients (SaslClientAuthenticator) and by tests. Raises
SaslAuthenticationException when the server's answers do not hold together.
"""

from __future__ import annotations

import base64
import hmac

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

_GS2_HEADER = "n,,"


class ScramSaslClient:
    def __init__(self, mechanism: ScramMechanism, username: str, password: str,
                 nonce: str | None = None) -> None:
        self.mechanism = mechanism.mechanism_name
        self.formatter = ScramFormatter(mechanism)
        self.username, self.password = username, password
        self.nonce = nonce or secure_nonce()
        self._first_bare = ""
        self._server_signature = b""
        self.is_complete = False
        self._step = 0

    def evaluate_challenge(self, challenge: bytes) -> bytes | None:
        """The next token to send; None once the exchange is over."""
        try:
            self._step += 1
            if self._step == 1:
                first = ClientFirstMessage.format(self.username, self.nonce)
                self._first_bare = first[len(_GS2_HEADER):]
                return first.encode()
            if self._step == 2:
                return self._client_final(ServerFirstMessage.parse(challenge))
            if self._step == 3:
                self._check_server_final(ServerFinalMessage.parse(challenge))
                return None
        except ScramFormatError as e:
            raise SaslAuthenticationException(str(e)) from None
        raise SaslAuthenticationException("SCRAM exchange already complete")

    def _client_final(self, server_first: ServerFirstMessage) -> bytes:
        if not server_first.nonce.startswith(self.nonce) or server_first.nonce == self.nonce:
            raise SaslAuthenticationException("Invalid server nonce: it does not extend the client nonce")
        if server_first.iterations < MIN_ITERATIONS:
            raise SaslAuthenticationException(f"Requested iterations {server_first.iterations} is less than "
                                              f"the minimum {MIN_ITERATIONS} for {self.mechanism}")
        salted = self.formatter.salted_password(self.password, server_first.salt, server_first.iterations)
        without_proof = ClientFinalMessage.format_without_proof(_GS2_HEADER, server_first.nonce)
        message = auth_message(self._first_bare, server_first.text, without_proof)
        proof = self.formatter.client_proof(salted, message)
        self._server_signature = self.formatter.server_signature(self.formatter.server_key(salted), message)
        return f"{without_proof},p={base64.b64encode(proof).decode()}".encode()

    def _check_server_final(self, final: ServerFinalMessage) -> None:
        if final.error is not None:
            raise SaslAuthenticationException(f"Sasl authentication using {self.mechanism} failed with "
                                              f"error: {final.error}")
        if not hmac.compare_digest(final.signature, self._server_signature):
            raise SaslAuthenticationException("Invalid server signature in server final message")
        self.is_complete = True
