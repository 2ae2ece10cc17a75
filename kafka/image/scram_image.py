"""ScramImage: every user's SCRAM credentials, per mechanism (Kafka's image.ScramImage with its
ScramCredentialData).

Built from UserScramCredentialRecords (set) and RemoveUserScramCredentialRecords (delete). It holds
what a server needs to check a login -- salt, StoredKey, ServerKey, iterations -- and nothing a
client could log in with. Brokers answer DescribeUserScramCredentials from it (mechanism and
iterations only) and fill their CredentialCache from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import ApiMessageAndVersion, MetadataRecordType, record


@dataclass(frozen=True)
class ScramCredentialData:
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    def __repr__(self) -> str:
        return f"ScramCredentialData(iterations={self.iterations})"


@dataclass(frozen=True)
class ScramImage:
    # mechanism type id (1 SCRAM-SHA-256, 2 SCRAM-SHA-512) -> user name -> credential
    mechanisms: dict[int, dict[str, ScramCredentialData]] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return not any(self.mechanisms.values())

    def write(self) -> list[ApiMessageAndVersion]:
        return [record(MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD, name=user, mechanism=mechanism,
                       salt=c.salt, stored_key=c.stored_key, server_key=c.server_key, iterations=c.iterations)
                for mechanism, users in sorted(self.mechanisms.items()) for user, c in sorted(users.items())]

    def describe(self, users: list[str] | None) -> list[dict]:
        """DescribeUserScramCredentials' results: every user with a credential when `users` is None or
        empty, else each named user, RESOURCE_NOT_FOUND for one without any, DUPLICATE_RESOURCE for
        one named twice (Kafka's ScramImage.describe)."""
        infos: dict[str, list[dict]] = {}
        for mechanism, by_user in sorted(self.mechanisms.items()):
            for user, c in by_user.items():
                infos.setdefault(user, []).append(dict(mechanism=mechanism, iterations=c.iterations))
        if not users:
            return [dict(user=u, error_code=Errors.NONE, error_message=None, credential_infos=i)
                    for u, i in sorted(infos.items())]
        results, seen = [], set()
        duplicates = {u for u in users if users.count(u) > 1}
        for user in users:
            if user in seen:
                continue
            seen.add(user)
            if user in duplicates:
                results.append(dict(user=user, error_code=Errors.DUPLICATE_RESOURCE,
                                    error_message="Cannot describe SCRAM credentials for the same user "
                                                  f"twice in a single request: {user}", credential_infos=[]))
            elif user not in infos:
                results.append(dict(user=user, error_code=Errors.RESOURCE_NOT_FOUND,
                                    error_message="Attempt to describe a user credential that does "
                                                  f"not exist: {user}", credential_infos=[]))
            else:
                results.append(dict(user=user, error_code=Errors.NONE, error_message=None,
                                    credential_infos=infos[user]))
        return results
