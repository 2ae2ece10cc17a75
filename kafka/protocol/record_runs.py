"""Runs of records of one shape: how `record_stream.scan_records` checks most records of a batch
a column of bytes at a time instead of one record at a time. Kafka has no such class: its
validator reads each record in Java, where a loop costs little; this module is what a Python
broker does to pay Kafka's price for reading every record.

Most batches repeat one record shape (one producer's payloads, the same key and value sizes).
Once the record loop has accepted a record, `same_shape_run` looks at the records that follow and
steps over those that would parse exactly as it did, comparing every byte that decides how a
record parses with C-speed slices (`d[at::size]`). Each function's docstring says what it proves.
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
    value, after = _varint_at(d, p)
    shape += [(at - start, d[at]) for at in range(p, after)]
    return value, after


def same_shape_run(d, template: int, first_at: int, first: int, count: int, end: int) -> RunScan | None:
    """Records `first`, `first` + 1, ... at `first_at`, `first_at` + size, ... (size: the template's,
    the record at `template` just accepted) that parse exactly as the template does; None if fewer
    than `MIN_RUN` records ahead start as it does, or the next one does not parse as it does.

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
    if n < MIN_RUN:
        return None
    n -= len(_column(d, first_at, n, size).lstrip(_BYTE[d[template]]))  # the length's first byte
    if n < MIN_RUN:
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
        deltas = [ZIGZAG[b] for b in columns[0]]
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
