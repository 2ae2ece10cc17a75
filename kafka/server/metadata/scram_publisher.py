"""ScramPublisher: SCRAM credentials from the metadata log to the network threads (Kafka's
kafka.server.metadata.ScramPublisher).

A metadata publisher on every node, broker or controller: each committed image whose ScramImage
changed replaces what the CredentialCache holds, so a user added with kafka-configs (or by
kafka-storage format --add-scram) can log in once its record reaches this node, and a deleted one
cannot start a new login. It also keeps the image DescribeUserScramCredentials is answered from.
"""

from __future__ import annotations

import structlog

from kafka.image.scram_image import ScramImage
from kafka.security.credential_cache import CredentialCache
from kafka.security.scram_credential import ScramCredential
from kafka.security.scram_mechanism import ScramMechanism

log = structlog.get_logger("kafka.server.metadata.ScramPublisher")


class ScramPublisher:
    def __init__(self, credential_cache: CredentialCache) -> None:
        self.credential_cache = credential_cache
        self.image = ScramImage()

    def name(self) -> str:
        return "ScramPublisher"

    def on_metadata_update(self, delta, image, manifest=None) -> None:
        if getattr(delta, "scram_delta", None) is None and image.scram is self.image:
            return
        self.image = image.scram
        credentials = {}
        for type_id, users in self.image.mechanisms.items():
            mechanism = ScramMechanism.from_type(type_id)
            if mechanism is not None:
                credentials[mechanism.mechanism_name] = {
                    user: ScramCredential(c.salt, c.stored_key, c.server_key, c.iterations)
                    for user, c in users.items()}
        self.credential_cache.replace_all(credentials)
        log.info("SCRAM credentials updated", users={m: sorted(u) for m, u in credentials.items()})

    def close(self) -> None:
        pass
