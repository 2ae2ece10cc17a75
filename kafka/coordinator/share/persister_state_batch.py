"""PersisterStateBatch: a run of offsets of a share partition in one delivery state (Kafka's
org.apache.kafka.server.share.persister.PersisterStateBatch).

A share partition's leader keeps, for each in-flight record, its delivery state and how many times
it was delivered. Consecutive offsets alike are one batch: [first_offset, last_offset] with one
state and one count. This is what the leader writes to the share coordinator and reads back after a
failover. The state is a RecordState id: 0 AVAILABLE, 2 ACKNOWLEDGED, 4 ARCHIVED (1 ACQUIRED is held
by a consumer for a while and never persisted; it is written as AVAILABLE).
"""

from __future__ import annotations

from dataclasses import dataclass

AVAILABLE = 0
ACKNOWLEDGED = 2
ARCHIVED = 4


@dataclass(frozen=True)
class PersisterStateBatch:
    first_offset: int
    last_offset: int
    delivery_state: int
    delivery_count: int

    @classmethod
    def from_record(cls, batch) -> PersisterStateBatch:
        """From a StateBatch of a request, a response or a record (anything with the four fields)."""
        return cls(batch.first_offset, batch.last_offset, batch.delivery_state, batch.delivery_count)

    def to_fields(self) -> dict:
        return dict(first_offset=self.first_offset, last_offset=self.last_offset,
                    delivery_state=self.delivery_state, delivery_count=self.delivery_count)
