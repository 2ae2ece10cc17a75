"""ControllerResult: what a controller operation decided
(Kafka's org.apache.kafka.controller.ControllerResult).

The records to append to the metadata log, and the response to send once they are committed. An
operation that changes nothing returns no records, and its response goes out at once. An operation
whose records are too many (MAX_RECORDS_PER_USER_OP) or too large for one batch of the metadata log
is refused as a whole: its response with POLICY_VIOLATION everywhere (with_error), nothing written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import ApiMessageAndVersion, serialize

# Kafka's QuorumController.MAX_RECORDS_PER_USER_OP: the records one admin request may write.
MAX_RECORDS_PER_USER_OP = 10_000
EXCESSIVE_BATCH_MESSAGE = "Unable to perform excessively large batch operation."
# One admin request's records go into one batch of the metadata log, whose max.message.bytes is
# Kafka's default (1 MiB); a batch over it would fail in the raft thread after the records were
# replayed here, leaving the controller believing what the quorum never wrote. Each record costs its
# value and at most this much framing inside the batch.
MAX_BATCH_BYTES = 1024 * 1024 - 100
_RECORD_FRAMING_BYTES = 16
SHUTTING_DOWN_MESSAGE = "The controller is shutting down."


@dataclass
class ControllerResult:
    records: list[ApiMessageAndVersion] = field(default_factory=list)
    response: Any = None


def with_error(response, error: Errors, message: str | None = None) -> object:
    """The same response with `error` in every error_code (and `message` in every error_message):
    how a request refused as a whole is answered, item by item."""
    if isinstance(response, dict):
        out = {}
        for key, value in response.items():
            if key == "error_code":
                out[key] = error
            elif key == "error_message" and message is not None:
                out[key] = message
            elif isinstance(value, list):
                out[key] = [with_error(v, error, message) for v in value]
            else:
                out[key] = value
        return out
    return response


def bounded_batch(records: list[ApiMessageAndVersion]) -> list[bytes] | None:
    """The records serialized, or None when they break MAX_RECORDS_PER_USER_OP or MAX_BATCH_BYTES."""
    if len(records) > MAX_RECORDS_PER_USER_OP:
        return None
    serialized, size = [], 0
    for r in records:
        value = serialize(r)
        size += len(value) + _RECORD_FRAMING_BYTES
        if size > MAX_BATCH_BYTES:
            return None
        serialized.append(value)
    return serialized
