"""ScramCredential: what the broker keeps of a SCRAM user (Kafka's common.security.scram.ScramCredential).

RFC 5802's server-side record: the salt, StoredKey = H(HMAC(SaltedPassword, "Client Key")),
ServerKey = HMAC(SaltedPassword, "Server Key") and the iteration count. Neither the password nor the
salted password is kept: a stolen credential lets nobody log in as the user, though it lets a
thief pose as the server.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScramCredential:
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    def __repr__(self) -> str:  # keys are secrets of a kind: never in a log line
        return f"ScramCredential(iterations={self.iterations})"
