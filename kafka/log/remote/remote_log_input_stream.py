"""RemoteLogInputStream: record batches read one at a time from a remote segment's byte stream (Kafka's
org.apache.kafka.common.record.RemoteLogInputStream).

Remote storage hands back a stream, not a file to slice: the reader takes the 12-byte log overhead
(base offset, batch length), then the rest of the batch, and knows each batch's offsets and size without
holding more than one batch. A stream that ends inside a batch (the segment's end, or a ranged read)
simply has no next batch.
"""

from __future__ import annotations

import struct
from typing import BinaryIO

from kafka.protocol.record_batch import HEADER_SIZE, LOG_OVERHEAD, CorruptRecordError, RecordBatch

_LOG_OVERHEAD = struct.Struct(">qi")


class RemoteLogInputStream:
    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def next_batch(self) -> RecordBatch | None:
        """The next whole batch, or None at the end of the stream."""
        overhead = _read_fully(self.stream, LOG_OVERHEAD)
        if len(overhead) < LOG_OVERHEAD:
            return None
        _, batch_length = _LOG_OVERHEAD.unpack(overhead)
        if batch_length < HEADER_SIZE - LOG_OVERHEAD:
            raise CorruptRecordError(f"batch length {batch_length} is smaller than a batch header")
        rest = _read_fully(self.stream, batch_length)
        if len(rest) < batch_length:
            return None
        return RecordBatch(overhead + rest)


def _read_fully(stream: BinaryIO, size: int) -> bytes:
    """`size` bytes, or fewer only at the end of the stream (a network stream may return short reads)."""
    chunks = []
    while size > 0:
        chunk = stream.read(size)
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)
