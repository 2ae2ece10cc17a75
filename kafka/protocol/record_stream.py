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
from kafka.protocol.record_runs import MIN_RUN, RunScan, same_shape_run
from kafka.protocol.types import ByteReader
from kafka.protocol.varints import VARINT_MAX_BYTES, VARLONG_MAX_BYTES, ZIGZAG, long_varint, read_varint

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

    def __init__(self, codec: CompressionType, buffer: bytes | bytearray | memoryview, start: int,
                 stop: int) -> None:
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
                raise MalformedRecordError(index,
                                           "Incorrect declared batch size, premature EOF reached in record "
                                           f"{index}")
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
        raise MalformedRecordError(index,
                                   f"Found invalid number of record headers {headers} in record {index}")
    for _ in range(headers):
        header_key_size = reader.read_varint(index)
        if header_key_size < 0:
            raise MalformedRecordError(
                index, f"Invalid negative header key size {header_key_size} in record {index}")
        skip(header_key_size)
        header_value_size = reader.read_varint(index)
        if header_value_size >= 0:
            skip(header_value_size)
        elif header_value_size != -1:
            raise MalformedRecordError(index,
                                       f"Invalid header value size {header_value_size} in record {index}")
        if reader.tell() > stop:
            break
    if reader.tell() != stop:
        raise MalformedRecordError(index, f"Invalid record size: expected to read {length} bytes in record "
                                          f"{index}, but instead read {reader.tell() - start}")
    return PartialRecord(base_offset + offset_delta, base_timestamp + timestamp_delta, key, key_size,
                         value_size,
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
            raise CorruptRecordError(f"malformed record {index} in batch at offset {base_offset}: its "
                                     f"{length} bytes run past the end of the batch")
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


def scan_records(reader: RecordsReader, count: int, max_record_bytes: int, *,
                 runs: bool = True) -> RecordsScan:
    """Check that the records section holds exactly `count` well-formed records, none larger than
    `max_record_bytes`, with nothing after the last (Kafka's record iterators, as the LogValidator
    drives them). Raises MalformedRecordError, OversizedRecordError or CorruptRecordError.

    This runs on every produce: one `_read_record` a record, its varints decoded inline (measured:
    see there), and nothing allocated per record but the tuple it returns. Most batches repeat one
    record shape (same sizes, one producer's payloads): after each record the loop asks
    `same_shape_run` how many of the next ones parse exactly as it did, checked a column of bytes at
    a time, and steps over them. `runs=False` is the loop alone (the tests compare)."""
    found = _ScannedRecords()
    streaming = reader.streaming
    d, p, end = reader.buf, reader.pos, reader.end
    attempts = _RUN_ATTEMPTS if runs else 0
    i = 0
    try:
        while i < count:
            if streaming:
                window = _next_streamed_record(reader, p, i, max_record_bytes, found)
                if window is None:  # a record too large to hold, read field by field
                    d, p, end = reader.buf, reader.pos, reader.end
                    i += 1
                    continue
                d, start, p, end, length = window
            else:
                start = p
                b = d[p]  # the length, inline as in _read_record
                p += 1
                if b < 0x80:
                    length = ZIGZAG[b]
                else:
                    length, p = long_varint(d, p, b, VARINT_MAX_BYTES)
                if length > max_record_bytes:
                    raise OversizedRecordError(i, length, max_record_bytes)
            p, timestamp_delta, offset_delta, key_size = _read_record(d, p, length, end, i)
            found.record(i, timestamp_delta, offset_delta, key_size)
            i += 1
            # Record i starts with the byte the one just read starts with: perhaps a run of its shape.
            if attempts and count - i >= MIN_RUN and p < end and d[p] == d[start]:
                run = same_shape_run(d, start, p, i, count, end)
                if run is None:
                    attempts -= 1
                    continue
                found.run(i, run)
                i += run.count
                p += run.count * (p - start)
        _check_nothing_after(reader, p, end, count)
    except (IndexError, ValueError) as e:
        if isinstance(e, InvalidRecordError):
            raise
        raise MalformedRecordError(i, f"Found invalid record structure in record {i}: {e}") from None
    return found.result()


class _ScannedRecords:
    """What `scan_records` has found so far: the range of the timestamp deltas, the keyless records
    (as spans: ks..ke-1 is the one being counted), the records whose offset delta is not their index."""

    __slots__ = ("lo", "hi", "keyless", "ks", "ke", "misplaced")

    def __init__(self) -> None:
        self.lo, self.hi = _LONG_MAX, _LONG_MIN
        self.keyless: list[range] = []
        self.ks = self.ke = 0
        self.misplaced: list[int] = []

    def record(self, i: int, timestamp_delta: int, offset_delta: int, key_size: int) -> None:
        if timestamp_delta < self.lo:
            self.lo = timestamp_delta
        if timestamp_delta > self.hi:
            self.hi = timestamp_delta
        if offset_delta != i:
            self.misplaced.append(i)
        if key_size < 0:
            self.keyless_span(i, i + 1)

    def run(self, first: int, run: RunScan) -> None:
        """Records `first` .. `first` + run.count - 1, stepped over by `same_shape_run`."""
        self.lo, self.hi = min(self.lo, run.min_timestamp_delta), max(self.hi, run.max_timestamp_delta)
        if run.keyless:
            self.keyless_span(first, first + run.count)
        self.misplaced += run.misplaced

    def keyless_span(self, start: int, stop: int) -> None:
        """Records start..stop-1 have no key: extend the span being counted, or start one."""
        if start != self.ke:
            if self.ke > self.ks:
                self.keyless.append(range(self.ks, self.ke))
            self.ks = start
        self.ke = stop

    def result(self) -> RecordsScan:
        if self.ke > self.ks:
            self.keyless.append(range(self.ks, self.ke))
        return RecordsScan(self.lo, self.hi, self.keyless, self.misplaced)


def _next_streamed_record(reader: RecordsReader, p: int, i: int, max_record_bytes: int,
                          found: _ScannedRecords) -> tuple[bytes | memoryview, int, int, int, int] | None:
    """Record `i` of a compressed batch, at `p` in the reader's window: the whole record made to lie in
    the window, as (window, record start, position after its length, window end, length). None for a
    record larger than the window, read field by field instead (its value skipped) and added to `found`."""
    reader.pos = p
    if reader.end - p < VARINT_MAX_BYTES:  # the length and what follows it in one buffer
        reader.fill(VARINT_MAX_BYTES)
    start = reader.pos
    length = reader.read_varint(i)
    if length > max_record_bytes:
        raise OversizedRecordError(i, length, max_record_bytes)
    if length > WINDOW_BYTES:
        record = read_partial_record(reader, i, 0, 0, False, length)
        found.record(i, record.timestamp, record.offset, record.key_size)
        return None
    width = reader.pos - start
    reader.pos = start
    if length < 0 or not reader.fill(width + length):
        raise MalformedRecordError(i, f"Incorrect declared batch size, premature EOF reached in record {i}")
    return reader.buf, reader.pos, reader.pos + width, reader.end, length


def _read_record(d, p: int, length: int, end: int, i: int) -> tuple[int, int, int, int]:
    """Kafka's DefaultRecord.readFrom, keeping nothing: record `i`, its `length` read, its fields from `p`.
    Returns the position after it, its timestamp delta, its offset delta and its key size (-1: no key).

    Its varints are decoded inline (the one-byte case, and two bytes for the offset delta and the
    value size; `long_varint` for the rest), not through `varints.read_varint`, because that was
    measured to cost: `bench/scan_records.py --loop`, this loop with `read_varint`/`read_varlong`
    against it inline, best of two interleaved runs on a busy two-core machine, 2,059 against 1,377
    ns a record for 1000 x 100 B, 1,514 against 1,260 for 1000 x 10 B, 2,128 against 1,792 for
    librdkafka's 9000 x 100 B; with runs, mixed sizes 1,846 against 1,464. Batches of one shape,
    stepped over by `same_shape_run`, cost the same either way (docs/performance.md, "Produce: the
    record loop's varints")."""
    stop = p + length
    if length < 0 or stop > end:
        raise MalformedRecordError(i,
                                   f"Invalid record size {length}: record {i} runs past the end of its batch")
    p += 1  # attributes: unused
    b = d[p]  # timestamp delta (a varlong)
    p += 1
    if b < 0x80:
        timestamp_delta = ZIGZAG[b]
    else:
        timestamp_delta, p = long_varint(d, p, b, VARLONG_MAX_BYTES)
    b = d[p]  # offset delta
    p += 1
    if b < 0x80:
        offset_delta = ZIGZAG[b]
    else:
        c = d[p]
        if c < 0x80:
            p += 1
            raw = (b & 0x7F) | c << 7
            offset_delta = (raw >> 1) ^ -(raw & 1)
        else:
            offset_delta, p = long_varint(d, p, b, VARINT_MAX_BYTES)
    b = d[p]  # key length
    p += 1
    if b < 0x80:
        key_size = ZIGZAG[b]
    else:
        key_size, p = long_varint(d, p, b, VARINT_MAX_BYTES)
    if key_size >= 0:
        p += key_size
    elif key_size != -1:
        raise MalformedRecordError(i, f"Invalid negative key size {key_size} in record {i}")
    b = d[p]  # value length
    p += 1
    if b < 0x80:
        value_size = ZIGZAG[b]
    else:
        c = d[p]
        if c < 0x80:
            p += 1
            raw = (b & 0x7F) | c << 7
            value_size = (raw >> 1) ^ -(raw & 1)
        else:
            value_size, p = long_varint(d, p, b, VARINT_MAX_BYTES)
    if value_size >= 0:
        p += value_size
    elif value_size != -1:
        raise MalformedRecordError(i, f"Invalid negative value size {value_size} in record {i}")
    b = d[p]  # header count
    p += 1
    if b:
        p = _skip_headers(d, p, b, stop, i)
    if p != stop:
        raise MalformedRecordError(i, f"Invalid record size: expected to read {length} bytes in record {i}, "
                                      f"but instead read {length + p - stop}")
    return p, timestamp_delta, offset_delta, key_size


def _skip_headers(d, p: int, b: int, stop: int, index: int) -> int:
    """Past the headers of one record (their count's first byte is `b`); the rare path."""
    if b < 0x80:
        count = ZIGZAG[b]
    else:
        count, p = long_varint(d, p, b, VARINT_MAX_BYTES)
    if count < 0 or count > stop - p:  # a header takes two bytes at least
        raise MalformedRecordError(index, f"Found invalid number of record headers {count} in record {index}")
    for _ in range(count):
        key_size, p = read_varint(d, p)
        if key_size < 0:
            raise MalformedRecordError(index,
                                       f"Invalid negative header key size {key_size} in record {index}")
        p += key_size
        value_size, p = read_varint(d, p)
        if value_size >= 0:
            p += value_size
        elif value_size != -1:
            raise MalformedRecordError(index, f"Invalid header value size {value_size} in record {index}")
        if p > stop:
            break
    return p


def _check_nothing_after(reader: RecordsReader, p: int, end: int, count: int) -> None:
    """Nothing may follow the `count` declared records (Kafka's "records still remaining")."""
    if reader.streaming:
        reader.pos = p
        if not reader.at_end():
            raise MalformedRecordError(count, f"Incorrect declared batch size, records still remaining after "
                                              f"the {count} declared")
    elif p != end:
        raise MalformedRecordError(count, f"Incorrect declared batch size, {end - p} bytes still remaining "
                                          f"after the {count} declared records")
