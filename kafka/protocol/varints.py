"""Kafka's zigzag varints, read where they lie in a buffer (Kafka's ByteUtils.readVarint and
readVarlong): the record scan's primitives, shared by `record_stream` and `record_runs`.

A record's lengths, counts and deltas are zigzag varints: seven bits a byte, the high bit saying
another byte follows, the lowest bit of the value its sign. `read_varint` reads one. The record
loop of `record_stream.scan_records` decodes the one-byte case inline (`ZIGZAG`) and calls
`long_varint` for the rest: measured faster there (its `_read_record` gives the figures).
"""

from __future__ import annotations

VARINT_MAX_BYTES = 5
VARLONG_MAX_BYTES = 10
ZIGZAG = tuple((b >> 1) ^ -(b & 1) for b in range(128))  # a one-byte varint's value


def long_varint(d, p: int, b: int, max_bytes: int) -> tuple[int, int]:
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


def read_varint(d, p: int) -> tuple[int, int]:
    """Kafka's ByteUtils.readVarint: the zigzag varint at `p` (at most 5 bytes); returns (value, next
    position)."""
    b = d[p]
    if b < 0x80:
        return ZIGZAG[b], p + 1
    return long_varint(d, p + 1, b, VARINT_MAX_BYTES)

