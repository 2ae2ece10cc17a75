"""The tagged fields that end every struct in a flexible version (Kafka's
org.apache.kafka.common.protocol.types.TaggedFields, KIP-482).

A field added to a message later can be "tagged" instead of versioned: a reader that does not know
its tag skips it by its size, so old brokers ignore what newer clients add. ``schema.py`` writes a
struct's tagged fields through this class, ``header.py`` a request header's.
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.errors import ProtocolDecodeError
from kafka.protocol.types import ByteReader, Type, UnsignedVarInt


class TaggedFields:
    """The tagged-field section that ends every struct in a flexible version (KIP-482).

    Layout: uvarint count, then per field: uvarint tag, uvarint size, ``size`` bytes of value.
    Tags are written in ascending order; tags a reader does not know are skipped by their size,
    which is what lets old brokers ignore fields added by newer clients.
    """

    @staticmethod
    def read(reader: ByteReader, known: dict[int, tuple[str, Type]], into: dict[str, Any]) -> None:
        count = UnsignedVarInt.read(reader)
        last = -1
        for _ in range(count):
            tag = UnsignedVarInt.read(reader)
            if tag <= last:
                raise ProtocolDecodeError(f"tagged fields out of order: tag {tag} after {last}")
            last = tag
            size = UnsignedVarInt.read(reader)
            field = known.get(tag)
            if field is None:
                reader.take(size)  # unknown tag: skip it
                continue
            name, codec = field
            end = reader.pos + size
            try:
                into[name] = codec.read(reader)
            except ProtocolDecodeError as e:
                raise e.at(name) from None
            if reader.pos != end:
                raise ProtocolDecodeError(
                    f"tagged field {tag} declared {size} bytes, value used {reader.pos - end + size}"
                )

    @staticmethod
    def write(out: bytearray, encoded: list[tuple[int, bytes | bytearray]]) -> None:
        """``encoded``: (tag, value bytes) pairs, ascending by tag."""
        UnsignedVarInt.write(out, len(encoded))
        for tag, raw in encoded:
            UnsignedVarInt.write(out, tag)
            UnsignedVarInt.write(out, len(raw))
            out += raw

    @staticmethod
    def size(encoded: list[tuple[int, bytes | bytearray]]) -> int:
        n = UnsignedVarInt.size(len(encoded))
        for tag, raw in encoded:
            n += UnsignedVarInt.size(tag) + UnsignedVarInt.size(len(raw)) + len(raw)
        return n
