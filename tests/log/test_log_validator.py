"""LogValidator.validate_records: every check that decides whether a leader's append may be written,
in one place, before any offset is assigned; assign_offsets numbers what passed."""

from __future__ import annotations

import pytest

from kafka.log.errors import CorruptRecordError, RecordBatchTooLargeError
from kafka.log.log_config import LogConfig
from kafka.log.log_validator import assign_offsets, validate_records
from kafka.protocol.record_batch import RecordBatch, build_batch, iter_batches


def two_batches() -> bytes:
    return bytes(build_batch([(b"k", b"v")] * 3, timestamp=1000)) + bytes(build_batch([(b"k", b"w")] * 2,
                                                                                     timestamp=2000))


def test_an_append_larger_than_a_segment_is_refused_by_the_validator():
    records = two_batches()
    with pytest.raises(RecordBatchTooLargeError, match="segment.bytes"):
        validate_records(records, LogConfig(segment_bytes=len(records) - 1), "orders-0", 5000)


def test_a_corrupt_batch_is_refused_by_the_validator():
    records = bytearray(two_batches())
    records[-1] ^= 0xFF  # the CRC no longer matches
    with pytest.raises(CorruptRecordError):
        validate_records(bytes(records), LogConfig(), "orders-0", 5000)


def test_validated_records_are_numbered_by_assign_offsets_with_the_crc_intact():
    result = validate_records(two_batches(), LogConfig(), "orders-0", 5000)
    assert (result.num_messages, result.max_timestamp, result.log_append_time) == (5, 2000, -1)
    next_offset = assign_offsets(result.validated_records, result.batches, 10, 7)
    assert next_offset == 15
    batches = list(iter_batches(result.validated_records))
    assert [(b.base_offset, b.last_offset, b.partition_leader_epoch) for b in batches] == [(10, 12, 7),
                                                                                           (13, 14, 7)]
    for batch in batches:
        RecordBatch(bytes(result.validated_records), batch.position).ensure_valid()


def test_a_log_append_time_topic_gets_the_brokers_clock():
    result = validate_records(two_batches(), LogConfig(message_timestamp_type="LogAppendTime"), "orders-0",
                              5000)
    assert result.log_append_time == result.max_timestamp == 5000
    assert all(b.max_timestamp == 5000 and b.is_log_append_time
               for b in iter_batches(result.validated_records))
