"""RecordBatch v2 decoded column by column: the fetched bytes straight into arrays, no object per record.

Not a Kafka class. Kafka's ``DefaultRecord.readFrom`` (``kafka.protocol.record_batch._read_record``
here) makes one object per record; Java can afford that, Python pays a few microseconds each.
Spark wants columns anyway (the Python data source hands Spark Arrow record batches), so this
module reads the same bytes the other way round: *all* records' offsets at once, then all their
timestamps, all their keys... each step one numpy operation over every record of a fetch.

A record inside a batch is (see record_batch.py)::

    length varint | attributes int8 | timestampDelta varlong | offsetDelta varint
    | keyLength varint | key | valueLength varint | value | headerCount varint | headers...

Where a record starts depends on the length of the one before it, so finding the starts is the
one loop that runs per record (``record_starts``: two or three byte reads each). Everything after
that is vectorised: a varint is read at every record's position at once (``read_varints``), and
keys and values stay as (start, length) pairs into the fetched bytes until Arrow copies them out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kafka.protocol.compression import CompressionType, decompress
from kafka.protocol.record_batch import HEADER_SIZE, CorruptRecordError, RecordBatch

VARINT_MAX_BYTES = 5
VARLONG_MAX_BYTES = 10
PADDING = b"\x00" * VARLONG_MAX_BYTES  # a varint read may look past the last byte; it never uses it


@dataclass
class Slices:
    """Variable-length fields of many records as positions into ``RecordColumns.data``; a length
    of -1 is a null (a record's key, or a header's value)."""

    starts: np.ndarray
    lengths: np.ndarray


@dataclass
class RecordColumns:
    """The records of some batches, one numpy array per field, in offset order."""

    data: bytes  # the batches' record sections (decompressed), end to end
    offsets: np.ndarray  # int64
    timestamps: np.ndarray  # int64, ms: the record's, or the batch's LogAppendTime
    log_append_time: np.ndarray  # bool: whose timestamp it is
    keys: Slices
    values: Slices
    header_counts: np.ndarray  # int64 per record
    header_keys: Slices  # every header of every record, record by record
    header_values: Slices

    def __len__(self) -> int:
        return len(self.offsets)

    def select(self, keep: np.ndarray) -> RecordColumns:
        """Only the records where ``keep`` is True (with their headers)."""
        header_keep = np.repeat(keep, self.header_counts)
        return RecordColumns(
            self.data, self.offsets[keep], self.timestamps[keep], self.log_append_time[keep],
            Slices(self.keys.starts[keep], self.keys.lengths[keep]),
            Slices(self.values.starts[keep], self.values.lengths[keep]), self.header_counts[keep],
            Slices(self.header_keys.starts[header_keep], self.header_keys.lengths[header_keep]),
            Slices(self.header_values.starts[header_keep], self.header_values.lengths[header_keep]))


def record_section(batch: RecordBatch) -> bytes:
    """The bytes after the 61-byte header, decompressed."""
    body = batch.buffer[batch.position + HEADER_SIZE : batch.position + batch.size_in_bytes]
    if batch.compression_type == CompressionType.NONE:
        return bytes(body)
    return decompress(batch.compression_type, body)


def record_starts(data: bytes, count: int) -> tuple[list[int], list[int]]:
    """Where each of ``count`` records begins (just after its length) and its length.

    The only loop over records: each start is the previous start plus the previous length.
    """
    starts, lengths = [0] * count, [0] * count
    pos = 0
    try:
        for i in range(count):
            b = data[pos]
            pos += 1
            raw, shift = b & 0x7F, 7
            while b & 0x80:
                b = data[pos]
                pos += 1
                raw |= (b & 0x7F) << shift
                shift += 7
            length = (raw >> 1) ^ -(raw & 1)  # zigzag
            starts[i], lengths[i] = pos, length
            pos += length
    except IndexError:
        raise CorruptRecordError(f"record {i} of {count} runs past the end of its batch") from None
    if pos != len(data):
        raise CorruptRecordError(f"{count} records take {pos} bytes, the batches hold {len(data)}")
    return starts, lengths


def read_varints(buf: np.ndarray, positions: np.ndarray, max_bytes: int = VARINT_MAX_BYTES):
    """The zigzag varint at each position: (values, sizes in bytes), all records at once."""
    raw = np.zeros(len(positions), np.uint64)
    sizes = np.zeros(len(positions), np.int64)
    more = np.ones(len(positions), bool)
    for i in range(max_bytes):
        byte = buf[positions + i].astype(np.uint64)
        raw |= np.where(more, (byte & np.uint64(0x7F)) << np.uint64(7 * i), np.uint64(0))
        sizes += more
        more &= byte >= 0x80
        if not more.any():
            break
    else:
        raise CorruptRecordError(f"a varint longer than {max_bytes} bytes")
    values = (raw >> np.uint64(1)).astype(np.int64) ^ -(raw & np.uint64(1)).astype(np.int64)
    return values, sizes


def _read_sized(buf: np.ndarray, positions: np.ndarray) -> tuple[Slices, np.ndarray]:
    """A varint length and that many bytes at each position: the slices and the positions after."""
    lengths, sizes = read_varints(buf, positions)
    starts = positions + sizes
    return Slices(starts, lengths), starts + np.maximum(lengths, 0)


def _read_headers(buf: np.ndarray, positions: np.ndarray, counts: np.ndarray):
    """Every record's headers, record by record: (keys, values, the positions after them).

    One pass per header *index*: the first header of every record that has one, then the second...
    """
    total = int(counts.sum())
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))  # where each record's headers go
    keys = Slices(np.zeros(total, np.int64), np.zeros(total, np.int64))
    values = Slices(np.zeros(total, np.int64), np.zeros(total, np.int64))
    after = positions.copy()
    rows = np.nonzero(counts > 0)[0]
    at = positions[rows]
    index = 0
    while len(rows):
        key, at = _read_sized(buf, at)
        value, at = _read_sized(buf, at)
        slot = first[rows] + index
        keys.starts[slot], keys.lengths[slot] = key.starts, key.lengths
        values.starts[slot], values.lengths[slot] = value.starts, value.lengths
        index += 1
        more = counts[rows] > index
        after[rows[~more]] = at[~more]
        rows, at = rows[more], at[more]
    return keys, values, after


def decode_columns(batches: list[RecordBatch]) -> RecordColumns:
    """Every record of ``batches`` (v2, already CRC-checked by the fetcher) as columns."""
    sections = [record_section(b) for b in batches]
    counts = np.array([b.records_count for b in batches], np.int64)
    data = b"".join(sections)
    starts, lengths = record_starts(data, int(counts.sum()))
    buf = np.frombuffer(data + PADDING, np.uint8)
    start = np.array(starts, np.int64)
    end = start + np.array(lengths, np.int64)

    position = start + 1  # the record's attributes byte: unused
    timestamp_delta, size = read_varints(buf, position, VARLONG_MAX_BYTES)
    position += size
    offset_delta, size = read_varints(buf, position)
    position += size
    keys, position = _read_sized(buf, position)
    values, position = _read_sized(buf, position)
    header_counts, size = read_varints(buf, position)
    position += size
    if (header_counts < 0).any():
        raise CorruptRecordError("a record with a negative header count")
    header_keys, header_values, position = _read_headers(buf, position, header_counts)
    if (position != end).any():
        bad = int(np.argmax(position != end))
        raise CorruptRecordError(f"record {bad}: its length ({lengths[bad]}) does not match its fields")

    def per_record(values) -> np.ndarray:
        return np.repeat(np.array(values, np.int64), counts)

    log_append_time = np.repeat(np.array([b.is_log_append_time for b in batches], bool), counts)
    timestamps = np.where(log_append_time, per_record([b.max_timestamp for b in batches]),
                          per_record([b.base_timestamp for b in batches]) + timestamp_delta)
    offsets = per_record([b.base_offset for b in batches]) + offset_delta
    return RecordColumns(data, offsets, timestamps, log_append_time, keys, values, header_counts,
                         header_keys, header_values)


def decode_offset_range(batches: list[RecordBatch], from_offset: int, until_offset: int) -> RecordColumns:
    """The records of ``batches`` whose offsets are in ``[from_offset, until_offset)``: a fetch
    returns whole batches, so the first may start before the range and the last run past it."""
    columns = decode_columns(batches)
    keep = (columns.offsets >= from_offset) & (columns.offsets < until_offset)
    return columns if keep.all() else columns.select(keep)
