"""ProducerBatch: the records for one partition that will travel in one RecordBatch
(Kafka's producer.internals.ProducerBatch, FutureRecordMetadata and RecordMetadata).

Seed 002: "the producer will accumulate the records assigned to a given partition into batches.
Batching also provides for much more effective compression." A batch collects records until it
reaches ``batch.size``; the Sender then closes it into v2 RecordBatch bytes (compressed as a
whole) and, when the broker answers, completes every record's future with its offset.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from kafka.protocol.compression import CompressionType
from kafka.protocol.record_batch import HEADER_SIZE, DefaultRecord, Header, build_batch
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

    def build(self) -> bytes:
        """Close the batch into RecordBatch bytes (once; a retry resends the same bytes)."""
        self.closed = True
        if self._built is None:
            self._built = build_batch(self.records, base_offset=0, compression=self.compression)
        return self._built

    def has_reached_delivery_timeout(self, delivery_timeout_ms: int, now_ms: int) -> bool:
        return now_ms - self.created_ms >= delivery_timeout_ms

    def done(self, base_offset: int, log_append_time: int = -1, exception: BaseException | None = None) -> None:
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
        return f"ProducerBatch({self.topic_partition}, records={len(self.records)}, attempts={self.attempts})"


def _run_callback(callback: Callable, metadata: RecordMetadata | None, exception: BaseException | None) -> None:
    try:
        callback(metadata, exception)
    except Exception:  # a user's callback must not kill the Sender thread
        import structlog

        structlog.get_logger("kafka.clients.producer").exception("producer callback raised")
