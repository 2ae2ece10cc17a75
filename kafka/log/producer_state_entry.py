"""ProducerStateEntry and BatchMetadata: what a partition remembers of one idempotent producer (Kafka's
org.apache.kafka.storage.internals.log.ProducerStateEntry and BatchMetadata, KIP-98).

Seed 004, Write Path: "Duplicate data can be written if replication is done but the Produce Response
does not reach the producer (which retries). This is why using idempotency operations is important."
An idempotent producer stamps every batch with (producer id, producer epoch, base sequence). Per
producer id the partition keeps the epoch and the metadata of its last five batches: five is the most
a producer may have in flight (max.in.flight.requests.per.connection <= 5), so any retry it sends is
one of them, and is answered with the offsets it was first given.

Sequences are int32 and wrap from 2147483647 to 0 (Kafka's DefaultRecordBatch.incrementSequence).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from kafka.protocol.record_batch import NO_TIMESTAMP, RecordBatch

NUM_BATCHES_TO_RETAIN = 5
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
INT32_MAX = 2**31 - 1


def increment_sequence(sequence: int, increment: int) -> int:
    """`sequence + increment`, wrapping past INT32_MAX to 0."""
    if sequence > INT32_MAX - increment:
        return increment - (INT32_MAX - sequence) - 1
    return sequence + increment


def decrement_sequence(sequence: int, decrement: int) -> int:
    """`sequence - decrement`, wrapping below 0 to INT32_MAX."""
    if sequence < decrement:
        return INT32_MAX - (decrement - sequence) + 1
    return sequence - decrement


def last_sequence(batch: RecordBatch) -> int:
    """The sequence of the batch's last record (Kafka's RecordBatch.lastSequence)."""
    if batch.base_sequence == NO_SEQUENCE:
        return NO_SEQUENCE
    return increment_sequence(batch.base_sequence, batch.last_offset_delta)


@dataclass(frozen=True, slots=True)
class BatchMetadata:
    """One appended batch, as much as a retry needs to be recognised and answered."""

    last_seq: int
    last_offset: int
    offset_delta: int  # last offset - first offset (and last sequence - first sequence)
    timestamp: int  # the batch's max timestamp: the log append time on a LogAppendTime topic

    @property
    def first_seq(self) -> int:
        return decrement_sequence(self.last_seq, self.offset_delta)

    @property
    def first_offset(self) -> int:
        return self.last_offset - self.offset_delta


class ProducerStateEntry:
    """One producer id's epoch and last batches, oldest first.

    `coordinator_epoch` and `current_txn_first_offset` belong to transactions (the coordinator's
    epoch of the last marker; the first offset of a transaction still open): stored in snapshots
    with Kafka's defaults, -1 and None, and not acted on yet."""

    __slots__ = ("producer_id", "producer_epoch", "coordinator_epoch", "last_timestamp",
                 "current_txn_first_offset", "batch_metadata")

    def __init__(self, producer_id: int, producer_epoch: int = NO_PRODUCER_EPOCH, coordinator_epoch: int = -1,
                 last_timestamp: int = NO_TIMESTAMP, current_txn_first_offset: int | None = None,
                 batch_metadata: BatchMetadata | None = None) -> None:
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.coordinator_epoch = coordinator_epoch
        self.last_timestamp = last_timestamp
        self.current_txn_first_offset = current_txn_first_offset
        self.batch_metadata: deque[BatchMetadata] = deque(maxlen=NUM_BATCHES_TO_RETAIN)
        if batch_metadata is not None:
            self.batch_metadata.append(batch_metadata)

    @classmethod
    def empty(cls, producer_id: int) -> ProducerStateEntry:
        """A producer this partition knows nothing of: no epoch, no batches."""
        return cls(producer_id)

    def with_producer_id_and_batch_metadata(self, producer_id: int,
                                            batch_metadata: BatchMetadata | None) -> ProducerStateEntry:
        """A copy with the same epochs, timestamp and transaction, and only `batch_metadata`:
        what a ProducerAppendInfo fills with one append's batches."""
        return ProducerStateEntry(producer_id, self.producer_epoch, self.coordinator_epoch,
                                  self.last_timestamp,
                                  self.current_txn_first_offset, batch_metadata)

    def copy(self) -> ProducerStateEntry:
        """A copy to hand to another thread: the partition's entry changes under the log's lock."""
        entry = self.with_producer_id_and_batch_metadata(self.producer_id, None)
        entry.batch_metadata.extend(self.batch_metadata)
        return entry

    # ------------------------------------------------------------------------------ the last batch

    @property
    def is_empty(self) -> bool:
        return not self.batch_metadata

    @property
    def first_seq(self) -> int:
        return self.batch_metadata[0].first_seq if self.batch_metadata else NO_SEQUENCE

    @property
    def last_seq(self) -> int:
        return self.batch_metadata[-1].last_seq if self.batch_metadata else NO_SEQUENCE

    @property
    def first_data_offset(self) -> int:
        return self.batch_metadata[0].first_offset if self.batch_metadata else -1

    @property
    def last_data_offset(self) -> int:
        return self.batch_metadata[-1].last_offset if self.batch_metadata else -1

    @property
    def last_offset_delta(self) -> int:
        return self.batch_metadata[-1].offset_delta if self.batch_metadata else 0

    # ------------------------------------------------------------------------------ changes

    def add_batch(self, producer_epoch: int, last_seq: int, last_offset: int, offset_delta: int,
                  timestamp: int) -> None:
        """Remember one more batch; the deque drops the oldest beyond five."""
        self.maybe_update_producer_epoch(producer_epoch)
        self.batch_metadata.append(BatchMetadata(last_seq, last_offset, offset_delta, timestamp))
        self.last_timestamp = timestamp

    def maybe_update_producer_epoch(self, producer_epoch: int) -> bool:
        """A new epoch starts the producer over: the old epoch's batches can no longer be retried."""
        if self.producer_epoch == producer_epoch:
            return False
        self.batch_metadata.clear()
        self.producer_epoch = producer_epoch
        return True

    def update(self, next_entry: ProducerStateEntry) -> None:
        """Take in what one append (`next_entry`, from ProducerAppendInfo) added."""
        self.maybe_update_producer_epoch(next_entry.producer_epoch)
        self.batch_metadata.extend(next_entry.batch_metadata)
        self.coordinator_epoch = next_entry.coordinator_epoch
        self.current_txn_first_offset = next_entry.current_txn_first_offset
        self.last_timestamp = next_entry.last_timestamp

    # ------------------------------------------------------------------------------ retries

    def find_duplicate_batch(self, batch: RecordBatch) -> BatchMetadata | None:
        """The remembered batch this one repeats (same epoch, same first and last sequence), if any."""
        if batch.producer_epoch != self.producer_epoch:
            return None
        return self.batch_with_sequence_range(batch.base_sequence, last_sequence(batch))

    def batch_with_sequence_range(self, first_seq: int, last_seq: int) -> BatchMetadata | None:
        for metadata in self.batch_metadata:
            if metadata.first_seq == first_seq and metadata.last_seq == last_seq:
                return metadata
        return None

    def __repr__(self) -> str:
        return (f"ProducerStateEntry(producer_id={self.producer_id}, producer_epoch={self.producer_epoch}, "
                f"current_txn_first_offset={self.current_txn_first_offset}, "
                f"coordinator_epoch={self.coordinator_epoch}, last_timestamp={self.last_timestamp}, "
                f"batch_metadata={list(self.batch_metadata)})")
