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

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from kafka.protocol.compression import CompressionError, CompressionType, decompress_chunks
from kafka.protocol.errors import ProtocolDecodeError
from kafka.protocol.record_runs import MIN_RUN, same_shape_run
from kafka.protocol.types import ByteReader
from kafka.protocol.varints import VARINT_MAX_BYTES, VARLONG_MAX_BYTES, ZIGZAG, long_varint

WINDOW_BYTES = 64 * 1024


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
    """What `scan_records` found in a batch that parses: timestamp deltas' range, the records with a
    null key (as spans of indexes: a run of keyless records is one range, not an int per record,
    since most batches have no keys and only a compacted topic asks), and the indexes of records
    whose offset delta is not their position."""

    min_timestamp_delta: int
    max_timestamp_delta: int
    keyless_spans: list[range]
    misplaced: list[int]

    @property
    def keyless(self) -> list[int]:
        return [i for span in self.keyless_spans for i in span]



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
_RUN_ATTEMPTS = 8  # runs looked for in a batch that find none, before the scan stops looking


def scan_records(reader: RecordsReader, count: int, max_record_bytes: int, *, runs: bool = True) -> RecordsScan:
    """Check that the records section holds exactly `count` well-formed records, none larger than
    `max_record_bytes`, with nothing after the last (Kafka's record iterators, as the LogValidator
    drives them). Raises MalformedRecordError, OversizedRecordError or CorruptRecordError.

    This runs on every produce, so it is one loop with the varints decoded inline (the one-byte
    and two-byte cases; longer ones call `long_varint`) and nothing allocated per record. Most
    batches repeat one record shape (same sizes, one producer's payloads): after each record the
    loop asks `same_shape_run` how many of the next ones parse exactly as it did, checked a column
    of bytes at a time, and steps over them. `runs=False` is the loop alone (the tests compare)."""
    lo, hi = _LONG_MAX, _LONG_MIN
    keyless: list[range] = []
    ks = ke = 0  # the keyless records being counted: ks..ke-1, not yet in `keyless`
    misplaced: list[int] = []

    def keyless_span(start: int, stop: int) -> None:  # the rare paths; the loop below does it inline
        nonlocal ks, ke
        if start != ke:
            if ke > ks:
                keyless.append(range(ks, ke))
            ks = start
        ke = stop
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
                        keyless_span(i, i + 1)
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
                    length = ZIGZAG[b]
                else:
                    length, p = long_varint(d, p, b, VARINT_MAX_BYTES)
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
                t = ZIGZAG[b]
            else:
                t, p = long_varint(d, p, b, VARLONG_MAX_BYTES)
            if t < lo:
                lo = t
            if t > hi:
                hi = t
            b = d[p]  # offset delta
            p += 1
            if b < 0x80:
                v = ZIGZAG[b]
            else:
                c = d[p]
                if c < 0x80:
                    p += 1
                    raw = (b & 0x7F) | c << 7
                    v = (raw >> 1) ^ -(raw & 1)
                else:
                    v, p = long_varint(d, p, b, VARINT_MAX_BYTES)
            if v != i:
                misplaced.append(i)
            b = d[p]  # key length
            p += 1
            if b < 0x80:
                v = ZIGZAG[b]
            else:
                v, p = long_varint(d, p, b, VARINT_MAX_BYTES)
            if v >= 0:
                p += v
            elif v == -1:  # keyless: extend the span being counted, or start one
                if i != ke:
                    if ke > ks:
                        keyless.append(range(ks, ke))
                    ks = i
                ke = i + 1
            else:
                raise MalformedRecordError(i, f"Invalid negative key size {v} in record {i}")
            b = d[p]  # value length
            p += 1
            if b < 0x80:
                v = ZIGZAG[b]
            else:
                c = d[p]
                if c < 0x80:
                    p += 1
                    raw = (b & 0x7F) | c << 7
                    v = (raw >> 1) ^ -(raw & 1)
                else:
                    v, p = long_varint(d, p, b, VARINT_MAX_BYTES)
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
            if attempts and count - i >= MIN_RUN and p < end and d[p] == d[start]:
                run = same_shape_run(d, start, p, i, count, end)
                if run is None:
                    attempts -= 1
                    continue
                lo, hi = min(lo, run.min_timestamp_delta), max(hi, run.max_timestamp_delta)
                if run.keyless:
                    keyless_span(i, i + run.count)
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
    if ke > ks:
        keyless.append(range(ks, ke))
    return RecordsScan(lo, hi, keyless, misplaced)


def _skip_headers(d, p: int, b: int, stop: int, index: int) -> int:
    """Past the headers of one record (their count's first byte is `b`); the rare path."""
    if b < 0x80:
        count = (b >> 1) ^ -(b & 1)
    else:
        count, p = long_varint(d, p, b, VARINT_MAX_BYTES)
    if count < 0 or count > stop - p:  # a header takes two bytes at least
        raise MalformedRecordError(index, f"Found invalid number of record headers {count} in record {index}")
    for _ in range(count):
        key_size, p = long_varint(d, p + 1, d[p], VARINT_MAX_BYTES)
        if key_size < 0:
            raise MalformedRecordError(index, f"Invalid negative header key size {key_size} in record {index}")
        p += key_size
        value_size, p = long_varint(d, p + 1, d[p], VARINT_MAX_BYTES)
        if value_size >= 0:
            p += value_size
        elif value_size != -1:
            raise MalformedRecordError(index, f"Invalid header value size {value_size} in record {index}")
        if p > stop:
            break
    return p
