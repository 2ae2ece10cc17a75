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
    WINDOW_BYTES,
    CorruptRecordError,
    InvalidRecordError,
    MalformedRecordError,
    OversizedRecordError,
    RecordsReader,
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
    batch = RecordBatch(seal_batch(base_offset=0, attributes=5, last_offset_delta=0, base_timestamp=0,
                                   max_timestamp=0,
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
    return RecordBatch(seal_batch(base_offset=0, attributes=int(codec), last_offset_delta=count - 1,
                                  base_timestamp=0,
                                  max_timestamp=0, producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                  records_count=count, payload=payload))


def _scan(batch: RecordBatch, limit: int = 1 << 20):
    return scan_records(batch.records_reader(), batch.records_count, limit)


records_strategy = st.lists(st.tuples(st.one_of(st.none(), st.binary(max_size=40)),
                                      st.one_of(st.none(), st.binary(max_size=300)),
                                      st.integers(-(1 << 40), 1 << 40),
                                      st.lists(st.tuples(st.text(max_size=8),
                                                         st.one_of(st.none(), st.binary(max_size=8))),
                                               max_size=3)),
                            min_size=1, max_size=300)


@settings(max_examples=60, deadline=None)
@given(records_strategy, st.sampled_from([CompressionType.NONE, *CODECS]))
def test_the_validators_scan_agrees_with_the_record_decoder(items, codec):
    records = [DefaultRecord(i, ts, k, v, [Header(hk, hv) for hk, hv in hs])
               for i, (k, v, ts, hs) in enumerate(items)]
    batch = _batch(records, codec)
    scan = _scan(batch)
    assert scan.keyless == [i for i, r in enumerate(records) if r.key is None]
    assert scan.misplaced == []
    assert scan.max_timestamp_delta == max(r.timestamp for r in records)
    assert scan.min_timestamp_delta == min(r.timestamp for r in records)
    partial = list(batch.skip_key_value_iterator(keep_keys=True))
    assert [(p.offset, p.timestamp, p.key) for p in partial] == [(r.offset, r.timestamp, r.key)
                                                                 for r in records]


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
    batch = _batch([DefaultRecord(0, 0, None, b"small"), big, DefaultRecord(2, 3, b"k", None)],
                   CompressionType.GZIP)
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


# ------------------------------------------------------------------ runs of records of one shape
# scan_records steps over runs of records shaped as the one before (_same_shape_run). Whatever the
# bytes, it must answer exactly as its record loop alone does (runs=False): the same RecordsScan, or
# the same error, message and index; and on well-formed batches as the full decoder reads them.


def _varint(value: int, pad: int = 0) -> bytes:
    """A zigzag varint; `pad` extra bytes make it longer than it need be (legal, if odd)."""
    raw = (value << 1) ^ (value >> 63)
    out = bytearray()
    while raw >= 0x80:
        out.append(raw & 0x7F | 0x80)
        raw >>= 7
    out.append(raw)
    if pad:
        out[-1] |= 0x80
        out += b"\x80" * (pad - 1) + b"\x00"
    return bytes(out)


def _sized(data: bytes | None) -> bytes:
    return _varint(-1) if data is None else _varint(len(data)) + data


def _record(offset: int, timestamp: int, key: bytes | None, value: bytes | None, headers, pad_ts: int,
            pad_offset: int) -> bytes:
    body = (b"\x00" + _varint(timestamp, pad_ts) + _varint(offset, pad_offset) + _sized(key) + _sized(value)
            + _varint(len(headers)) + b"".join(_sized(k) + _sized(v) for k, v in headers))
    return _varint(len(body)) + body


shapes = st.tuples(st.one_of(st.none(), st.binary(max_size=12)),  # key
                   st.one_of(st.none(), st.integers(0, 200)),  # value size
                   st.lists(st.tuples(st.binary(max_size=4), st.one_of(st.none(), st.binary(max_size=4))),
                            max_size=2),  # headers
                   st.sampled_from(["zero", "rising", "falling", "shuffled", "huge", "dip", "sag",
                                    "wide dip"]),
                   st.integers(0, 1), st.integers(0, 1))  # padded timestamp / offset varints


@st.composite
def shaped_sections(draw):
    """(records section, declared count): runs of records of one shape, then perhaps damaged."""
    records = []
    rng = draw(st.randoms(use_true_random=False))
    for (key, value_size, headers, deltas, pad_ts, pad_offset), repeat in draw(  # timestamp deltas
            st.lists(st.tuples(shapes, st.integers(1, 90)), min_size=1, max_size=5)):
        for _ in range(repeat):
            i = len(records)
            timestamp = {"zero": 0, "rising": 5 * i, "falling": -3 * i, "shuffled": rng.randrange(-70, 70),
                         "huge": (1 << 40) + i, "dip": abs(30 - i % 60), "sag": -1 - abs(30 - i % 60),
                         "wide dip": 100 + abs(30 - i % 60)}[deltas]
            value = None if value_size is None else bytes([i % 251]) * value_size
            records.append([i, timestamp, key, value, headers, pad_ts, pad_offset])
    for i in draw(st.sets(st.integers(0, len(records) - 1), max_size=3)):  # misplaced offset deltas
        records[i][0] = i + draw(st.sampled_from([1, -1, 64, 9000, -200]))
    if draw(st.sampled_from([False] * 4 + [True])):  # a producer whose offset deltas wrap at 64
        for record in records:
            record[0] %= 64
    section = bytearray(b"".join(_record(*r) for r in records))
    for at, byte in draw(st.lists(st.tuples(st.integers(0, len(section) - 1), st.integers(0, 255)),
                                  max_size=2)):
        section[at] = byte
    section += draw(st.sampled_from([b"", b"", b"\x00", b"\x02\x00"]))  # bytes after the last record
    return bytes(section), len(records) + draw(st.sampled_from([0, 0, 0, -1, 1]))


def _outcome(codec, section: bytes, count: int, limit: int, runs: bool):
    # as the log has it
    payload = compress(codec, section) if codec != CompressionType.NONE else memoryview(section)
    try:
        return scan_records(RecordsReader(codec, payload, 0, len(payload)), count, limit, runs=runs)
    except InvalidRecordError as e:
        return type(e).__name__, str(e), getattr(e, "index", None)


@pytest.mark.slow  # 400 examples take seconds; the quick loop keeps the runs' other two checks below
@settings(max_examples=400, deadline=None)
@given(shaped_sections(), st.sampled_from([CompressionType.NONE, CompressionType.NONE, CompressionType.LZ4]),
       st.sampled_from([1 << 20, 120]))
def test_runs_of_one_shape_are_scanned_as_the_record_loop_scans_them(section_and_count, codec, limit):
    section, count = section_and_count
    assert _outcome(codec, section, count, limit, runs=True) == _outcome(codec, section, count, limit,
                                                                         runs=False)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(shapes, st.integers(1, 90)), min_size=1, max_size=5),
       st.randoms(use_true_random=False))
