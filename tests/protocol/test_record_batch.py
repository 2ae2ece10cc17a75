"""RecordBatch v2: what a producer writes is what a consumer reads back, and damage is detected."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka.protocol.compression import CompressionType
from kafka.protocol.record_batch import (
    HEADER_SIZE,
    CorruptRecordError,
    DefaultRecord,
    Header,
    RecordBatch,
    build_batch,
    seal_batch,
    set_base_offset,
    validate_batches,
)

maybe_bytes = st.one_of(st.none(), st.binary(max_size=64))
records = st.lists(st.tuples(maybe_bytes, maybe_bytes,
                             st.integers(min_value=0, max_value=2**40),
                             st.lists(st.tuples(st.text(max_size=8), maybe_bytes), max_size=3)),
                   min_size=1, max_size=20)


@settings(max_examples=60, deadline=None)
@given(records=records, base_offset=st.integers(min_value=0, max_value=2**40),
       codec=st.sampled_from(list(CompressionType)))
def test_every_record_round_trips(records, base_offset, codec):
    written = [DefaultRecord(base_offset + i, ts, k, v, [Header(hk, hv) for hk, hv in hs])
               for i, (k, v, ts, hs) in enumerate(records)]
    [batch] = validate_batches(build_batch(written, base_offset=base_offset, compression=codec))
    assert batch.compression_type == codec
    assert (batch.base_offset, batch.last_offset, batch.records_count) == (
        base_offset, base_offset + len(written) - 1, len(written))
    assert list(batch) == written


def test_assigning_offsets_rewrites_only_the_base_offset_and_keeps_the_crc_valid():
    data = bytearray(build_batch([(b"k", b"v"), (None, b"w")], base_offset=0))
    set_base_offset(data, 0, 1000)
    batch = RecordBatch(data)
    batch.ensure_valid()
    assert [r.offset for r in batch] == [1000, 1001]


def test_a_flipped_byte_fails_the_crc():
    data = bytearray(build_batch([(b"k", b"value")]))
    data[-1] ^= 0x01
    with pytest.raises(CorruptRecordError, match="CRC"):
        validate_batches(bytes(data))


def sealed(records_section: bytes, count: int) -> RecordBatch:
    """A batch whose header and CRC are right but whose records section is what the test says."""
    return RecordBatch(seal_batch(base_offset=0, attributes=0, last_offset_delta=count - 1, base_timestamp=0,
                                  max_timestamp=0, producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                  records_count=count, payload=records_section))


def test_a_record_cut_short_is_a_corrupt_record_not_a_crash():
    whole = build_batch([(b"key", b"a value")])[HEADER_SIZE:]
    batch = sealed(whole[:-3], 1)
    batch.ensure_valid()  # the CRC covers what is there: only decoding can tell
    with pytest.raises(CorruptRecordError, match="malformed record"):
        list(batch)


def test_a_record_whose_length_disagrees_with_its_fields_is_corrupt():
    whole = bytearray(build_batch([(b"key", b"a value")])[HEADER_SIZE:])
    whole[0] += 2  # the record's varint length (zigzag): claims one byte more than its fields take
    with pytest.raises(CorruptRecordError, match="does not match"):
        list(sealed(bytes(whole) + b"\x00", 1))


def test_header_values_and_null_keys_survive_every_codec():
    for codec in CompressionType:
        record = DefaultRecord(7, 1_700_000_000_000, None, b"v",
                               [Header("trace", b"\x00\x01"), Header("x", None)])
        [batch] = validate_batches(build_batch([record], base_offset=7, timestamp=0, compression=codec))
        assert list(batch) == [record]
        assert struct.unpack_from(">q", batch.buffer, 0)[0] == 7
