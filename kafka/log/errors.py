"""The log's exceptions: Kafka's OffsetOutOfRangeException, RecordTooLargeException,
KafkaStorageException (here LogDirError) and CorruptIndexException.

They are plain exceptions: the log knows no requests, so the server maps each one to its wire error
code (OFFSET_OUT_OF_RANGE, MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, KAFKA_STORAGE_ERROR,
CORRUPT_MESSAGE, INVALID_RECORD for InvalidRecordError).
"""

from __future__ import annotations

from kafka.protocol.record_batch import CorruptRecordError, InvalidRecordError

__all__ = [
    "CorruptIndexError",
    "CorruptRecordError",
    "InvalidRecordError",
    "LogDirError",
    "LogSegmentOffsetOverflowError",
    "OffsetOutOfRangeError",
    "RecordBatchTooLargeError",
    "RecordTooLargeError",
]


class OffsetOutOfRangeError(Exception):
    """A fetch or lookup for an offset below the log start offset or above the log end offset."""


class RecordTooLargeError(Exception):
    """A batch larger than the topic's max.message.bytes; nothing of the request is appended."""


class RecordBatchTooLargeError(Exception):
    """One append (a request's batches for a partition) larger than segment.bytes: it could never fit
    a segment (Kafka's RecordBatchTooLargeException, RECORD_LIST_TOO_LARGE on the wire)."""


class LogDirError(Exception):
    """A log directory cannot be used (locked by another broker, unreadable, not a directory)."""


class CorruptIndexError(Exception):
    """An index file that does not agree with itself or its segment; the segment must be recovered."""


class LogSegmentOffsetOverflowError(Exception):
    """An offset too far from the segment's base offset to be stored as a 4-byte relative offset."""
