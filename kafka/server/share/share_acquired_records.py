"""AcquiredRecords and ShareAcquiredRecords: what one acquire handed a member (Kafka's
ShareFetchResponseData.AcquiredRecords and org.apache.kafka.server.share.fetch.ShareAcquiredRecords).

Each AcquiredRecords is a run of offsets the member now holds, with its delivery count (1 the first
time); the ShareFetch response carries them beside the record batches, so the consumer knows which
of the records it received are its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class AcquiredRecords:
    first_offset: int
    last_offset: int
    delivery_count: int

    def to_wire(self) -> dict:
        return dict(first_offset=self.first_offset, last_offset=self.last_offset,
                    delivery_count=self.delivery_count)


@dataclass(frozen=True)
class ShareAcquiredRecords:
    acquired_records: list[AcquiredRecords] = field(default_factory=list)
    count: int = 0  # records acquired, summed over the runs


def accumulate_acquired_records(result: list[AcquiredRecords], acquired: list[AcquiredRecords]) -> None:
    """Join adjacent single offsets with one delivery count into runs (Kafka's accumulateAcquiredRecords)."""
    run: AcquiredRecords | None = None
    for current in acquired:
        if (run is not None and current.first_offset == run.last_offset + 1
                and current.delivery_count == run.delivery_count):
            run = AcquiredRecords(run.first_offset, current.last_offset, run.delivery_count)
            continue
        if run is not None:
            result.append(run)
        run = current
    if run is not None:
        result.append(run)
