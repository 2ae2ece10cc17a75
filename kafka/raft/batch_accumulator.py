"""BatchAccumulator: the leader's records waiting for their batch (Kafka's org.apache.kafka.raft.internals.BatchAccumulator).

schedule_append answers at once with the offsets the records will have; the records wait here until
controller.quorum.append.linger.ms has passed since the first of them, and then go to the log as one
batch: one write and one flush for all that a burst of controller events decided, not one each.
Nothing here is in the log yet, so nothing here can be committed: a leader that loses its
leadership drops it all (close), and the controller that scheduled it learns of the new leader and
fails whoever waits for those offsets.
"""

from __future__ import annotations

from kafka.protocol.record_batch import DefaultRecord, build_batch


class BatchAccumulator:
    def __init__(self, linger_ms: int) -> None:
        self.linger_ms = linger_ms
        self._records: list[bytes] = []
        self._drain_deadline_ms: int | None = None  # linger.ms after the first record waiting

    def __len__(self) -> int:
        return len(self._records)

    def append(self, records: list[bytes], now: int) -> None:
        if records and self._drain_deadline_ms is None:
            self._drain_deadline_ms = now + self.linger_ms
        self._records.extend(records)

    def drain_deadline_ms(self) -> int | None:
        return self._drain_deadline_ms

    def needs_drain(self, now: int) -> bool:
        return self._drain_deadline_ms is not None and now >= self._drain_deadline_ms

    def drain(self, now: int) -> bytes | None:
        """Everything waiting, as one batch (None when nothing waits)."""
        records = self._records
        self.close()
        if not records:
            return None
        return build_batch([DefaultRecord(i, now, None, value) for i, value in enumerate(records)], timestamp=now)

    def close(self) -> None:
        self._records, self._drain_deadline_ms = [], None
