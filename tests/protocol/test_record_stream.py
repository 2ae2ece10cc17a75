"""The records inside a batch read through a bounded buffer (record_stream.py, compression.py's
decompress_chunks): bounded pieces whatever the data inflates to, and every kind of bad data
refused with the error the LogValidator answers with."""

from __future__ import annotations

import tracemalloc

import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka.protocol.compression import (
    CompressionError,
    CompressionType,
    UnsupportedCompressionTypeError,
    compress,
    decompress_chunks,
)
from kafka.protocol.record_batch import (
    DefaultRecord,
    Header,
    RecordBatch,
    build_batch,
    encode_records,
    seal_batch,
)
from kafka.protocol.record_stream import (
    CorruptRecordError,
    MalformedRecordError,
    OversizedRecordError,
    scan_records,
)

CODECS = [CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD]


@pytest.mark.parametrize("codec", CODECS)
def test_decompressed_pieces_are_bounded_and_add_up(codec):
    data = bytes(8 << 20) + bytes(range(256)) * 4096
    pieces = list(decompress_chunks(codec, compress(codec, data), chunk_bytes=64 * 1024))
    assert max(len(p) for p in pieces) <= 64 * 1024
    assert b"".join(pieces) == data


@pytest.mark.parametrize("codec", CODECS)
def test_garbage_and_truncated_data_do_not_decompress(codec):
    with pytest.raises(CompressionError):
        list(decompress_chunks(codec, b"this is not compressed data" * 8))
    whole = compress(codec, bytes(range(256)) * 64)
    with pytest.raises(CompressionError):
        list(decompress_chunks(codec, whole[: len(whole) - 5]))


def test_an_unknown_codec_is_unsupported():
    batch = RecordBatch(seal_batch(base_offset=0, attributes=5, last_offset_delta=0, base_timestamp=0, max_timestamp=0,
                                   producer_id=-1, producer_epoch=-1, base_sequence=-1, records_count=1,
                                   payload=encode_records([DefaultRecord(0, 0, None, b"v")], 0, 0)))
    with pytest.raises(UnsupportedCompressionTypeError, match="Unknown compression type id: 5"):
        list(batch)


def test_a_zstd_frame_asking_for_a_huge_window_is_refused():
    compressor = zstandard.ZstdCompressor(compression_params=zstandard.ZstdCompressionParameters.from_level(
        3, window_log=27))
    with pytest.raises(CompressionError):
        list(decompress_chunks(CompressionType.ZSTD, compressor.compressobj().compress(bytes(1 << 20)) +
                               compressor.compressobj().flush()))


def test_a_snappy_block_claiming_more_than_it_can_hold_is_refused_before_it_is_inflated():
    with pytest.raises(CompressionError, match="claims"):
        list(decompress_chunks(CompressionType.SNAPPY, b"\xff\xff\xff\xff\x0f" + b"\x00" * 10))


def test_a_gigabyte_of_zeros_is_read_in_bounded_memory():
    compressor = zstandard.ZstdCompressor().compressobj()
    zeros = bytes(1 << 20)
    data = b"".join([compressor.compress(zeros) for _ in range(1024)] + [compressor.flush()])
    assert len(data) < 64 * 1024
    tracemalloc.start()
    try:
        total = sum(len(piece) for piece in decompress_chunks(CompressionType.ZSTD, data))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert total == 1 << 30
    assert peak < 4 << 20


def _batch(records: list[DefaultRecord], codec=CompressionType.NONE, count=None, extra=b"") -> RecordBatch:
    payload = compress(codec, encode_records(records, 0, 0) + extra)
    count = len(records) if count is None else count
    return RecordBatch(seal_batch(base_offset=0, attributes=int(codec), last_offset_delta=count - 1, base_timestamp=0,
                                  max_timestamp=0, producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                  records_count=count, payload=payload))


def _scan(batch: RecordBatch, limit: int = 1 << 20):
    return scan_records(batch.records_reader(), batch.records_count, limit)


records_strategy = st.lists(st.tuples(st.one_of(st.none(), st.binary(max_size=40)),
                                      st.one_of(st.none(), st.binary(max_size=300)),
                                      st.integers(-(1 << 40), 1 << 40),
                                      st.lists(st.tuples(st.text(max_size=8), st.one_of(st.none(), st.binary(max_size=8))),
                                               max_size=3)),
                            min_size=1, max_size=300)


@settings(max_examples=60, deadline=None)
@given(records_strategy, st.sampled_from([CompressionType.NONE, *CODECS]))
def test_the_validators_scan_agrees_with_the_record_decoder(items, codec):
    records = [DefaultRecord(i, ts, k, v, [Header(hk, hv) for hk, hv in hs]) for i, (k, v, ts, hs) in enumerate(items)]
    batch = _batch(records, codec)
    scan = _scan(batch)
    assert scan.keyless == [i for i, r in enumerate(records) if r.key is None]
    assert scan.misplaced == []
    assert scan.max_timestamp_delta == max(r.timestamp for r in records)
    assert scan.min_timestamp_delta == min(r.timestamp for r in records)
    partial = list(batch.skip_key_value_iterator(keep_keys=True))
    assert [(p.offset, p.timestamp, p.key) for p in partial] == [(r.offset, r.timestamp, r.key) for r in records]


@pytest.mark.parametrize("codec", [CompressionType.NONE, CompressionType.ZSTD])
def test_the_scan_refuses_what_consumers_could_not_read(codec):
    three = [DefaultRecord(i, 0, None, b"value") for i in range(3)]
    assert _scan(_batch([DefaultRecord(o, 0, None, b"v") for o in (0, 8, 2)], codec)).misplaced == [1]
    with pytest.raises(MalformedRecordError) as left_over:
        _scan(_batch(three, codec, extra=b"\x00\x01"))
    assert left_over.value.index == 3
    with pytest.raises(MalformedRecordError) as too_few:
        _scan(_batch(three, codec, count=4))
    assert too_few.value.index == 3
    with pytest.raises(OversizedRecordError):
        _scan(_batch([DefaultRecord(0, 0, None, bytes(5000))], codec), limit=4096)


def test_a_record_larger_than_the_window_is_read_field_by_field():
    big = DefaultRecord(1, 7, b"key", bytes(300_000), [Header("h", b"v")])
    batch = _batch([DefaultRecord(0, 0, None, b"small"), big, DefaultRecord(2, 3, b"k", None)], CompressionType.GZIP)
    scan = _scan(batch)
    assert (scan.keyless, scan.misplaced, scan.max_timestamp_delta) == ([0], [], 7)
    assert [r.value_size for r in batch.skip_key_value_iterator()] == [5, 300_000, -1]
    assert [r.offset for r in batch.selected_records({0, 2})] == [0, 2]


def test_a_corrupt_compressed_batch_is_a_corrupt_record():
    batch = RecordBatch(build_batch([(None, b"v")], compression=CompressionType.GZIP))
    data = bytearray(batch.bytes())
    data[-6] ^= 0xFF  # the gzip member's CRC-32 no longer matches (the batch's CRC is not checked here)
    with pytest.raises(CorruptRecordError):
        _scan(RecordBatch(bytes(data)))
