"""Topic names: what any topic may be called (Kafka's org.apache.kafka.common.internals.Topic).

The rule lives below both the controller, which refuses a CreateTopics for an illegal name, and
the broker, which does not send an auto-creation for one: neither reaches into the other for it.
"""

from __future__ import annotations

import re

MAX_NAME_LENGTH = 249  # Kafka's Topic.MAX_NAME_LENGTH: a partition directory's name must fit in 255 bytes
_LEGAL_CHARS = re.compile(r"^[a-zA-Z0-9._-]+$")


class InvalidTopicError(ValueError):
    """A name no topic may have (Kafka's InvalidTopicException): INVALID_TOPIC_EXCEPTION."""


def validate(name: str) -> None:
    """Kafka's Topic.validate."""
    if not name or name in (".", ".."):
        raise InvalidTopicError(f"topic name {name!r} is illegal")
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidTopicError(f"topic name is longer than {MAX_NAME_LENGTH} characters")
    if not _LEGAL_CHARS.match(name):
        raise InvalidTopicError(f"topic name {name!r} may contain only ASCII letters, digits, '.', '_' and '-'")
