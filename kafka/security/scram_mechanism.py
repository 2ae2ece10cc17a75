"""ScramMechanism: SCRAM-SHA-256 and SCRAM-SHA-512 (Kafka's common.security.scram.internals.ScramMechanism,
with the ids of clients.admin.ScramMechanism that AlterUserScramCredentials and the metadata log use).

Each mechanism is a hash: SHA-256 (RFC 7677) or SHA-512. Kafka accepts 4096 to 16384 iterations.
"""

from __future__ import annotations

from enum import Enum

MIN_ITERATIONS, MAX_ITERATIONS = 4096, 16384


class ScramMechanism(Enum):
    SCRAM_SHA_256 = ("SCRAM-SHA-256", "sha256", 1)
    SCRAM_SHA_512 = ("SCRAM-SHA-512", "sha512", 2)

    def __init__(self, mechanism_name: str, hash_name: str, type_id: int) -> None:
        self.mechanism_name = mechanism_name
        self.hash_name = hash_name
        self.type_id = type_id

    @classmethod
    def for_name(cls, name: str) -> ScramMechanism | None:
        return next((m for m in cls if m.mechanism_name == name), None)

    @classmethod
    def from_type(cls, type_id: int) -> ScramMechanism | None:
        return next((m for m in cls if m.type_id == type_id), None)


MECHANISM_NAMES = [m.mechanism_name for m in ScramMechanism]
