"""Runs of records of one shape: how `record_stream.scan_records` checks most records of a batch
a column of bytes at a time instead of one record at a time. Kafka has no such class: its
validator reads each record in Java, where a loop costs little; this module is what a Python
broker does to pay Kafka's price for reading every record.

Most batches repeat one record shape (one producer's payloads, the same key and value sizes).
Once the record loop has accepted a record, `same_shape_run` looks at the records that follow and
steps over those that would parse exactly as it did, comparing every byte that decides how a
record parses with C-speed slices (`d[at::size]`). Each function's docstring says what it proves.
(One compiled regular expression per layout, matching a whole run, was measured too: `re` spends
some 20 ns a record on it, four times what the slices cost.)
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from kafka.protocol.varints import VARINT_MAX_BYTES, VARLONG_MAX_BYTES, ZIGZAG, long_varint

MIN_RUN = 8  # fewer records than this cost less in the loop than a run's fixed cost

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
    """What `same_shape_run` found in the `count` records it stepped over."""

    count: int
    min_timestamp_delta: int
    max_timestamp_delta: int
    keyless: bool
    misplaced: list[int]


def _varint_at(d, p: int) -> tuple[int, int]:
    b = d[p]
    if b < 0x80:
        return ZIGZAG[b], p + 1
    return long_varint(d, p + 1, b, VARLONG_MAX_BYTES)


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
    b = d[p]
    if b < 0x80:
        shape.append((p - start, b))
        return ZIGZAG[b], p + 1
    c = d[p + 1]
    if c < 0x80:  # two bytes: sizes up to 8,191
        shape += ((p - start, b), (p + 1 - start, c))
        raw = b & 0x7F | c << 7
        return (raw >> 1) ^ -(raw & 1), p + 2
    value, after = long_varint(d, p + 1, b, VARINT_MAX_BYTES)
    shape += zip(range(p - start, after - start), d[p:after], strict=True)
    return value, after


def same_shape_run(d, template: int, first_at: int, first: int, count: int, end: int) -> RunScan | None:
    """Records `first`, `first` + 1, ... at `first_at`, `first_at` + size, ... (size: the template's,
    the record at `template` just accepted) that parse exactly as the template does; None if the
    `MIN_RUN` records ahead do not all start with its first byte, or the next one does not parse as
    it does.

    Why that needs no parse of its own: the record loop's path through a record, and the position it ends at,
    depend only on the bytes of the record's length, key and value sizes, header count and header sizes, and
    on how many bytes its timestamp and offset deltas take. A record with the template's bytes there (its
    `RecordLayout.shape`) and deltas of the template's widths is read field for field as the template was, so
    it is as well formed, as long, as keyless, and its deltas are where the template's are. That is checked
    for all the records at once, one column of bytes each (`d[at::size]`, a C loop): each shape byte's column
    is that byte throughout (equal to n copies of it: one memcmp), each delta's continuation bits are the
    template's. Then the deltas' values: the timestamps' smallest
    and largest, and each offset delta against its record's position."""
    size = first_at - template
    n = min(count - first, (end - first_at) // size)
    if n < MIN_RUN or _leading(d, first_at, MIN_RUN, size, d[template]) < MIN_RUN:  # a first look, cheap
        return None
    layout = record_layout(d, template)
    n = min(n, _OFFSET_DELTA_FITS[layout.offset_delta[1]] - first)  # positions the deltas' width can hold
    if n <= 0:
        return None
    if not isinstance(d, bytes):  # a memoryview's columns copy slowly: one copy of the run, bytes' columns
        d, template, first_at = bytes(d[template : first_at + n * size]), 0, size
    for offset, byte in layout.shape:  # `_leading`, inline: a dozen calls a run
        column = d[first_at + offset : first_at + offset + n * size : size]
        if column != _BYTE[byte] * n:
            n -= len(column.lstrip(_BYTE[byte]))
            if not n:
                return None
    timestamps = _columns(d, first_at, n, size, *layout.timestamp_delta)
    offsets = _columns(d, first_at, n, size, *layout.offset_delta)
    expected = [_offset_delta_column(first, n, len(offsets), k) for k in range(len(offsets))]
    n = min(_leading_widths(timestamps), _leading_widths(offsets, expected))
    if not n:
        return None
    if n < len(timestamps[0]):
        timestamps, offsets, expected = ([c[:n] for c in columns]
                                         for columns in (timestamps, offsets, expected))
    lo, hi = _timestamp_delta_range(timestamps)
    return RunScan(n, lo, hi, layout.keyless, _misplaced(offsets, expected, first))


def _leading(d, at: int, n: int, size: int, byte: int) -> int:
    """How many of the run's n records, from the first, hold `byte` at `at` (one column): the run
    ends at the first record that does not. Comparing with n copies of `byte` is one memcmp. (A
    memoryview's slice is a view; bytes() copies it, and returns a bytes object as it is.)"""
    column = bytes(d[at : at + n * size : size])
    if column == _BYTE[byte] * n:
        return n
    return n - len(column.lstrip(_BYTE[byte]))


def _leading_widths(columns: list[bytes], expected: list[bytes] | None = None) -> int:
    """How many of the run's records, from the first, have a varint of exactly this width (its
    bytes in `columns`): the continuation bit set in every byte but the last, clear in that one.
    A column equal to its `expected` one (the offset deltas' own positions) has those bits."""
    n = len(columns[0])
    for k, column in enumerate(columns):
        if expected and column == expected[k]:
            continue
        if k < len(columns) - 1:
            shorter = column.translate(_HIGH_BIT).find(0)
        else:  # ASCII: every byte's high bit clear
            shorter = -1 if column.isascii() else column.translate(_HIGH_BIT).find(1)
        if shorter != -1:
            n = min(n, shorter)
    return n


def _columns(d: bytes, first_at: int, n: int, size: int, at: int, width: int) -> list[bytes]:
    """The bytes of one varint field of the run's records: column k holds each record's byte k."""
    return [d[first_at + k : first_at + k + n * size : size] for k in range(at, at + width)]


def _timestamp_delta_range(columns: list[bytes]) -> tuple[int, int]:
    """(smallest, largest) timestamp delta of the run's records (their varints' bytes in `columns`).

    Records come in time order, so the first and the last record's deltas are usually the
    smallest and the largest: `_between_ends` checks that with a few C passes. Otherwise each
    distinct delta is decoded (`set` gathers them in C)."""
    first, last = [column[0] for column in columns], [column[-1] for column in columns]
    low, high = (first, last) if first[::-1] <= last[::-1] else (last, first)  # most significant byte first
    if _between_ends(columns, low, high):
        deltas = [_varint_value(low), _varint_value(high)]
    elif len(columns) == 1:
        deltas = [ZIGZAG[b] for b in set(columns[0])]
    else:
        deltas = [_varint_value(parts) for parts in set(zip(*columns, strict=True))]
    return min(deltas), max(deltas)


def _between_ends(columns: list[bytes], low: list[int], high: list[int]) -> bool:
    """Whether every record's varint (its bytes in `columns`) has the sign of `low` and `high` and
    lies between them. A zigzag varint is negative when its lowest bit is set; varints of one sign
    sort as their values do (backwards, if negative), so the deltas then lie between the ends'.
    As numbers' digits, from the most significant byte (the last): one pass finds none outside
    the ends' bytes there, then `_any_beyond` looks at the records tied with an end."""
    if (low[0] ^ high[0]) & 1:
        return False
    low_byte, high_byte = low[-1], high[-1]
    allowed = bytearray(_ONES)  # a translate table: 0 for the bytes allowed, 1 for the others
    if len(columns) == 1:  # one pass: the bytes of that sign from low to high
        allowed[low_byte : high_byte + 1 : 2] = bytes((high_byte - low_byte) // 2 + 1)
        return 1 not in columns[0].translate(allowed)
    allowed[low_byte : high_byte + 1] = bytes(high_byte - low_byte + 1)
    return (1 not in columns[0].translate(_OTHER_SIGN[low[0] & 1]) and 1 not in columns[-1].translate(allowed)
            and not _any_beyond(columns, high, 1) and not _any_beyond(columns, low, -1))


def _varint_bits(varint) -> int:
    """A varint's bits, before zigzag (`varint`: its bytes)."""
    return sum((b & 0x7F) << 7 * k for k, b in enumerate(varint))


def _varint_value(varint) -> int:
    raw = _varint_bits(varint)
    return (raw >> 1) ^ -(raw & 1)


def _any_beyond(columns: list[bytes], bound: list[int], direction: int) -> bool:
    """Whether a record's varint (its bytes in `columns`), none beyond `bound` in its most
    significant byte (the last), is greater (direction 1) or less (-1) than `bound` in the rest:
    tied with it in the bytes above, beyond it in one. Records in time order keep their ties
    together, so each byte narrows the records still tied to one stretch (`find` and `rfind` of
    the bound's byte, one memcmp to see nothing else lies between) and one pass over that stretch
    looks for a byte beyond; ties scattered through the run go to `_any_beyond_scattered`."""
    for k in range(len(columns) - 1, 0, -1):
        column, b = columns[k], bound[k]
        first = column.find(b)
        if first == -1:
            return False
        last = column.rfind(b) + 1
        if column[first:last] != _BYTE[b] * (last - first):
            return _any_beyond_scattered(columns[: k + 1], bound[: k + 1], direction)
        columns = [c[first:last] for c in columns[:k]]
        if 1 in columns[-1].translate(_beyond_table(bound[k - 1], direction)):
            return True
    return False


def _beyond_table(b: int, direction: int) -> bytes:
    return _flag_table(b + 1, 255) if direction > 0 else _flag_table(0, b - 1)


def _any_beyond_scattered(columns: list[bytes], bound: list[int], direction: int) -> bool:
    """`_any_beyond`, whichever records are tied: each column becomes a byte of 0 or 1 a record,
    read as one integer, so one `&` combines all the records."""
    n = len(columns[0])
    tied = int.from_bytes(b"\x01" * n, "big")
    beyond = 0
    for column, b in zip(reversed(columns), reversed(bound), strict=True):
        beyond |= tied & int.from_bytes(column.translate(_beyond_table(b, direction)), "big")
        tied &= int.from_bytes(column.translate(_flag_table(b, b)), "big")
        if beyond or not tied:
            break
    return beyond != 0


def _misplaced(columns: list[bytes], expected: list[bytes], first: int) -> list[int]:
    """The run's records whose offset delta (its bytes in `columns`) is not their position (whose
    bytes are in `expected`, from `_offset_delta_column`). Every delta here has the same width, and
    each position fits it: a varint of a given width has one encoding a value, so equal bytes are
    equal values."""
    wrong: set[int] = set()
    for column, want in zip(columns, expected, strict=True):
        if column != want:
            wrong.update(j for j in range(len(column)) if column[j] != want[j])
    return [first + j for j in sorted(wrong)]


def _offset_delta_column(first: int, n: int, width: int, k: int) -> bytes:
    """Byte `k` of the varints of `first`, `first` + 1, ... (n of them, each `width` bytes long, the
    longer ones padded with empty groups of seven bits, as a varint may be)."""
    more = 0x80 if k < width - 1 else 0  # the continuation bit
    if k < 2:  # bits 7k.. of zigzag(j) = 2j repeat every 64 << 7k records: a slice of one period
        period = _offset_delta_period(k, more)
        start = first % len(period)
        if start + n > len(period):
            period *= (start + n) // len(period) + 1
        return period[start : start + n]
    shift = 7 * k - 1  # bits 7k.. of 2j are bits 7k-1.. of j: the same for 2**shift records in a row
    column = bytearray()
    j, last = first, first + n
    while j < last:
        step_end = min(((j >> shift) + 1) << shift, last)
        column += _BYTE[(j >> shift) & 0x7F | more] * (step_end - j)
        j = step_end
    return bytes(column)


@functools.cache
def _offset_delta_period(k: int, more: int) -> bytes:
    """Byte k (0 or 1) of the varints of 0, 1, 2, ...: one period (64 or 8,192 records; 4 are made)."""
    return bytes((2 * j) >> 7 * k & 0x7F | more for j in range(64 << 7 * k))


_BYTE = tuple(bytes([b]) for b in range(256))
_HIGH_BIT = bytes(b >> 7 for b in range(256))  # a translate table: a varint byte's continuation bit
# Translate tables flagging a first byte of the other sign (its lowest bit), by sign.
_OTHER_SIGN = (bytes(b & 1 for b in range(256)), bytes(1 - (b & 1) for b in range(256)))
_ONES = b"\x01" * 256
# Positions below _OFFSET_DELTA_FITS[w] fit an offset delta of w bytes: zigzag(j) = 2j < 2**(7w).
_OFFSET_DELTA_FITS = (0,) + tuple(1 << (7 * w - 1) for w in range(1, VARINT_MAX_BYTES + 1))


@functools.cache
def _flag_table(low: int, high: int) -> bytes:
    """A translate table: 1 for the bytes from `low` to `high`, else 0 (at most 768 are made)."""
    return bytes(low <= b <= high for b in range(256))
