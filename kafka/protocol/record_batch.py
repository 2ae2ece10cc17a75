"""RecordBatch v2 (magic 2): Kafka's DefaultRecordBatch, DefaultRecord and MemoryRecords.

Seed 002: the producer groups records into batches and the I/O thread validates "a CRC check of the
data" before appending it to the commit log. The broker treats a batch as an opaque block of bytes
with a fixed 61-byte header: it checks the CRC-32C, reads the counts and offsets, and assigns
offsets by rewriting the 8-byte baseOffset in place. Nothing is re-encoded, so a compressed batch
is stored exactly as it came. The records inside are read by record_stream.py: every one of them
by the leader's LogValidator, and one batch's by a lookup by timestamp.

Layout of one batch (big-endian)::

    baseOffset int64 | batchLength int32 | partitionLeaderEpoch int32 | magic int8 | crc uint32
    | attributes int16 | lastOffsetDelta int32 | baseTimestamp int64 | maxTimestamp int64
    | producerId int64 | producerEpoch int16 | baseSequence int32 | recordsCount int32 | records...

batchLength counts the bytes after itself; the CRC covers attributes through the end.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Iterator

import crc32c

from kafka.protocol.compression import CompressionType, compress, compression_type_for_id
from kafka.protocol.record_stream import (
    CorruptRecordError,
    DefaultRecord,
    Header,
    InvalidRecordError,
    PartialRecord,
    RecordsReader,
    iter_partial_records,
    iter_records,
)
from kafka.protocol.types import VarInt, VarLong

__all__ = [
    "CorruptRecordError", "DefaultRecord", "Header", "InvalidRecordError", "PartialRecord", "RecordBatch",
    "build_batch", "encode_records", "iter_batches", "seal_batch", "set_base_offset", "set_log_append_time",
    "set_max_timestamp", "validate_batches",
]

HEADER = struct.Struct(">qiibIhiqqqhii")
HEADER_SIZE = HEADER.size  # 61
LOG_OVERHEAD = 12  # baseOffset + batchLength: the part batchLength does not count
CRC_OFFSET = 17
ATTRIBUTES_OFFSET = 21
MAX_TIMESTAMP_OFFSET = 35
MAGIC_OFFSET = 16
MAGIC_V2 = 2

COMPRESSION_MASK = 0x07
TIMESTAMP_TYPE_MASK = 0x08  # 0 = CreateTime, 1 = LogAppendTime
TRANSACTIONAL_MASK = 0x10
CONTROL_MASK = 0x20

NO_TIMESTAMP = -1
NO_PRODUCER_ID = -1


class RecordBatch:
    """A read-only view of one batch at `position` in `buffer`; the header is decoded once."""

    __slots__ = (
        "buffer",
        "position",
        "base_offset",
        "batch_length",
        "partition_leader_epoch",
        "magic",
        "crc",
        "attributes",
        "last_offset_delta",
        "base_timestamp",
        "max_timestamp",
        "producer_id",
        "producer_epoch",
        "base_sequence",
        "records_count",
    )

    def __init__(self, buffer: bytes | bytearray | memoryview, position: int = 0) -> None:
        if len(buffer) - position < HEADER_SIZE:
            raise CorruptRecordError(f"batch header needs {HEADER_SIZE} bytes, {len(buffer) - position} left")
        self.buffer = buffer
        self.position = position
        (
            self.base_offset,
            self.batch_length,
            self.partition_leader_epoch,
            self.magic,
            self.crc,
            self.attributes,
            self.last_offset_delta,
            self.base_timestamp,
            self.max_timestamp,
            self.producer_id,
            self.producer_epoch,
            self.base_sequence,
            self.records_count,
        ) = HEADER.unpack_from(buffer, position)

    @property
    def size_in_bytes(self) -> int:
        return self.batch_length + LOG_OVERHEAD

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.last_offset + 1

    @property
    def compression_type(self) -> CompressionType:
        """Raises UnsupportedCompressionTypeError for the ids no codec has (5, 6, 7)."""
        return compression_type_for_id(self.attributes & COMPRESSION_MASK)

    @property
    def is_log_append_time(self) -> bool:
        return bool(self.attributes & TIMESTAMP_TYPE_MASK)

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & TRANSACTIONAL_MASK)

    @property
    def is_control_batch(self) -> bool:
        return bool(self.attributes & CONTROL_MASK)

    def bytes(self) -> bytes:
        return bytes(self.buffer[self.position : self.position + self.size_in_bytes])

    def compute_checksum(self) -> int:
        end = self.position + self.size_in_bytes
        return crc32c.crc32c(memoryview(self.buffer)[self.position + ATTRIBUTES_OFFSET : end])

    def is_valid(self) -> bool:
        return (
            self.magic == MAGIC_V2
            and self.size_in_bytes >= HEADER_SIZE
            and self.position + self.size_in_bytes <= len(self.buffer)
            and self.compute_checksum() == self.crc
        )

    def ensure_valid(self) -> None:
        """Raise CorruptRecordError unless the batch is a whole, well-formed v2 batch."""
        if self.magic != MAGIC_V2:
            raise CorruptRecordError(f"unsupported magic {self.magic} at offset {self.base_offset}")
        if self.size_in_bytes < HEADER_SIZE:
            raise CorruptRecordError(f"batch length {self.batch_length} is smaller than a header")
        if self.position + self.size_in_bytes > len(self.buffer):
            raise CorruptRecordError("batch extends past the end of the buffer")
        if self.last_offset_delta < 0 or self.records_count < 0:
            raise CorruptRecordError("negative record count or offset delta")
        checksum = self.compute_checksum()
        if checksum != self.crc:
            raise CorruptRecordError(f"CRC-32C mismatch: stored {self.crc:#010x}, computed {checksum:#010x}")

    def records_reader(self) -> RecordsReader:
        """The records section, decompressed a bounded piece at a time (record_stream.py)."""
        return RecordsReader(self.compression_type, self.buffer, self.position + HEADER_SIZE,
                             self.position + self.size_in_bytes)

    def __iter__(self) -> Iterator[DefaultRecord]:
        """Whole records, keys and values, one at a time (Kafka's streamingIterator)."""
        return self._stamped(iter_records(self.records_reader(), self.records_count, self.base_offset,
                                          self.base_timestamp))

    def selected_records(self, indexes: set[int]) -> Iterator[DefaultRecord]:
        """The whole records at `indexes` (in order); the others are skipped, never held."""
        return self._stamped(iter_records(self.records_reader(), self.records_count, self.base_offset,
                                          self.base_timestamp, indexes))

    def skip_key_value_iterator(self, keep_keys: bool = False) -> Iterator[PartialRecord]:
        """Offsets, timestamps and sizes, values skipped as they stream past (Kafka's
        skipKeyValueIterator): what a time-index lookup or the cleaner's offset map needs."""
        return self._stamped(iter_partial_records(self.records_reader(), self.records_count, self.base_offset,
                                                  self.base_timestamp, keep_keys))

    def _stamped(self, records):
        """In a LogAppendTime batch every record's timestamp is the batch's (the time the leader appended
        it), whatever the producer put in the deltas: Kafka's DefaultRecordBatch reads them so."""
        if not self.is_log_append_time:
            return records
        append_time = self.max_timestamp
        return (r._replace(timestamp=append_time) if isinstance(r, tuple)
                else dataclasses.replace(r, timestamp=append_time)
                for r in records)

    def __repr__(self) -> str:
        return (
            f"RecordBatch(base_offset={self.base_offset}, last_offset={self.last_offset}, "
            f"count={self.records_count}, size={self.size_in_bytes}, "
            f"compression={self.compression_type.name})"
        )


def iter_batches(buffer: bytes | bytearray | memoryview, position: int = 0) -> Iterator[RecordBatch]:
    """The batches in a buffer, in order. A trailing partial batch (a fetch response may end in one)
    is not yielded; use `validate_batches` where the buffer must be whole."""
    end = len(buffer)
    while end - position >= HEADER_SIZE:
        batch = RecordBatch(buffer, position)
        if batch.batch_length < HEADER_SIZE - LOG_OVERHEAD or position + batch.size_in_bytes > end:
            return
        yield batch
        position += batch.size_in_bytes


def validate_batches(buffer: bytes | bytearray | memoryview) -> list[RecordBatch]:
    """Every batch of a produce request, each checked; the buffer must hold nothing else."""
    batches = []
    position = 0
    while position < len(buffer):
        batch = RecordBatch(buffer, position)
        batch.ensure_valid()
        batches.append(batch)
        position += batch.size_in_bytes
    if not batches:
        raise InvalidRecordError("no record batches")
    return batches


def set_log_append_time(buffer: bytearray, position: int, timestamp: int) -> None:
    """Stamp a batch with the broker's append time (Kafka's DefaultRecordBatch.setMaxTimestamp with
    LOG_APPEND_TIME): the timestamp-type attribute bit and maxTimestamp change, both inside the
    CRC, so the CRC is computed again. The records keep their own (now unused) timestamps."""
    (attributes,) = struct.unpack_from(">h", buffer, position + ATTRIBUTES_OFFSET)
    struct.pack_into(">h", buffer, position + ATTRIBUTES_OFFSET, attributes | TIMESTAMP_TYPE_MASK)
    struct.pack_into(">q", buffer, position + MAX_TIMESTAMP_OFFSET, timestamp)
    end = position + LOG_OVERHEAD + struct.unpack_from(">i", buffer, position + 8)[0]
    struct.pack_into(">I", buffer, position + CRC_OFFSET,
                     crc32c.crc32c(memoryview(buffer)[position + ATTRIBUTES_OFFSET : end]))


def set_max_timestamp(buffer: bytearray, position: int, timestamp: int) -> None:
    """Write the max timestamp the records hold into a CreateTime batch's header (Kafka's
    setMaxTimestamp(CREATE_TIME, ...), which also clears a LogAppendTime bit a producer set): both
    are inside the CRC, so the CRC is computed again."""
    (attributes,) = struct.unpack_from(">h", buffer, position + ATTRIBUTES_OFFSET)
    struct.pack_into(">h", buffer, position + ATTRIBUTES_OFFSET, attributes & ~TIMESTAMP_TYPE_MASK)
    struct.pack_into(">q", buffer, position + MAX_TIMESTAMP_OFFSET, timestamp)
    end = position + LOG_OVERHEAD + struct.unpack_from(">i", buffer, position + 8)[0]
    struct.pack_into(">I", buffer, position + CRC_OFFSET,
                     crc32c.crc32c(memoryview(buffer)[position + ATTRIBUTES_OFFSET : end]))


def set_base_offset(buffer: bytearray, position: int, base_offset: int) -> None:
    """Assign offsets to a whole batch: only baseOffset changes, and it is outside the CRC."""
    struct.pack_into(">q", buffer, position, base_offset)


# ---------------------------------------------------------------------------------- building
# Inside a batch every integer is a zigzag varint (the timestamp delta a varlong) and every key,
# value and header is a varint length (-1 for null) followed by that many bytes.


def _write_sized(out: bytearray, value: bytes | None) -> None:
    if value is None:
        VarInt.write(out, -1)
    else:
        VarInt.write(out, len(value))
        out += value


def build_batch(
    records: list[tuple[bytes | None, bytes | None]] | list[DefaultRecord],
    base_offset: int = 0,
    timestamp: int = 0,
    compression: CompressionType = CompressionType.NONE,
    producer_id: int = NO_PRODUCER_ID,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    is_transactional: bool = False,
) -> bytes:
    """Encode one batch (what a producer's RecordAccumulator closes): for tests and tools.
    `is_transactional` sets the attributes' transactional bit (a transactional producer's batch, KIP-98).

    `records` are (key, value) pairs, or DefaultRecords whose offset and timestamp are taken as
    absolute and turned into deltas."""
    items = [
        r if isinstance(r, DefaultRecord) else DefaultRecord(base_offset + i, timestamp, r[0], r[1])
        for i, r in enumerate(records)
    ]
    if not items:
        raise ValueError("a batch needs at least one record")
    base_timestamp = items[0].timestamp
    payload = compress(compression, encode_records(items, base_offset, base_timestamp))
    return seal_batch(
        base_offset=base_offset,
        attributes=int(compression) | (TRANSACTIONAL_MASK if is_transactional else 0),
        last_offset_delta=items[-1].offset - base_offset,
        base_timestamp=base_timestamp, max_timestamp=max(r.timestamp for r in items), producer_id=producer_id,
        producer_epoch=producer_epoch, base_sequence=base_sequence, records_count=len(items), payload=payload,
    )


def encode_records(records: list[DefaultRecord], base_offset: int, base_timestamp: int) -> bytes:
    """The records section of a batch, before compression: each record's offset and timestamp are
    varint deltas from the batch's base offset and base timestamp."""
    body = bytearray()
    for record in records:
        inner = bytearray(b"\x00")  # record attributes: unused
        VarLong.write(inner, record.timestamp - base_timestamp)
        VarInt.write(inner, record.offset - base_offset)
        _write_sized(inner, record.key)
        _write_sized(inner, record.value)
        VarInt.write(inner, len(record.headers))
        for header in record.headers:
            _write_sized(inner, header.key.encode())
            _write_sized(inner, header.value)
        VarInt.write(body, len(inner))
        body += inner
    return bytes(body)


def seal_batch(*, base_offset: int, attributes: int, last_offset_delta: int, base_timestamp: int,
               max_timestamp: int, producer_id: int, producer_epoch: int, base_sequence: int,
               records_count: int, payload: bytes, partition_leader_epoch: int = -1) -> bytes:
    """Put the 61-byte header in front of a (possibly compressed) records section and compute the
    CRC-32C over attributes..end, as a producer does when it closes a batch."""
    buf = bytearray(HEADER.pack(
        base_offset, HEADER_SIZE - LOG_OVERHEAD + len(payload), partition_leader_epoch, MAGIC_V2, 0,
        attributes, last_offset_delta, base_timestamp, max_timestamp, producer_id, producer_epoch,
        base_sequence, records_count,
    ))
    buf += payload
    struct.pack_into(">I", buf, CRC_OFFSET, crc32c.crc32c(memoryview(buf)[ATTRIBUTES_OFFSET:]))
    return bytes(buf)
