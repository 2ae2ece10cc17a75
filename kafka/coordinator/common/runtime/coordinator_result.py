"""CoordinatorResult: what a write operation returns (Kafka's CoordinatorResult).

The records to write, the response to send once they commit, and two switches: replay_records=False
for an operation that has already changed its state itself (Kafka uses it for nothing in the group
coordinator today), and is_atomic=False for records that may be split over several batches (here every
write is one batch, so it changes nothing; it is kept so the API is Kafka's). append_future, when given,
is completed with None when the records commit, or failed with the same error as the write's future: an
operation that must do something after the write (send a response from another place, start a timer)
hangs it there.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from typing import Generic, TypeVar

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord

T = TypeVar("T")


@dataclass(frozen=True)
class CoordinatorResult(Generic[T]):
    records: list[CoordinatorRecord] | tuple[CoordinatorRecord, ...] = ()
    response: T = None
    append_future: Future | None = None
    replay_records: bool = True
    is_atomic: bool = True
