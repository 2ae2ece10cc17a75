"""CredentialCache: the SCRAM credentials the broker checks logins against (Kafka's
common.security.authenticator.CredentialCache).

One map per mechanism, user name -> ScramCredential. The metadata log fills it (ScramPublisher
replays UserScramCredentialRecords), so a user added with kafka-configs can log in on every node
once the record is committed and reached it. Read by the network threads, replaced whole by the
metadata thread: a lookup never sees half an update.
"""

from __future__ import annotations

from collections.abc import Mapping

from kafka.security.scram_credential import ScramCredential


class CredentialCache:
    def __init__(self) -> None:
        self._credentials: dict[str, dict[str, ScramCredential]] = {}

    def get(self, mechanism: str, username: str) -> ScramCredential | None:
        return self._credentials.get(mechanism, {}).get(username)

    def update(self, mechanism: str, username: str, credential: ScramCredential | None) -> None:
        users = dict(self._credentials.get(mechanism, {}))
        if credential is None:
            users.pop(username, None)
        else:
            users[username] = credential
        self._credentials = {**self._credentials, mechanism: users}

    def replace_all(self, credentials: Mapping[str, Mapping[str, ScramCredential]]) -> None:
        self._credentials = {mechanism: dict(users) for mechanism, users in credentials.items()}

    def users(self, mechanism: str) -> list[str]:
        return sorted(self._credentials.get(mechanism, {}))
