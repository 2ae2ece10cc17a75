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
    if not name:
        raise InvalidTopicError("Topic name is invalid: the empty string is not allowed")
    if name in (".", ".."):
        raise InvalidTopicError(f"Topic name is invalid: '{name}' is not allowed")
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidTopicError(f"Topic name is invalid: the length of '{name}' is longer than the max "
                                f"allowed length {MAX_NAME_LENGTH}")
    if not _LEGAL_CHARS.match(name):
        raise InvalidTopicError(f"Topic name is invalid: '{name}' contains one or more characters other than "
                                "ASCII alphanumerics, '.', '_' and '-'")