def test_runs_of_one_shape_agree_with_the_record_decoder(segments, rng):
    records = []
    for (key, value_size, headers, *_), repeat in segments:
        for _ in range(repeat):
            i = len(records)
            records.append(DefaultRecord(rng.choice([i, i, i, i + 1]),
                                         rng.choice([0, i, -i, 70 * i, rng.randrange(-99, 99)]),
                                         key, None if value_size is None else bytes(value_size),
                                         [Header(k.decode("latin-1"), v) for k, v in headers]))
    scan = scan_records(_batch(records).records_reader(), len(records), 1 << 20)
    assert scan.keyless == [i for i, r in enumerate(records) if r.key is None]
    assert scan.misplaced == [i for i, r in enumerate(records) if r.offset != i]
    assert (scan.min_timestamp_delta, scan.max_timestamp_delta) == (min(r.timestamp for r in records),
                                                                    max(r.timestamp for r in records))


@pytest.mark.parametrize("codec", [CompressionType.NONE, CompressionType.ZSTD])
def test_runs_across_the_readers_window_and_offset_delta_widths(codec):
    """20,000 records of one shape: offset deltas of one, two and three bytes, timestamp deltas
    of one and two, a compressed batch read through several windows; two records misplaced."""
    records = [DefaultRecord(i, i // 100, None, b"v" * 30) for i in range(20_000)]
    records[8191] = DefaultRecord(8190, 81, None, b"v" * 30)
    records[19_999] = DefaultRecord(0, 199, None, b"v" * 30)
    section = encode_records(records, 0, 0)
    assert len(section) > 8 * WINDOW_BYTES
    assert _outcome(codec, section, len(records), 1 << 20, runs=True) == _outcome(codec, section,
                                                                                  len(records),
                                                                                  1 << 20, runs=False)
    scan = _outcome(codec, section, len(records), 1 << 20, runs=True)
    assert (scan.misplaced, scan.min_timestamp_delta, scan.max_timestamp_delta) == ([8191, 19_999], 0, 199)
