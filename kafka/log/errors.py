"""The log's exceptions: Kafka's OffsetOutOfRangeException, RecordTooLargeException,
KafkaStorageException (here LogDirError), CorruptIndexException, and the idempotent producer's
OutOfOrderSequenceException, InvalidProducerEpochException and CorruptSnapshotException, and the
transactions' TransactionCoordinatorFencedException and InvalidTxnStateException.

They are plain exceptions: the log knows no requests, so the server maps each one to its wire error
code (OFFSET_OUT_OF_RANGE, MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, KAFKA_STORAGE_ERROR,
CORRUPT_MESSAGE, INVALID_RECORD for InvalidRecordError, UNSUPPORTED_COMPRESSION_TYPE,
OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED, INVALID_TXN_STATE).
"""

from __future__ import annotations

from kafka.protocol.compression import UnsupportedCompressionTypeError
from kafka.protocol.record_batch import CorruptRecordError, InvalidRecordError

__all__ = [
    "CorruptIndexError",
    "CorruptRecordError",
    "CorruptSnapshotError",
    "InvalidProducerEpochError",
    "InvalidRecordError",
    "InvalidTxnStateError",
    "KafkaStorageError",
    "LogDirError",
    "LogSegmentOffsetOverflowError",
    "OffsetOutOfRangeError",
    "OutOfOrderSequenceError",
    "RecordBatchTooLargeError",
    "RecordTooLargeError",
    "TornSegmentError",
    "TransactionCoordinatorFencedError",
    "UnexpectedAppendOffsetError",
    "UnsupportedCompressionTypeError",
]


class OffsetOutOfRangeError(Exception):
    """A fetch or lookup for an offset below the log start offset or above the log end offset."""


class UnexpectedAppendOffsetError(InvalidRecordError):
    """A follower append that does not start at the log end offset (Kafka's
    UnexpectedAppendOffsetException)."""

    def __init__(self, message: str, first_offset: int, last_offset: int) -> None:
        super().__init__(message)
        self.first_offset = first_offset
        self.last_offset = last_offset


class RecordTooLargeError(Exception):
    """A batch larger than the topic's max.message.bytes; nothing of the request is appended."""


class RecordBatchTooLargeError(Exception):
    """One append (a request's batches for a partition) larger than segment.bytes: it could never fit
    a segment (Kafka's RecordBatchTooLargeException, RECORD_LIST_TOO_LARGE on the wire)."""


class LogDirError(Exception):
    """A log directory cannot be used (locked by another broker, unreadable, not a directory)."""


class KafkaStorageError(LogDirError):
    """An I/O error (ENOSPC, EIO) writing a log in ``log_dir`` (Kafka's KafkaStorageException):
    the append did not happen, and nothing of it is left in the files."""

    def __init__(self, log_dir: str, message: str) -> None:
        super().__init__(message)
        self.log_dir = log_dir


class TornSegmentError(OSError):
    """A failed append could not be cut back out of its segment: the segment's end is unknown until
    recovery (a restart) reads it again."""


class CorruptIndexError(Exception):
    """An index file that does not agree with itself or its segment; the segment must be recovered."""


class LogSegmentOffsetOverflowError(Exception):
    """An offset too far from the segment's base offset to be stored as a 4-byte relative offset."""


class OutOfOrderSequenceError(Exception):
    """A producer's batch whose first sequence does not follow the last one this partition has from
    it (Kafka's OutOfOrderSequenceException): a batch in between was lost, or this is a retry of one
    too old to be among the last five remembered. Nothing of the append is written."""


class InvalidProducerEpochError(Exception):
    """A batch from an epoch older than the producer's current one: a zombie, fenced by a newer
    instance with the same producer id (Kafka's InvalidProducerEpochException)."""


class CorruptSnapshotError(Exception):
    """A producer-state `.snapshot` file that cannot be trusted: unknown version, wrong CRC, torn
    (Kafka's CorruptSnapshotException). The loader deletes it and rebuilds from an older one."""


class TransactionCoordinatorFencedError(Exception):
    """A transaction marker from a coordinator epoch older than the one this partition last saw for the
    producer (Kafka's TransactionCoordinatorFencedException): a deposed coordinator, still writing."""


class InvalidTxnStateError(Exception):
    """A producer with a transaction open here writing outside it (Kafka's InvalidTxnStateException)."""
