"""Kafka's org.apache.kafka.common.Uuid, the string side: ids such as a cluster id or a topic id.

Kafka writes a Uuid as its 16 bytes in URL-safe base64 without padding, 22 characters.
`Uuid.randomUuid()` draws again when the string would begin with '-', so that an id can
always be passed on a command line (`kafka-storage format -t <id>`) without being read as a flag.
"""

from __future__ import annotations

import base64
import uuid


def uuid_to_string(value: uuid.UUID) -> str:
    return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")


def random_uuid() -> str:
    """Uuid.randomUuid().toString(): a random id whose string form never starts with '-'."""
    while True:
        text = uuid_to_string(uuid.uuid4())
        if not text.startswith("-"):
            return text


def uuid_from_string(text: str) -> uuid.UUID:
    """Uuid.fromString: the 22 characters back to the id (ValueError if they are not 16 bytes)."""
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if len(raw) != 16:
        raise ValueError(f"Unable to convert {text} to a Uuid")
    return uuid.UUID(bytes=raw)
