"""LogAppendResult: one partition's outcome of a produce's local append (Kafka's
ReplicaManager.LogAppendResult).

What ReplicaManager.append_to_local_log hands back to append_records: the LogAppendInfo of a
successful append or the error that refused it, and whether the append moved the high watermark
(then the produces and fetches waiting on the partition are tried at once). From it come the
partition's answer (`partition_response`) and, for acks=all, the offset the high watermark must
reach (`required_offset`) before DelayedProduce answers. A refused append's error is the table's
(`for_exception`, Kafka's processFailedRecord and Errors.forException).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.log.errors import (
    CorruptRecordError,
    InvalidProducerEpochError,
    InvalidTxnStateError,
    LogDirError,
    OutOfOrderSequenceError,
    RecordBatchTooLargeError,
    RecordTooLargeError,
    TransactionCoordinatorFencedError,
    UnsupportedCompressionTypeError,
)
from kafka.log.log_append_info import LogAppendInfo
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import InvalidRecordError
from kafka.server.delayed_produce import PartitionResponse
from kafka.server.partition_errors import NotEnoughReplicasError

# What refuses a partition's append, and the error it is answered with (Kafka's Errors.forException),
# most specific first: RecordValidationError is an InvalidRecordError with its own code.
APPEND_ERROR_CODES: tuple[tuple[type[Exception], Errors], ...] = (
    (CorruptRecordError, Errors.CORRUPT_MESSAGE),
    # attributes naming codec 5, 6 or 7
    (UnsupportedCompressionTypeError, Errors.UNSUPPORTED_COMPRESSION_TYPE),
    (InvalidRecordError, Errors.INVALID_RECORD),
    (RecordTooLargeError, Errors.MESSAGE_TOO_LARGE),
    (RecordBatchTooLargeError, Errors.RECORD_LIST_TOO_LARGE),
    # KIP-98: a batch lost, or a retry too old
    (OutOfOrderSequenceError, Errors.OUT_OF_ORDER_SEQUENCE_NUMBER),
    (InvalidProducerEpochError, Errors.INVALID_PRODUCER_EPOCH),  # a zombie producer, fenced by a newer epoch
    # a deposed coordinator's marker
    (TransactionCoordinatorFencedError, Errors.TRANSACTION_COORDINATOR_FENCED),
    (InvalidTxnStateError, Errors.INVALID_TXN_STATE),  # a non-transactional write inside an open transaction
    (NotEnoughReplicasError, Errors.NOT_ENOUGH_REPLICAS),
    (LogDirError, Errors.KAFKA_STORAGE_ERROR),  # the log was closed under us (topic deleted, broker stopping)
)
APPEND_ERRORS = tuple(error_type for error_type, _ in APPEND_ERROR_CODES)
# The refusals Kafka answers without the partition's log start offset (its appendToLocalLog's first case).
_ERRORS_WITHOUT_LOG_START = (CorruptRecordError, RecordTooLargeError, RecordBatchTooLargeError, LogDirError)


@dataclass(slots=True)
class LogAppendResult:
    info: LogAppendInfo | None = None  # None: nothing was appended (see error)
    error: Errors = Errors.NONE
    error_message: str | None = None
    record_errors: tuple[tuple[int, str], ...] = ()  # KIP-467: (index of the record in its batch, why)
    hw_moved: bool = False
    log_start_offset: int = -1  # of a refused append: known when the records were read and found wanting

    @classmethod
    def failed(cls, error: Errors, error_message: str | None = None,
               record_errors: tuple[tuple[int, str], ...] = (),
               log_start_offset: int = -1) -> LogAppendResult:
        return cls(None, error, error_message, record_errors, log_start_offset=log_start_offset)

    @classmethod
    def for_exception(cls, e: Exception, log_start_offset: int) -> LogAppendResult:
        """A refused append (Kafka's processFailedRecord): its error, and the log start offset unless the
        records were never read against the log."""
        error = next(code for error_type, code in APPEND_ERROR_CODES if isinstance(e, error_type))
        known_start = -1 if isinstance(e, _ERRORS_WITHOUT_LOG_START) else log_start_offset
        return cls.failed(error, str(e), log_start_offset=known_start)

    @property
    def required_offset(self) -> int:
        """The high watermark an acks=all produce waits for: past the last offset appended (-1: none)."""
        return self.info.last_offset + 1 if self.info is not None else -1

    def partition_response(self) -> PartitionResponse:
        """The produce response's entry. A retried batch (info.is_duplicate) is answered NONE with the
        offsets of its first append. A refused one carries its error message only when records were
        found wanting (KIP-467's record_errors): Kafka answers every other refusal without a message
        (its hasCustomErrorMessage), and the broker logs why."""
        info = self.info
        if info is None:
            return PartitionResponse(self.error, log_start_offset=self.log_start_offset,
                                     error_message=self.error_message if self.record_errors else None,
                                     record_errors=self.record_errors)
        return PartitionResponse(self.error, base_offset=info.first_offset,
                                 log_append_time=info.log_append_time,
                                 log_start_offset=info.log_start_offset)
