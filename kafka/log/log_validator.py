"""LogValidator: what the leader checks in a producer's batches before they are appended, and the
timestamps it writes (Kafka's org.apache.kafka.storage.internals.log.LogValidator).

Seed 002's "some validations" before the append. Each batch first has its header checked
(`validate_batch`: counts, control batches, sequence, size), then every one of its records is read
(`record_stream.scan_records`, compressed batches through a bounded buffer) and checked:

* the codec exists (UNSUPPORTED_COMPRESSION_TYPE) and the data decompresses (CORRUPT_MESSAGE);
* the batch holds exactly its declared count of records, each as long as its length says, with
  well-formed keys, values and headers, and nothing after the last (INVALID_RECORD);
* each record's offset delta is its position in the batch (INVALID_RECORD: Kafka rewrites such a
  batch for clients of the old message formats, which this broker does not speak);
* no record is larger, uncompressed, than ``max.message.bytes`` (MESSAGE_TOO_LARGE, Kafka's
  RECORD_TOO_LARGE): the batch's own size counts compressed bytes, and a 30 KB batch can hold a
  gigabyte. The check reads a record's length before any of its bytes, so a bomb is refused
  after a few bytes of decompression;
* ``cleanup.policy=compact``: every record has a key (INVALID_RECORD);
* ``message.timestamp.before.max.ms`` / ``after.max.ms`` (KIP-937; Kafka 4.0 dropped
  ``difference.max.ms`` and bounds ``after`` at an hour): a CreateTime record's timestamp is within bounds
  (INVALID_TIMESTAMP); a producer may not claim LogAppendTime on a LogAppendTime topic.

Per-record problems come back as ``record_errors`` (KIP-467: the record's index in its batch and
why), and nothing of the append is written. A CreateTime batch gets the largest timestamp its
records hold written into its header; a LogAppendTime one gets the broker's clock.

`validate_records` is the whole of it for a leader's append, in Kafka's order: every batch whole with
its CRC right (UnifiedLog's analyzeAndValidateRecords), the checks above, the append no larger than
``segment.bytes`` (RECORD_LIST_TOO_LARGE), then the timestamps written into a copy of the request.
`assign_offsets` numbers the validated batches once UnifiedLog knows its log end offset.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from kafka.log.append_origin import AppendOrigin
from kafka.log.errors import InvalidRecordError, RecordBatchTooLargeError, RecordTooLargeError
from kafka.log.log_config import LogConfig
from kafka.protocol.record_batch import (
    NO_PRODUCER_ID,
    NO_TIMESTAMP,
    RecordBatch,
    set_base_offset,
    set_log_append_time,
    set_max_timestamp,
    validate_batches,
)
from kafka.protocol.record_stream import MalformedRecordError, OversizedRecordError, RecordsScan, scan_records

LOG_APPEND_TIME = "LogAppendTime"

_PARTITION_LEADER_EPOCH = struct.Struct(">i")
_PARTITION_LEADER_EPOCH_AT = 12  # after baseOffset and batchLength; outside the CRC like baseOffset


class RecordValidationError(InvalidRecordError):
    """Some records of a batch broke a rule (Kafka's RecordValidationException): the partition's
    append fails with ``error`` and ``record_errors`` lists (index of the record in its batch, why)."""

    def __init__(self, message: str, record_errors: list[tuple[int, str]],
                 error: str = "INVALID_RECORD") -> None:
        super().__init__(message)
        self.record_errors = record_errors
        self.error = error  # the Errors name the server answers with: INVALID_RECORD or INVALID_TIMESTAMP


@dataclass
class ValidationResult:
    """What the append needs from validation: the records' count and largest timestamp, and the
    CreateTime batches (by position) whose header must carry another max timestamp."""

    num_messages: int = 0
    max_timestamp: int = NO_TIMESTAMP
    max_timestamps_to_write: list[tuple[int, int]] = field(default_factory=list)
    # Filled by validate_records: the request's bytes with the timestamps written, and its batches.
    validated_records: bytearray = field(default_factory=bytearray)
    batches: list[RecordBatch] = field(default_factory=list)
    log_append_time: int = -1  # the broker's clock on a LogAppendTime topic, else -1


def validate_records(records: bytes | bytearray | memoryview, config: LogConfig, topic_partition: str,
                     now_ms: int, origin: AppendOrigin = AppendOrigin.CLIENT) -> ValidationResult:
    """Every check a leader's append must pass, all before a byte is written. Raises CorruptRecordError
    (a torn batch, a bad CRC), RecordBatchTooLargeError (larger than segment.bytes) or any error of
    `validate_messages`; otherwise returns the result with the records to write, offsets not yet set."""
    batches = validate_batches(records)
    result = validate_messages(batches, config, topic_partition, now_ms, origin)
    if len(records) > config.segment_bytes:
        raise RecordBatchTooLargeError(
            f"append of {len(records)} bytes exceeds segment.bytes {config.segment_bytes} of "
            f"{topic_partition}")
    buffer = bytearray(records)
    write_max_timestamps(buffer, result)
    if config.message_timestamp_type == LOG_APPEND_TIME:
        stamp_log_append_time(buffer, batches, now_ms)
        result.log_append_time = result.max_timestamp = now_ms
    result.validated_records, result.batches = buffer, batches
    return result


def assign_offsets(buffer: bytearray, batches: list[RecordBatch], first_offset: int,
                   leader_epoch: int) -> int:
    """Number the batches from `first_offset` and stamp the leader epoch; returns the next offset.

    baseOffset and partitionLeaderEpoch sit before the CRC'd part: rewriting them keeps the CRC valid,
    and a compressed batch is stored as it came."""
    next_offset = first_offset
    for batch in batches:
        set_base_offset(buffer, batch.position, next_offset)
        _PARTITION_LEADER_EPOCH.pack_into(buffer, batch.position + _PARTITION_LEADER_EPOCH_AT, leader_epoch)
        next_offset += batch.last_offset_delta + 1
    return next_offset


def timestamp_bounds(config: LogConfig) -> tuple[int, int]:
    """(before, after) in ms: how far a CreateTime record may lie behind and ahead of the broker's clock."""
    return config.message_timestamp_before_max_ms, config.message_timestamp_after_max_ms


def validate_messages(batches: list[RecordBatch], config: LogConfig, topic_partition: str, now_ms: int,
                      origin: AppendOrigin = AppendOrigin.CLIENT) -> ValidationResult:
    """Kafka's validateMessagesAndAssignOffsets, less the offsets (UnifiedLog assigns those under
    its lock). Raises RecordValidationError, InvalidRecordError, CorruptRecordError,
    UnsupportedCompressionTypeError or RecordTooLargeError, and then nothing may be appended."""
    result = ValidationResult()
    log_append_time = config.message_timestamp_type == LOG_APPEND_TIME
    before, after = timestamp_bounds(config)
    for batch in batches:
        validate_batch(batch, config, topic_partition, origin)
        scan = _scan_records(batch, config, topic_partition)
        process_record_errors(*_record_errors(batch, scan, config, topic_partition, now_ms, before, after,
                                              log_append_time))
        result.num_messages += batch.records_count
        if not log_append_time:  # Kafka's maxBatchTimestamp: the largest record timestamp, or none
            batch_max = max(NO_TIMESTAMP, batch.base_timestamp + scan.max_timestamp_delta)
            if batch_max != batch.max_timestamp or batch.is_log_append_time:
                result.max_timestamps_to_write.append((batch.position, batch_max))
            result.max_timestamp = max(result.max_timestamp, batch_max)
    return result


def validate_batch(batch: RecordBatch, config: LogConfig, topic_partition: str, origin: AppendOrigin) -> None:
    """The header's checks (Kafka's validateBatch, and the size check of analyzeAndValidateRecords)."""
    if batch.size_in_bytes > config.max_message_bytes:
        raise RecordTooLargeError(
            f"The record batch size in the append to {topic_partition} is {batch.size_in_bytes} bytes which "
            f"exceeds the maximum configured value of {config.max_message_bytes}.")
    if origin != AppendOrigin.CLIENT:
        return
    # A producer's batch must say how many records it holds, consistently.
    if batch.records_count <= 0 or batch.last_offset_delta != batch.records_count - 1:
        raise InvalidRecordError(
            f"Inconsistent batch offset range [0, {batch.last_offset_delta}] and count of records "
            f"{batch.records_count} in topic partition {topic_partition}")
    if batch.is_control_batch:  # a marker written by a producer could end anyone's transaction
        raise InvalidRecordError(f"Clients are not allowed to write control records in topic partition "
                                 f"{topic_partition}")
    if batch.producer_id != NO_PRODUCER_ID and batch.base_sequence < 0:
        raise InvalidRecordError(f"Invalid sequence number {batch.base_sequence} in record batch with "
                                 f"producerId {batch.producer_id} in topic partition {topic_partition}")


def _scan_records(batch: RecordBatch, config: LogConfig, topic_partition: str) -> RecordsScan:
    """Every record read once; what cannot be read is refused here, with the log's errors."""
    limit = config.max_message_bytes
    try:
        return scan_records(batch.records_reader(), batch.records_count, limit)
    except OversizedRecordError as e:
        raise RecordTooLargeError(
            f"Record {e.index} in the append to {topic_partition} is {e.size} bytes uncompressed, which "
            f"exceeds the maximum configured value of {limit} (max.message.bytes).") from None
    except MalformedRecordError as e:
        if e.index >= batch.records_count:  # bytes after the last record: no record to point at
            raise InvalidRecordError(f"{e} in topic partition {topic_partition}") from None
        raise RecordValidationError(f"{e} in topic partition {topic_partition}",
                                    [(e.index, str(e))]) from None


def _record_errors(batch: RecordBatch, scan: RecordsScan, config: LogConfig, topic_partition: str,
                   now_ms: int, before: int, after: int, log_append_time: bool,
                   ) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(record errors, timestamp errors) of one batch's records, each (index in the batch, why)."""
    record_errors = [(i, f"Record {i} has offset delta other than its position in the batch in topic "
                         f"partition {topic_partition}") for i in scan.misplaced]
    if config.compact:
        record_errors += [(i, f"Compacted topic cannot accept message without key in topic partition "
                              f"{topic_partition}") for i in scan.keyless]
    timestamp_errors: list[tuple[int, str]] = []
    if log_append_time:
        if batch.is_log_append_time:
            message = ("Invalid timestamp type in message. "
                       "Producer should not set timestamp type to LogAppendTime.")
            timestamp_errors = [(i, message) for i in range(batch.records_count)]
    elif (batch.base_timestamp + scan.min_timestamp_delta < now_ms - before
          or batch.base_timestamp + scan.max_timestamp_delta > now_ms + after):
        timestamp_errors = _out_of_range(batch, now_ms, before, after)  # the rare path: read them again
    return sorted(record_errors), timestamp_errors


def _out_of_range(batch: RecordBatch, now_ms: int, before: int, after: int) -> list[tuple[int, str]]:
    low, high = now_ms - before, now_ms + after
    return [(index, f"Timestamp {record.timestamp} of message with offset "
                    f"{record.offset - batch.base_offset} is "
                    f"out of range. The timestamp should be within [{low}, {high}]")
            for index, record in enumerate(batch.skip_key_value_iterator())
            if record.timestamp != NO_TIMESTAMP and not low <= record.timestamp <= high]


def process_record_errors(record_errors: list[tuple[int, str]],
                          timestamp_errors: list[tuple[int, str]]) -> None:
    """Kafka's processRecordErrors: any timestamp error makes it INVALID_TIMESTAMP, else INVALID_RECORD."""
    if timestamp_errors:
        errors = sorted(record_errors + timestamp_errors)
        raise RecordValidationError("One or more records have been rejected due to invalid timestamp", errors,
                                    "INVALID_TIMESTAMP")
    if record_errors:
        shown = ", ".join(f"RecordError(batchIndex={i}, message='{m}')" for i, m in record_errors[:3])
        raise RecordValidationError("One or more records have been rejected due to "
                                    f"{len(record_errors)} record errors in total, and only "
                                    f"showing the first three errors at most: [{shown}]",
                                    record_errors)


def stamp_log_append_time(buffer: bytearray, batches: list[RecordBatch], now_ms: int) -> None:
    for batch in batches:
        set_log_append_time(buffer, batch.position, now_ms)


def write_max_timestamps(buffer: bytearray, result: ValidationResult) -> None:
    """Each CreateTime batch's header says what its records hold (Kafka's setMaxTimestamp)."""
    for position, max_timestamp in result.max_timestamps_to_write:
        set_max_timestamp(buffer, position, max_timestamp)
