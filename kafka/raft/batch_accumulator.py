"""BatchAccumulator: the leader's records waiting for their batch
(Kafka's org.apache.kafka.raft.internals.BatchAccumulator).

One accumulator a leadership: the LeaderState of epoch E owns one that starts at E's first offset.
It is where the two threads meet. The controller's thread appends (KafkaRaftClient.schedule_append)
and gets at once the offset its last record will have; the raft thread drains what waits and
writes it to the log. The small append lock guards the offsets and the waiting records only; the
raft thread takes the batches out under it and writes and flushes them after letting go, so an
append never waits for the disk, and a slow fsync delays the commit, not the controller.

Records wait until controller.quorum.append.linger.ms has passed since the first of them, then go
to the log together: one write and one flush for all that a burst of controller events decided.
A batch is closed when the next append would take it past the metadata log's max.message.bytes
(an append is never split), and at most MAX_NUMBER_OF_BATCHES closed batches may wait: past that
append fails, as Kafka's does, rather than grow while the disk is stuck.

Control records the leader writes mid-epoch (a VotersRecord, KIP-853) take their offset here too
(append_control_batch), after everything already promised, so no promised offset ever moves.

Nothing here is in the log yet, so nothing here can be committed: when the leadership ends, the
QuorumState closes its LeaderState and with it this accumulator; what waited is dropped, later
appends fail with NotLeaderError, and the controller that scheduled them learns of the new leader
and fails whoever waits for those offsets.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from kafka.protocol.record_batch import DefaultRecord, build_batch, iter_batches
from kafka.raft.batch import NotLeaderError

MAX_BATCH_SIZE_BYTES = 1024 * 1024  # within the metadata log's max.message.bytes (Kafka's default, 1048588)
MAX_NUMBER_OF_BATCHES = 10  # Kafka's KafkaRaftClient.MAX_NUMBER_OF_BATCHES
_BATCH_OVERHEAD_BYTES = 61  # a v2 batch's header
_RECORD_FRAMING_BYTES = 20  # at most, around a record's value: length, attributes, deltas, no key, no headers


class BatchAccumulatorFullError(Exception):
    """MAX_NUMBER_OF_BATCHES batches already wait for the raft thread (Kafka's IllegalStateException)."""


@dataclass(frozen=True)
class CompletedBatch:
    """A batch ready for the log (Kafka's BatchAccumulator.CompletedBatch): it must land at base_offset."""
    base_offset: int
    num_records: int
    data: bytes


@dataclass
class _OpenBatch:
    base_offset: int
    values: list[bytes] = field(default_factory=list)
    size_bytes: int = _BATCH_OVERHEAD_BYTES
    control: bytes | None = None  # a control batch, encoded when its offset was given

    def complete(self, now: int) -> CompletedBatch:
        if self.control is not None:
            count = next(iter_batches(self.control)).records_count
            return CompletedBatch(self.base_offset, count, self.control)
        records = [DefaultRecord(i, now, None, value) for i, value in enumerate(self.values)]
        return CompletedBatch(self.base_offset, len(self.values), build_batch(records, timestamp=now))


class BatchAccumulator:
    def __init__(self, epoch: int, base_offset: int, linger_ms: int) -> None:
        self.epoch = epoch
        self.linger_ms = linger_ms
        self._append_lock = threading.Lock()  # guards the fields below; nothing under it touches a file
        self._next_offset = base_offset
        self._current: _OpenBatch | None = None
        self._completed: list[_OpenBatch] = []
        self._drain_deadline_ms: int | None = None  # linger.ms after the first record waiting
        self._closed = False

    # ------------------------------------------------------------------ any thread
    def append(self, epoch: int, records: list[bytes], now: int) -> int:
        """Queue records for the log; the offset the last one will have (Kafka's append)."""
        if epoch < self.epoch:
            raise NotLeaderError(f"append at epoch {epoch}, but this leadership is epoch {self.epoch}")
        if epoch > self.epoch:
            raise ValueError(f"append at epoch {epoch}, larger than this leadership's epoch {self.epoch}")
        size = sum(len(value) + _RECORD_FRAMING_BYTES for value in records)
        with self._append_lock:
            if self._closed:
                raise NotLeaderError(f"the leadership of epoch {self.epoch} has ended")
            if not records:
                return self._next_offset - 1
            current = self._current
            if current is not None and current.size_bytes + size > MAX_BATCH_SIZE_BYTES:
                self._complete_current()
            if len(self._completed) >= MAX_NUMBER_OF_BATCHES:
                raise BatchAccumulatorFullError(
                    f"{len(self._completed)} batches already wait for the metadata log (epoch {self.epoch})")
            if self._current is None:
                self._current = _OpenBatch(self._next_offset)
            self._current.values.extend(records)
            self._current.size_bytes += size
            self._next_offset += len(records)
            if self._drain_deadline_ms is None:
                self._drain_deadline_ms = now + self.linger_ms
            return self._next_offset - 1

    def next_offset(self) -> int:
        """The offset the next appended record will get: the log end plus everything waiting here."""
        with self._append_lock:
            return self._next_offset

    # ------------------------------------------------------------------ the raft thread
    def append_control_batch(self, build: Callable[[int], bytes], now: int) -> int:
        """A control batch after everything promised so far (Kafka's appendControlMessages):
        `build(base_offset)` encodes it (a small batch: the encoding is all that runs under the
        lock). Drains at once; the offset of its last record."""
        with self._append_lock:
            if self._closed:
                raise NotLeaderError(f"the leadership of epoch {self.epoch} has ended")
            self._complete_current()
            data = build(self._next_offset)
            batch = _OpenBatch(self._next_offset, control=data)
            self._completed.append(batch)
            self._next_offset += next(iter_batches(data)).records_count
            self._drain_deadline_ms = now
            return self._next_offset - 1

    def drain_deadline_ms(self) -> int | None:
        with self._append_lock:
            return self._drain_deadline_ms

    def needs_drain(self, now: int) -> bool:
        with self._append_lock:
            return self._drain_deadline_ms is not None and now >= self._drain_deadline_ms

    def drain(self, now: int) -> list[CompletedBatch]:
        """Everything waiting, as batches in offset order, for the caller to write (after the lock
        is let go)."""
        with self._append_lock:
            self._complete_current()
            waiting, self._completed = self._completed, []
            self._drain_deadline_ms = None
        return [batch.complete(now) for batch in waiting]

    def close(self) -> None:
        """The leadership is over: drop what waits; appends fail from now on."""
        with self._append_lock:
            self._closed = True
            self._current, self._completed, self._drain_deadline_ms = None, [], None

    def _complete_current(self) -> None:  # the caller holds the append lock
        if self._current is not None:
            self._completed.append(self._current)
            self._current = None
