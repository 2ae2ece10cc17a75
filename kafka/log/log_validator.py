"""LogValidator: what the leader checks in a producer's batches before they are appended, and the
timestamps it stamps (Kafka's org.apache.kafka.storage.internals.log.LogValidator).

Three rules from Kafka, each a topic config:

* ``cleanup.policy=compact``: every record needs a key (compaction keeps the latest record per key;
  a keyless one could never be compacted away). A batch with a keyless record is refused whole,
  with one record error per keyless record (KIP-467: ``record_errors`` in the ProduceResponse).
* ``message.timestamp.type=LogAppendTime``: the broker's clock replaces the producer's, written into
  each batch's header (the timestamp-type bit and maxTimestamp, CRC recomputed).
* ``message.timestamp.before.max.ms`` / ``after.max.ms`` (and the older
  ``message.timestamp.difference.max.ms``, which stands in for either one not set): with
  CreateTime, a record whose timestamp is further in the past or future than that is refused with
  INVALID_TIMESTAMP.

Records are decoded only where a rule needs them (a compacted topic, or a finite timestamp bound):
the common append copies bytes without looking inside a batch.
"""

from __future__ import annotations

from kafka.log.errors import InvalidRecordError
from kafka.log.log_config import LONG_MAX, LogConfig
from kafka.protocol.record_batch import NO_TIMESTAMP, RecordBatch, set_log_append_time

LOG_APPEND_TIME = "LogAppendTime"


class RecordValidationError(InvalidRecordError):
    """Some records of a batch broke a rule (Kafka's RecordValidationException): the partition's
    append fails with ``error`` and ``record_errors`` lists (index of the record in its batch, why)."""

    def __init__(self, message: str, record_errors: list[tuple[int, str]], error: str = "INVALID_RECORD") -> None:
        super().__init__(message)
        self.record_errors = record_errors
        self.error = error  # the Errors name the server answers with: INVALID_RECORD or INVALID_TIMESTAMP


def timestamp_bounds(config: LogConfig) -> tuple[int, int]:
    """(before, after) in ms; difference.max.ms stands in for a bound not set (KIP-937)."""
    difference = config.message_timestamp_difference_max_ms
    before = config.message_timestamp_before_max_ms
    after = config.message_timestamp_after_max_ms
    return (before if before != LONG_MAX else difference), (after if after != LONG_MAX else difference)


def validate_records(batches: list[RecordBatch], config: LogConfig, topic_partition: str, now_ms: int) -> None:
    """Raise RecordValidationError if a record breaks the topic's key or timestamp rules."""
    compacted = config.compact
    before, after = timestamp_bounds(config)
    check_time = config.message_timestamp_type != LOG_APPEND_TIME and (before != LONG_MAX or after != LONG_MAX)
    if not compacted and not check_time:
        return
    for batch in batches:
        if batch.is_control_batch:
            continue
        if check_time and not compacted and _batch_within(batch, now_ms, before, after):
            continue
        keyless: list[tuple[int, str]] = []
        out_of_range: list[tuple[int, str]] = []
        for index, record in enumerate(batch):
            if compacted and record.key is None:
                keyless.append((index, f"Compacted topic cannot accept message without key in topic partition "
                                       f"{topic_partition}."))
            if check_time and record.timestamp != NO_TIMESTAMP and not (
                    now_ms - before <= record.timestamp <= now_ms + after):
                out_of_range.append((index, f"Timestamp {record.timestamp} of message with offset "
                                            f"{record.offset - batch.base_offset} is out of range. The timestamp "
                                            f"should be within [{now_ms - before}, {now_ms + after}]"))
        if keyless:
            raise RecordValidationError(keyless[0][1], keyless)
        if out_of_range:
            raise RecordValidationError(out_of_range[0][1], out_of_range, "INVALID_TIMESTAMP")


def _batch_within(batch: RecordBatch, now_ms: int, before: int, after: int) -> bool:
    """A cheap header-only pass: True if no record can be out of range (the max is in the header;
    only a lower bound needs the records, since a record may be older than the batch's first)."""
    return before == LONG_MAX and batch.max_timestamp <= now_ms + after


def stamp_log_append_time(buffer: bytearray, batches: list[RecordBatch], now_ms: int) -> None:
    for batch in batches:
        set_log_append_time(buffer, batch.position, now_ms)
