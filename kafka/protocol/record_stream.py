"""The records inside a batch, read front to back through a bounded buffer (Kafka's DefaultRecordBatch
iterators: RecordIterator, StreamRecordIterator, skipKeyValueIterator, and PartialDefaultRecord).

A record inside a batch (see record_batch.py) is::

    length varint | attributes int8 | timestampDelta varlong | offsetDelta varint
    | keyLength varint | key | valueLength varint | value | headerCount varint
    | (headerKeyLength varint | headerKey | headerValueLength varint | headerValue)*

Each integer is a zigzag varint; a length of -1 is a null. The records of an uncompressed batch are
read where they lie; those of a compressed one through `decompress_chunks`, so `RecordsReader`
holds about `WINDOW_BYTES` of them at a time. A record larger than that is read field by field and
its key and value skipped, as Kafka's skipKeyValueIterator does for the broker: a time-index lookup
needs a record's offset and timestamp, never its value.

Three readers share that buffer: `scan_records` checks every record of a produced batch (the
LogValidator's pass: one loop, no object per record, since it runs on every produce),
`iter_partial_records` yields offsets, timestamps and sizes, `iter_records` whole records.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from kafka.protocol.compression import CompressionError, CompressionType, decompress_chunks
from kafka.protocol.errors import ProtocolDecodeError
from kafka.protocol.types import ByteReader

WINDOW_BYTES = 64 * 1024
VARINT_MAX_BYTES = 5
VARLONG_MAX_BYTES = 10


class InvalidRecordError(ValueError):
    """A batch that is not well formed (Kafka's InvalidRecordException)."""


class CorruptRecordError(InvalidRecordError):
    """A batch whose CRC, sizes or compressed data do not add up (Kafka's CorruptRecordException)."""


class MalformedRecordError(InvalidRecordError):
    """Record `index` of a batch does not parse (`index` = the record count: bytes after the last)."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


class OversizedRecordError(InvalidRecordError):
    """Record `index` is larger, uncompressed, than the limit the reader was given."""

    def __init__(self, index: int, size: int, limit: int) -> None:
        super().__init__(f"record {index} is {size} bytes uncompressed, more than the limit of {limit}")
        self.index = index
        self.size = size


@dataclass(frozen=True)
class Header:
    key: str
    value: bytes | None


@dataclass
class DefaultRecord:
    """One record inside a batch, with its absolute offset and timestamp."""

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: list[Header] = field(default_factory=list)


class PartialRecord(NamedTuple):
    """A record without its value (Kafka's PartialDefaultRecord); `key` only if it was asked for."""

    offset: int
    timestamp: int
    key: bytes | None
    key_size: int  # -1: a null key
    value_size: int  # -1: a null value (a tombstone)
    size_in_bytes: int


class RecordsScan(NamedTuple):
    """What `scan_records` found in a batch that parses: timestamp deltas' range, the indexes of
    records with a null key, and of records whose offset delta is not their position."""

    min_timestamp_delta: int
    max_timestamp_delta: int
    keyless: list[int]
    misplaced: list[int]


class RecordsReader:
    """A batch's records section, front to back. `buf[pos:end]` is what is at hand; `fill` pulls more
    decompressed chunks and drops what was read, so `buf` stays near the size asked for."""

    __slots__ = ("buf", "pos", "end", "_chunks", "_base")

    def __init__(self, codec: CompressionType, buffer: bytes | bytearray | memoryview, start: int, stop: int) -> None:
        self._base = 0  # where buf[0] is in the decompressed records
        if codec == CompressionType.NONE:
            self.buf, self.pos, self.end = buffer, start, stop
            self._chunks: Iterator[bytes] | None = None
        else:
            self.buf, self.pos, self.end = b"", 0, 0
            self._chunks = decompress_chunks(codec, bytes(buffer[start:stop]))

    @property
    def streaming(self) -> bool:
        return self._chunks is not None

    def tell(self) -> int:
        return self._base + self.pos

    def fill(self, n: int) -> bool:
        """Make `n` bytes available at `pos`; False if the records end first."""
        have = self.end - self.pos
        if have >= n:
            return True
        if self._chunks is None:
            return False
        parts = [self.buf[self.pos : self.end]] if have else []
        while have < n:
            try:
                chunk = next(self._chunks)
            except StopIteration:
                self._chunks = None
                break
            except CompressionError as e:
                raise CorruptRecordError(str(e)) from None
            parts.append(chunk)
            have += len(chunk)
        self._base += self.pos
        self.buf = b"".join(parts)
        self.pos, self.end = 0, len(self.buf)
        return have >= n

    def skip(self, n: int) -> bool:
        """Pass over `n` bytes without keeping them; False if the records end first."""
        while self.end - self.pos < n:
            n -= self.end - self.pos
            self.pos = self.end
            if not self.fill(1):
                return False
        self.pos += n
        return True

    def at_end(self) -> bool:
        return not self.fill(1)

    def read_varint(self, index: int, max_bytes: int = VARINT_MAX_BYTES) -> int:
        self.fill(max_bytes)
        buf, pos, end = self.buf, self.pos, self.end
        raw = shift = 0
        while True:
            if pos >= end:
                raise MalformedRecordError(index, f"Incorrect declared batch size, premature EOF reached in record {index}")
            if shift >= 7 * max_bytes:
                raise MalformedRecordError(index, f"Varint is too long in record {index}")
            byte = buf[pos]
            pos += 1
            raw |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        self.pos = pos
        return (raw >> 1) ^ -(raw & 1)


def _long_varint(d, p: int, b: int, max_bytes: int) -> tuple[int, int]:
    """The rest of a varint whose first byte `b` said more follow; returns (value, next position)."""
    raw, shift = b & 0x7F, 7
    while b & 0x80:
        if shift >= 7 * max_bytes:
            raise ValueError("Varint is too long")
        b = d[p]
        p += 1
        raw |= (b & 0x7F) << shift
        shift += 7
    return (raw >> 1) ^ -(raw & 1), p


def read_partial_record(reader: RecordsReader, index: int, base_offset: int, base_timestamp: int,
                        keep_key: bool = False, length: int | None = None) -> PartialRecord:
    """One record's offset, timestamp and sizes, its value (and key, unless kept) skipped. No skip
    reaches past the record's own length, so a record that lies about its sizes costs no more
    decompression than its length says."""
    if length is None:
        length = reader.read_varint(index)
    if length < 0:
        raise MalformedRecordError(index, f"Invalid record size {length} in record {index}")
    start = reader.tell()
    stop = start + length

    def skip(n: int) -> None:
        if reader.tell() + n > stop or not reader.skip(n):
            raise MalformedRecordError(index, f"Invalid record size: a field of {n} bytes runs past the "
                                              f"{length} bytes of record {index}")

    skip(1)  # attributes: unused
    timestamp_delta = reader.read_varint(index, VARLONG_MAX_BYTES)
    offset_delta = reader.read_varint(index)
    key_size = reader.read_varint(index)
    key = None
    if key_size >= 0:
        if keep_key and reader.tell() + key_size <= stop and reader.fill(key_size):
            key = bytes(reader.buf[reader.pos : reader.pos + key_size])
            reader.pos += key_size
        else:
            skip(key_size)
    elif key_size != -1:
        raise MalformedRecordError(index, f"Invalid negative key size {key_size} in record {index}")
    value_size = reader.read_varint(index)
    if value_size >= 0:
        skip(value_size)
    elif value_size != -1:
        raise MalformedRecordError(index, f"Invalid negative value size {value_size} in record {index}")
    headers = reader.read_varint(index)
    if headers < 0:
        raise MalformedRecordError(index, f"Found invalid number of record headers {headers} in record {index}")
    for _ in range(headers):
        header_key_size = reader.read_varint(index)
        if header_key_size < 0:
            raise MalformedRecordError(index, f"Invalid negative header key size {header_key_size} in record {index}")
        skip(header_key_size)
        header_value_size = reader.read_varint(index)
        if header_value_size >= 0:
            skip(header_value_size)
        elif header_value_size != -1:
            raise MalformedRecordError(index, f"Invalid header value size {header_value_size} in record {index}")
        if reader.tell() > stop:
            break
    if reader.tell() != stop:
        raise MalformedRecordError(index, f"Invalid record size: expected to read {length} bytes in record "
                                          f"{index}, but instead read {reader.tell() - start}")
    return PartialRecord(base_offset + offset_delta, base_timestamp + timestamp_delta, key, key_size, value_size,
                         length)


def iter_partial_records(reader: RecordsReader, count: int, base_offset: int, base_timestamp: int,
                         keep_keys: bool = False) -> Iterator[PartialRecord]:
    """Kafka's skipKeyValueIterator. A reader of the log stops at the last record: what follows it
    (a batch the validator would have refused) is no concern of a lookup."""
    for index in range(count):
        yield read_partial_record(reader, index, base_offset, base_timestamp, keep_keys)


def iter_records(reader: RecordsReader, count: int, base_offset: int, base_timestamp: int,
                 select: set[int] | None = None) -> Iterator[DefaultRecord]:
    """Whole records, one at a time: each is held whole while it is decoded, so callers that do not
    need values use `iter_partial_records`. With `select`, only the records at those indexes; the
    others stream past as `iter_partial_records` reads them."""
    for index in range(count):
        if select is not None and index not in select:
            read_partial_record(reader, index, base_offset, base_timestamp)
            continue
        length = reader.read_varint(index)
        if length < 0 or not reader.fill(length):
            raise CorruptRecordError(f"malformed record {index} in batch at offset {base_offset}: its {length} bytes "
                                     f"run past the end of the batch")
        body = ByteReader(memoryview(reader.buf)[reader.pos : reader.pos + length])
        try:
            record = _read_record_body(body, base_offset, base_timestamp)
        except ProtocolDecodeError as e:
            raise CorruptRecordError(f"malformed record in batch at offset {base_offset}: {e}") from None
        reader.pos += length
        yield record


def _read_sized(reader: ByteReader) -> bytes | None:
    length = _zigzag(reader)
    if length < 0:
        return None
    end = reader.pos + length
    if end > reader.end:
        raise ProtocolDecodeError(f"a field of {length} bytes runs past the end of the record")
    value = bytes(reader.buf[reader.pos : end])
    reader.pos = end
    return value


def _zigzag(reader: ByteReader, max_bytes: int = VARINT_MAX_BYTES) -> int:
    raw = shift = 0
    buf, pos, end = reader.buf, reader.pos, reader.end
    while True:
        if pos >= end or shift >= 7 * max_bytes:
            raise ProtocolDecodeError("a varint runs past the end of the record or is too long")
        byte = buf[pos]
        pos += 1
        raw |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            break
    reader.pos = pos
    return (raw >> 1) ^ -(raw & 1)


def _read_record_body(reader: ByteReader, base_offset: int, base_timestamp: int) -> DefaultRecord:
    reader.pos += 1  # record attributes: unused
    timestamp_delta = _zigzag(reader, VARLONG_MAX_BYTES)
    offset_delta = _zigzag(reader)
    key = _read_sized(reader)
    value = _read_sized(reader)
    headers = []
    count = _zigzag(reader)
    if count < 0:
        raise ProtocolDecodeError(f"invalid number of record headers {count}")
    for _ in range(count):
        header_key = _read_sized(reader)
        if header_key is None:
            raise ProtocolDecodeError("a header with a null key")
        headers.append(Header(header_key.decode(errors="replace"), _read_sized(reader)))
    if reader.pos != reader.end:
        raise ProtocolDecodeError(f"record length {reader.end} does not match its fields")
    return DefaultRecord(base_offset + offset_delta, base_timestamp + timestamp_delta, key, value, headers)


_LONG_MAX = (1 << 63) - 1
_LONG_MIN = -(1 << 63)
_ZIGZAG = tuple((b >> 1) ^ -(b & 1) for b in range(128))  # a one-byte varint's value
_RUN_ATTEMPTS = 8  # runs looked for in a batch that find none, before the scan stops looking
_MIN_RUN = 8  # fewer records than this cost less in the loop than a run's fixed cost


def scan_records(reader: RecordsReader, count: int, max_record_bytes: int, *, runs: bool = True) -> RecordsScan:
    """Check that the records section holds exactly `count` well-formed records, none larger than
    `max_record_bytes`, with nothing after the last (Kafka's record iterators, as the LogValidator
    drives them). Raises MalformedRecordError, OversizedRecordError or CorruptRecordError.

    This runs on every produce, so it is one loop with the varints decoded inline (the one-byte
    and two-byte cases; longer ones call `_long_varint`) and nothing allocated per record. Most
    batches repeat one record shape (same sizes, one producer's payloads): after each record the
    loop asks `_same_shape_run` how many of the next ones parse exactly as it did, checked a column
    of bytes at a time, and steps over them. `runs=False` is the loop alone (the tests compare)."""
    lo, hi = _LONG_MAX, _LONG_MIN
    keyless: list[int] = []
    misplaced: list[int] = []
    streaming = reader.streaming
    d, p, end = reader.buf, reader.pos, reader.end
    attempts = _RUN_ATTEMPTS if runs else 0
    i = 0
    try:
        while i < count:
            if streaming:
                reader.pos = p
                if end - p < VARINT_MAX_BYTES:  # the length and what follows it in one buffer
                    reader.fill(VARINT_MAX_BYTES)
                start = reader.pos
                length = reader.read_varint(i)
                if length > max_record_bytes:
                    raise OversizedRecordError(i, length, max_record_bytes)
                if length > WINDOW_BYTES:  # too large to hold: field by field, the value skipped
                    record = read_partial_record(reader, i, 0, 0, False, length)
                    if record.offset != i:
                        misplaced.append(i)
                    if record.key_size < 0:
                        keyless.append(i)
                    lo, hi = min(lo, record.timestamp), max(hi, record.timestamp)
                    d, p, end = reader.buf, reader.pos, reader.end
                    i += 1
                    continue
                width = reader.pos - start
                reader.pos = start
                if length < 0 or not reader.fill(width + length):
                    raise MalformedRecordError(i, f"Incorrect declared batch size, premature EOF reached in record {i}")
                d, start, end = reader.buf, reader.pos, reader.end
                p = start + width
            else:
                start = p
                b = d[p]
                p += 1
                if b < 0x80:
                    length = _ZIGZAG[b]
                else:
                    length, p = _long_varint(d, p, b, VARINT_MAX_BYTES)
                if length > max_record_bytes:
                    raise OversizedRecordError(i, length, max_record_bytes)
            stop = p + length
            if length < 0 or stop > end:
                raise MalformedRecordError(i, f"Invalid record size {length}: record {i} runs past the end of "
                                              f"its batch")
            p += 1  # attributes: unused
            b = d[p]  # timestamp delta (a varlong)
            p += 1
            if b < 0x80:
                t = _ZIGZAG[b]
            else:
                t, p = _long_varint(d, p, b, VARLONG_MAX_BYTES)
            if t < lo:
                lo = t
            if t > hi:
                hi = t
            b = d[p]  # offset delta
            p += 1
            if b < 0x80:
                v = _ZIGZAG[b]
            else:
                c = d[p]
                if c < 0x80:
                    p += 1
                    raw = (b & 0x7F) | c << 7
                    v = (raw >> 1) ^ -(raw & 1)
                else:
                    v, p = _long_varint(d, p, b, VARINT_MAX_BYTES)
            if v != i:
                misplaced.append(i)
            b = d[p]  # key length
            p += 1
            if b < 0x80:
                v = _ZIGZAG[b]
            else:
                v, p = _long_varint(d, p, b, VARINT_MAX_BYTES)
            if v >= 0:
                p += v
            elif v == -1:
                keyless.append(i)
            else:
                raise MalformedRecordError(i, f"Invalid negative key size {v} in record {i}")
            b = d[p]  # value length
            p += 1
            if b < 0x80:
                v = _ZIGZAG[b]
            else:
                c = d[p]
                if c < 0x80:
                    p += 1
                    raw = (b & 0x7F) | c << 7
                    v = (raw >> 1) ^ -(raw & 1)
                else:
                    v, p = _long_varint(d, p, b, VARINT_MAX_BYTES)
            if v >= 0:
                p += v
            elif v != -1:
                raise MalformedRecordError(i, f"Invalid negative value size {v} in record {i}")
            b = d[p]  # header count
            p += 1
            if b:
                p = _skip_headers(d, p, b, stop, i)
            if p != stop:
                raise MalformedRecordError(i, f"Invalid record size: expected to read {length} bytes in record {i}, "
                                              f"but instead read {length + p - stop}")
            i += 1
            # Record i starts with the byte the one just read starts with: perhaps a run of its shape.
            if attempts and count - i >= _MIN_RUN and p < end and d[p] == d[start]:
                run = _same_shape_run(d, start, p, i, count, end)
                if run is None:
                    attempts -= 1
                    continue
                lo, hi = min(lo, run.min_timestamp_delta), max(hi, run.max_timestamp_delta)
                if run.keyless:
                    keyless += range(i, i + run.count)
                misplaced += run.misplaced
                i += run.count
                p += run.count * (p - start)
        if streaming:
            reader.pos = p
            if not reader.at_end():
                raise MalformedRecordError(count, f"Incorrect declared batch size, records still remaining after "
                                                  f"the {count} declared")
        elif p != end:
            raise MalformedRecordError(count, f"Incorrect declared batch size, {end - p} bytes still remaining "
                                              f"after the {count} declared records")
    except (IndexError, ValueError) as e:
        if isinstance(e, InvalidRecordError):
            raise
        raise MalformedRecordError(i, f"Found invalid record structure in record {i}: {e}") from None
    return RecordsScan(lo, hi, keyless, misplaced)


def _skip_headers(d, p: int, b: int, stop: int, index: int) -> int:
    """Past the headers of one record (their count's first byte is `b`); the rare path."""
    if b < 0x80:
        count = (b >> 1) ^ -(b & 1)
    else:
        count, p = _long_varint(d, p, b, VARINT_MAX_BYTES)
    if count < 0 or count > stop - p:  # a header takes two bytes at least
        raise MalformedRecordError(index, f"Found invalid number of record headers {count} in record {index}")
    for _ in range(count):
        key_size, p = _long_varint(d, p + 1, d[p], VARINT_MAX_BYTES)
        if key_size < 0:
            raise MalformedRecordError(index, f"Invalid negative header key size {key_size} in record {index}")
        p += key_size
        value_size, p = _long_varint(d, p + 1, d[p], VARINT_MAX_BYTES)
        if value_size >= 0:
            p += value_size
        elif value_size != -1:
            raise MalformedRecordError(index, f"Invalid header value size {value_size} in record {index}")
        if p > stop:
            break
    return p


# ------------------------------------------------------------------ runs of records of one shape


class RecordLayout(NamedTuple):
    """Where a record's bytes lie. `shape` holds, as (offset in the record, byte), every byte of
    its length, key size, value size, header count and header sizes: the bytes whose values decide
    how the record parses. The timestamp and offset deltas are (offset, width) varints whose values
    change from record to record; attributes, keys, values and headers are not looked at."""

    shape: tuple[tuple[int, int], ...]
    timestamp_delta: tuple[int, int]
    offset_delta: tuple[int, int]
    keyless: bool


class RunScan(NamedTuple):
    """What `_same_shape_run` found in the `count` records it stepped over."""

    count: int
    min_timestamp_delta: int
    max_timestamp_delta: int
    keyless: bool
    misplaced: list[int]


def _varint_at(d, p: int) -> tuple[int, int]:
    b = d[p]
    if b < 0x80:
        return _ZIGZAG[b], p + 1
    return _long_varint(d, p + 1, b, VARLONG_MAX_BYTES)


def record_layout(d, start: int) -> RecordLayout:
    """The layout of the record at `start`, one `scan_records` has accepted (so nothing is checked)."""
    shape: list[tuple[int, int]] = []
    _, p = _shape_varint(d, start, start, shape)  # the record's length
    timestamp_at = p + 1  # after the attributes
    offset_at = _varint_at(d, timestamp_at)[1]
    key_at = _varint_at(d, offset_at)[1]
    key_size, p = _shape_varint(d, start, key_at, shape)
    value_size, p = _shape_varint(d, start, p + max(key_size, 0), shape)
    headers, p = _shape_varint(d, start, p + max(value_size, 0), shape)
    for _ in range(headers):
        header_key_size, p = _shape_varint(d, start, p, shape)
        header_value_size, p = _shape_varint(d, start, p + header_key_size, shape)
        p += max(header_value_size, 0)
    return RecordLayout(tuple(shape), (timestamp_at - start, offset_at - timestamp_at),
                        (offset_at - start, key_at - offset_at), key_size < 0)


def _shape_varint(d, start: int, p: int, shape: list[tuple[int, int]]) -> tuple[int, int]:
    """A length or a count at `p`: its bytes join the shape. Returns (value, next position)."""
    value, after = _varint_at(d, p)
    shape += [(at - start, d[at]) for at in range(p, after)]
    return value, after


def _same_shape_run(d, template: int, first_at: int, first: int, count: int, end: int) -> RunScan | None:
    """Records `first`, `first` + 1, ... at `first_at`, `first_at` + size, ... (size: the template's,
    the record at `template` just accepted) that parse exactly as the template does; None if fewer
    than `_MIN_RUN` records ahead start as it does, or the next one does not parse as it does.

    Why that needs no parse of its own: the record loop's path through a record, and the position
    it ends at, depend only on the bytes of the record's length, key and value sizes, header count
    and header sizes, and on how many bytes its timestamp and offset deltas take. A record with
    the template's bytes there (its `RecordLayout.shape`) and deltas of the template's widths is
    read field for field as the template was, so it is as well formed, as long, as keyless, and its
    deltas are where the template's are. That is checked for all the records at once, one column of
    bytes each (`d[at::size]`, a C loop): each shape byte's column is that byte throughout, each
    delta's continuation bits are the template's. Then the deltas' values: the timestamps' smallest
    and largest, and each offset delta against its record's position."""
    size = first_at - template
    n = min(count - first, (end - first_at) // size)
    if n < _MIN_RUN:
        return None
    n -= len(_column(d, first_at, n, size).lstrip(_BYTE[d[template]]))  # the length's first byte
    if n < _MIN_RUN:
        return None
    if not isinstance(d, bytes):  # a memoryview's columns copy slowly: one copy of the run, bytes' columns
        d, template, first_at = bytes(d[template : first_at + n * size]), 0, size
    layout = record_layout(d, template)
    n = min(n, _OFFSET_DELTA_FITS[layout.offset_delta[1]] - first)  # positions the deltas' width can hold
    if n <= 0:
        return None
    for offset, byte in layout.shape:
        column = _column(d, first_at + offset, n, size)
        if column.count(byte) != n:  # the run ends at the first record without it
            n -= len(column.lstrip(_BYTE[byte]))
            if not n:
                return None
    timestamps = _columns(d, first_at, n, size, *layout.timestamp_delta)
    offsets = _columns(d, first_at, n, size, *layout.offset_delta)
    for columns in (timestamps, offsets):
        for k, column in enumerate(columns):  # the continuation bit: set but in the last byte
            shorter = column.translate(_HIGH_BIT).find(0 if k < len(columns) - 1 else 1)
            if shorter != -1:
                n = min(n, shorter)
    if not n:
        return None
    if n < len(timestamps[0]):
        timestamps, offsets = [c[:n] for c in timestamps], [c[:n] for c in offsets]
    lo, hi = _timestamp_delta_range(timestamps)
    return RunScan(n, lo, hi, layout.keyless, _misplaced(offsets, first))


def _columns(d, first_at: int, n: int, size: int, at: int, width: int) -> list[bytes]:
    """The bytes of one varint field of the run's records: column k holds each record's byte k."""
    return [_column(d, first_at + at + k, n, size) for k in range(width)]


def _column(d, at: int, n: int, size: int) -> bytes:
    """Bytes `at`, `at` + size, ... (n of them): one field's byte in each record of a run. A
    memoryview's slice is a view; bytes() copies it (a bytes object it returns as it is)."""
    return bytes(d[at : at + n * size : size])


def _timestamp_delta_range(columns: list[bytes]) -> tuple[int, int]:
    """(smallest, largest) timestamp delta of the run's records (their varints' bytes in `columns`).

    Records come in time order, so the first and the last record's deltas are usually the
    smallest and the largest: that is checked with a few C passes (`_any_beyond`). A zigzag varint
    is negative when its lowest bit is set; deltas all of one sign sort as their varints do
    (backwards, if negative). Mixed signs or records out of order: each delta decoded."""
    ends = sorted(([column[0] for column in columns], [column[-1] for column in columns]), key=_varint_bits)
    signs = columns[0].translate(_LOW_BIT).count(1)
    if signs in (0, len(columns[0])) and not _any_beyond(columns, ends[1], 1) and not _any_beyond(columns, ends[0], -1):
        deltas = [_varint_value(ends[0]), _varint_value(ends[1])]
    elif len(columns) == 1:
        deltas = [_ZIGZAG[b] for b in columns[0]]
    else:
        deltas = [_varint_value(parts) for parts in zip(*columns, strict=True)]
    return min(deltas), max(deltas)


def _varint_bits(varint) -> int:
    """A varint's bits, before zigzag (`varint`: its bytes)."""
    return sum((b & 0x7F) << 7 * k for k, b in enumerate(varint))


def _varint_value(varint) -> int:
    raw = _varint_bits(varint)
    return (raw >> 1) ^ -(raw & 1)


def _any_beyond(columns: list[bytes], bound: list[int], direction: int) -> bool:
    """Whether a record's varint (its bytes in `columns`) is greater (direction 1) or less (-1) than
    the varint `bound`, all of one width. As numbers' digits, from the most significant byte (the
    last): a record is beyond if it is beyond in this byte and tied in all before. Each column
    becomes a byte of 0 or 1 a record, read as one integer, so one `&` combines all the records."""
    n = len(columns[0])
    tied = int.from_bytes(b"\x01" * n, "big")
    beyond = 0
    for column, b in zip(reversed(columns), reversed(bound), strict=True):
        outside = _flag_table(b + 1, 255) if direction > 0 else _flag_table(0, b - 1)
        beyond |= tied & int.from_bytes(column.translate(outside), "big")
        tied &= int.from_bytes(column.translate(_flag_table(b, b)), "big")
        if beyond or not tied:
            break
    return beyond != 0


def _misplaced(columns: list[bytes], first: int) -> list[int]:
    """The run's records whose offset delta (its bytes in `columns`) is not their position. Every
    delta here has the same width, and each position fits it: a varint of a given width has one
    encoding a value (`_offset_delta_column`), so equal bytes are equal values."""
    wrong: set[int] = set()
    n = len(columns[0])
    for k, column in enumerate(columns):
        expected = _offset_delta_column(first, n, len(columns), k)
        if column != expected:
            wrong.update(j for j in range(n) if column[j] != expected[j])
    return [first + j for j in sorted(wrong)]


def _offset_delta_column(first: int, n: int, width: int, k: int) -> bytes:
    """Byte `k` of the varints of `first`, `first` + 1, ... (n of them, each `width` bytes long, the
    longer ones padded with empty groups of seven bits, as a varint may be)."""
    if width == 1:  # zigzag(j) = 2j, one byte
        return bytes(range(2 * first, 2 * (first + n), 2))
    more = 0x80 if k < width - 1 else 0  # the continuation bit
    if k == 0:  # zigzag(j) = 2j: its low seven bits go through the even numbers every 64 records
        cycle = bytes(range(more, more + 128, 2))
        start = first % 64
        return (cycle * ((start + n) // 64 + 1))[start : start + n]
    shift = 7 * k - 1  # bits 7k.. of 2j are bits 7k-1.. of j: the same for 2**shift records in a row
    column = bytearray()
    j, last = first, first + n
    while j < last:
        step_end = min(((j >> shift) + 1) << shift, last)
        column += _BYTE[(j >> shift) & 0x7F | more] * (step_end - j)
        j = step_end
    return bytes(column)


_BYTE = tuple(bytes([b]) for b in range(256))
_HIGH_BIT = bytes(b >> 7 for b in range(256))  # translate tables: a varint byte's continuation bit,
_LOW_BIT = bytes(b & 1 for b in range(256))  # and its lowest bit (the sign, in a first byte)
# Positions below _OFFSET_DELTA_FITS[w] fit an offset delta of w bytes: zigzag(j) = 2j < 2**(7w).
_OFFSET_DELTA_FITS = (0,) + tuple(1 << (7 * w - 1) for w in range(1, VARINT_MAX_BYTES + 1))


@functools.cache
def _flag_table(low: int, high: int) -> bytes:
    """A translate table: 1 for the bytes from `low` to `high`, else 0 (at most 768 are made)."""
    return bytes(low <= b <= high for b in range(256))
