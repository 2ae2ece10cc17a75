"""ScramFormatter: SCRAM's arithmetic (Kafka's common.security.scram.internals.ScramFormatter; RFC 5802 s3).

    SaltedPassword  = Hi(password, salt, i)          PBKDF2 with HMAC-H
    ClientKey       = HMAC(SaltedPassword, "Client Key")
    StoredKey       = H(ClientKey)
    ServerKey       = HMAC(SaltedPassword, "Server Key")
    AuthMessage     = client-first-bare "," server-first "," client-final-without-proof
    ClientProof     = ClientKey XOR HMAC(StoredKey, AuthMessage)
    ServerSignature = HMAC(ServerKey, AuthMessage)

The server checks a proof by recovering ClientKey = ClientProof XOR HMAC(StoredKey, AuthMessage)
and comparing H(ClientKey) with the StoredKey it keeps.
"""

from __future__ import annotations

import hashlib
import hmac as _hmac
import secrets

from kafka.security.scram_credential import ScramCredential
from kafka.security.scram_mechanism import ScramMechanism


class ScramFormatter:
    def __init__(self, mechanism: ScramMechanism) -> None:
        self.mechanism = mechanism
        self.hash_name = mechanism.hash_name

    def hmac(self, key: bytes, message: bytes) -> bytes:
        return _hmac.new(key, message, self.hash_name).digest()

    def hash(self, data: bytes) -> bytes:
        return hashlib.new(self.hash_name, data).digest()

    def hi(self, password: bytes, salt: bytes, iterations: int) -> bytes:
        return hashlib.pbkdf2_hmac(self.hash_name, password, salt, iterations)

    def salted_password(self, password: str, salt: bytes, iterations: int) -> bytes:
        return self.hi(password.encode("utf-8"), salt, iterations)

    def client_key(self, salted_password: bytes) -> bytes:
        return self.hmac(salted_password, b"Client Key")

    def stored_key(self, client_key: bytes) -> bytes:
        return self.hash(client_key)

    def server_key(self, salted_password: bytes) -> bytes:
        return self.hmac(salted_password, b"Server Key")

    def client_signature(self, stored_key: bytes, auth_message: bytes) -> bytes:
        return self.hmac(stored_key, auth_message)

    def client_proof(self, salted_password: bytes, auth_message: bytes) -> bytes:
        client_key = self.client_key(salted_password)
        return xor(client_key, self.client_signature(self.stored_key(client_key), auth_message))

    def server_signature(self, server_key: bytes, auth_message: bytes) -> bytes:
        return self.hmac(server_key, auth_message)

    def stored_key_from_proof(self, proof: bytes, stored_key: bytes, auth_message: bytes) -> bytes:
        """H(ClientProof XOR ClientSignature): equals the kept StoredKey only for the right password."""
        signature = self.client_signature(stored_key, auth_message)
        if len(proof) != len(signature):
            return b""
        return self.hash(xor(proof, signature))

    def credential_from_salted(self, salt: bytes, salted_password: bytes, iterations: int) -> ScramCredential:
        return ScramCredential(salt, self.stored_key(self.client_key(salted_password)),
                               self.server_key(salted_password), iterations)

    def generate_credential(self, password: str, iterations: int,
                            salt: bytes | None = None) -> ScramCredential:
        salt = salt if salt is not None else secret_salt()
        return self.credential_from_salted(salt, self.salted_password(password, salt, iterations), iterations)


def xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b, strict=True))


def secret_salt() -> bytes:
    return secrets.token_bytes(32)


def secure_nonce() -> str:
    """A printable nonce without commas (RFC 5802's `printable`): URL-safe base64 of 24 random bytes."""
    return secrets.token_urlsafe(24)


def auth_message(client_first_bare: str, server_first: str, client_final_without_proof: str) -> bytes:
    return f"{client_first_bare},{server_first},{client_final_without_proof}".encode()
