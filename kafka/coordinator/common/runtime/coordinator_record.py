"""CoordinatorRecord and CoordinatorRecordSerde (Kafka's CoordinatorRecord, and the Serializer and
Deserializer pair CoordinatorRecordSerde implements).

A coordinator's state changes only by records: a key, and a value or None (a tombstone, which deletes
the key when the topic is compacted). The shard replays them as they are written and when its partition
is loaded again, so one replay function builds the state both times.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class CoordinatorRecord:
    key: object
    value: object | None  # None: a tombstone


class CoordinatorRecordSerde(Protocol):
    def serialize_key(self, record: CoordinatorRecord) -> bytes: ...

    def serialize_value(self, record: CoordinatorRecord) -> bytes | None: ...

    def deserialize(self, key: bytes, value: bytes | None) -> CoordinatorRecord | None:
        """The record, or None for a record type this coordinator does not know: the loader skips it
        (Kafka's UnknownRecordTypeException, "a left over from an aborted upgrade")."""
        ...
