"""ProducerBatch: the records for one partition that will travel in one RecordBatch
(Kafka's producer.internals.ProducerBatch, FutureRecordMetadata and RecordMetadata).

Seed 002: "the producer will accumulate the records assigned to a given partition into batches.
Batching also provides for much more effective compression." A batch collects records until it
reaches ``batch.size``; the Sender then closes it into v2 RecordBatch bytes (compressed as a
whole) and, when the broker answers, completes every record's future with its offset.

An idempotent producer stamps the batch, when it is drained, with its producer id, epoch and the
partition's next sequence number (KIP-98). A retry sends the same bytes with the same sequence, so
a leader that already has the batch can tell (seed 004's duplicate on retry).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

import crc32c

from kafka.clients.producer.producer_id_and_epoch import NO_PRODUCER_EPOCH, NO_SEQUENCE, ProducerIdAndEpoch
from kafka.protocol.compression import CompressionType
from kafka.protocol.record_batch import (
    ATTRIBUTES_OFFSET,
    CRC_OFFSET,
    HEADER_SIZE,
    NO_PRODUCER_ID,
    TRANSACTIONAL_MASK,
    DefaultRecord,
    Header,
    build_batch,
)
from kafka.utils.topic_partition import TopicPartition

# A record's size in a v2 batch is a few varints plus its bytes; 21 covers the varints' worst case.
RECORD_OVERHEAD = 21


def estimate_size(key: bytes | None, value: bytes | None, headers: list[Header]) -> int:
    size = RECORD_OVERHEAD + len(key or b"") + len(value or b"")
    for h in headers:
        size += 10 + len(h.key) + len(h.value or b"")
    return size


@dataclass(frozen=True)
class RecordMetadata:
    """Where a record landed: what ``send()``'s future resolves to."""

    topic: str
    partition: int
    offset: int  # -1 with acks=0: the broker does not say
    timestamp: int
    serialized_key_size: int
    serialized_value_size: int

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


class FutureRecordMetadata(Future):
    """A concurrent.futures.Future of RecordMetadata; ``get(timeout)`` as in the Java client."""

    def get(self, timeout: float | None = None) -> RecordMetadata:
        return self.result(timeout)


