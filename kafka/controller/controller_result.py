"""ControllerResult: what a controller operation decided (Kafka's org.apache.kafka.controller.ControllerResult).

The records to append to the metadata log, and the response to send once they are committed. An
operation that changes nothing returns no records, and its response goes out at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kafka.protocol.metadata_records import ApiMessageAndVersion


@dataclass
class ControllerResult:
    records: list[ApiMessageAndVersion] = field(default_factory=list)
    response: Any = None