class ProducerBatch:
    def __init__(self, tp: TopicPartition, compression: CompressionType, created_ms: int) -> None:
        self.topic_partition = tp
        self.compression = compression
        self.created_ms = created_ms
        self.last_attempt_ms = created_ms
        self.attempts = 0
        self.records: list[DefaultRecord] = []
        self.futures: list[tuple[FutureRecordMetadata, Callable | None]] = []
        self.estimated_size = HEADER_SIZE
        self.allocated = 0  # bytes taken from the BufferPool for this batch
        self.closed = False  # no more appends: it is being (or has been) sent
        self.producer_id = NO_PRODUCER_ID
        self.producer_epoch = NO_PRODUCER_EPOCH
        self.base_sequence = NO_SEQUENCE
        self.is_transactional = False
        self.reopened = False  # its sequence was rewritten after an epoch bump
        self._built: bytes | None = None

    @property
    def record_count(self) -> int:
        return len(self.records)

    def try_append(self, timestamp: int, key: bytes | None, value: bytes | None, headers: list[Header],
                   callback: Callable | None, batch_size: int) -> FutureRecordMetadata | None:
        """Add a record, or None if it does not fit (the first record always fits)."""
        size = estimate_size(key, value, headers)
        if self.closed or (self.records and self.estimated_size + size > batch_size):
            return None
        self.records.append(DefaultRecord(len(self.records), timestamp, key, value, headers))
        self.estimated_size += size
        future = FutureRecordMetadata()
        self.futures.append((future, callback))
        return future

    def is_full(self, batch_size: int) -> bool:
        return self.estimated_size >= batch_size

    # ------------------------------------------------------------------ idempotence (KIP-98)
    @property
    def has_sequence(self) -> bool:
        return self.base_sequence != NO_SEQUENCE

    @property
    def last_sequence(self) -> int:
        return increment_sequence(self.base_sequence, self.record_count - 1)

    def set_producer_state(self, producer_id_and_epoch: ProducerIdAndEpoch, base_sequence: int,
                           is_transactional: bool) -> None:
        """Number the batch; done once, when it is first drained."""
        self.producer_id, self.producer_epoch = producer_id_and_epoch
        self.base_sequence = base_sequence
        self.is_transactional = is_transactional

    def reset_producer_state(self, producer_id_and_epoch: ProducerIdAndEpoch, base_sequence: int,
                             is_transactional: bool) -> None:
        """Renumber a batch still in flight after an epoch bump: its next attempt starts the new
        epoch's sequences. The header and its CRC change, so the bytes are built again; this is
        the rare path, and rebuilding is simpler than patching the header."""
        self.set_producer_state(producer_id_and_epoch, base_sequence, is_transactional)
        self.reopened = True
        self._built = None

    @property
    def sequence_has_been_reset(self) -> bool:
        return self.reopened

    def build(self) -> bytes:
        """Close the batch into RecordBatch bytes (once; a retry resends the same bytes)."""
        self.closed = True
        if self._built is None:
            built = build_batch(self.records, base_offset=0, compression=self.compression,
                                producer_id=self.producer_id, producer_epoch=self.producer_epoch,
                                base_sequence=self.base_sequence)
            self._built = mark_transactional(built) if self.is_transactional else built
        return self._built

    def has_reached_delivery_timeout(self, delivery_timeout_ms: int, now_ms: int) -> bool:
        return now_ms - self.created_ms >= delivery_timeout_ms

    def done(self, base_offset: int, log_append_time: int = -1,
             exception: BaseException | None = None) -> None:
        """Complete every record's future (and run its callback), in the order they were sent."""
        tp = self.topic_partition
        for record, (future, callback) in zip(self.records, self.futures, strict=True):
            if exception is None:
                offset = base_offset + record.offset if base_offset >= 0 else -1
                timestamp = log_append_time if log_append_time >= 0 else record.timestamp
                metadata = RecordMetadata(tp.topic, tp.partition, offset, timestamp,
                                          len(record.key) if record.key is not None else -1,
                                          len(record.value) if record.value is not None else -1)
                future.set_result(metadata)
                if callback is not None:
                    _run_callback(callback, metadata, None)
            else:
                future.set_exception(exception)
                if callback is not None:
                    _run_callback(callback, None, exception)

    def __repr__(self) -> str:
        sequence = f", sequence={self.base_sequence}" if self.has_sequence else ""
        return (f"ProducerBatch({self.topic_partition}, records={len(self.records)}, "
                f"attempts={self.attempts}{sequence})")


def increment_sequence(sequence: int, increment: int) -> int:
    """DefaultRecordBatch.incrementSequence: sequences are int32 and wrap to 0 after 2**31 - 1."""
    if sequence > 2**31 - 1 - increment:
        return increment - (2**31 - 1 - sequence) - 1
    return sequence + increment


def _run_callback(callback: Callable, metadata: RecordMetadata | None,
                  exception: BaseException | None) -> None:
    try:
        callback(metadata, exception)
    except Exception:  # a user's callback must not kill the Sender thread
        import structlog

        structlog.get_logger("kafka.clients.producer").exception("producer callback raised")


def mark_transactional(batch: bytes) -> bytes:
    """Set the batch's transactional bit (attributes bit 4) and seal it again: its records belong to
    the producer's open transaction until the marker (KIP-98)."""
    buf = bytearray(batch)
    attributes = struct.unpack_from(">h", buf, ATTRIBUTES_OFFSET)[0] | TRANSACTIONAL_MASK
    struct.pack_into(">h", buf, ATTRIBUTES_OFFSET, attributes)
    struct.pack_into(">I", buf, CRC_OFFSET, crc32c.crc32c(memoryview(buf)[ATTRIBUTES_OFFSET:]))
    return bytes(buf)
