"""Arrays on the wire: a length, then the elements (Kafka's org.apache.kafka.common.protocol.types.ArrayOf
and CompactArrayOf).

KAFKA-643: a schema field may be an array of a primitive type or of a nested Schema, and the same
``read`` / ``write`` / ``size`` walk it. :class:`Array` is what a Field names; per version it resolves
to an :class:`ArrayCodec`, the concrete encoding: an int32 length (-1 for null) before KIP-482, an
unsigned varint of length + 1 (0 for null) in flexible versions.
"""

from __future__ import annotations

import struct
from typing import Any

from kafka.protocol.errors import ProtocolDecodeError, ProtocolEncodeError
from kafka.protocol.types import ByteReader, FixedType, Type, UnsignedVarInt, truncated

_I32 = struct.Struct(">i")


class ArrayCodec(Type):
    """A concrete array encoding: a length (int32, or compact uvarint N+1), then the elements.

    Null (length -1 / compact 0) is legal only when ``nullable``.
    """

    def __init__(self, element: Type, compact: bool, nullable: bool) -> None:
        self.element, self.compact, self.nullable = element, compact, nullable
        self.name = f"{'compact_' if compact else ''}{'nullable_' if nullable else ''}array[{element!r}]"
        self.default = None if nullable else []

    def read(self, reader: ByteReader) -> list[Any] | None:
        if self.compact:
            n = UnsignedVarInt.read(reader) - 1
        else:
            try:
                n = _I32.unpack_from(reader.buf, reader.pos)[0]
            except struct.error:
                raise truncated(reader, 4, f"{self.name} length") from None
            reader.pos += 4
        if n < 0:
            if n == -1 and self.nullable:
                return None
            raise ProtocolDecodeError(f"{self.name} has invalid length {n}")
        if n > reader.end - reader.pos:  # every element takes at least one byte: refuse absurd counts
            raise ProtocolDecodeError(
                f"{self.name} claims {n} elements, only {reader.end - reader.pos} bytes left"
            )
        read = self.element.read
        items: list[Any] = []
        try:
            for _ in range(n):
                items.append(read(reader))
            return items
        except ProtocolDecodeError as e:
            raise e.at(f"[{len(items)}]") from None

    def write(self, out: bytearray, value: list[Any] | None) -> None:
        if value is None:
            if not self.nullable:
                raise ProtocolEncodeError(f"None given for non-nullable {self.name}")
            if self.compact:
                out.append(0)
            else:
                out += _I32.pack(-1)
            return
        if self.compact:
            UnsignedVarInt.write(out, len(value) + 1)
        else:
            out += _I32.pack(len(value))
        write = self.element.write
        i = 0
        try:
            for i, item in enumerate(value):  # noqa: B007 (i and item are reported by the except clauses)
                write(out, item)
        except ProtocolEncodeError as e:
            raise e.at(f"[{i}]") from None
        except (struct.error, TypeError, AttributeError, ValueError, OverflowError) as e:
            raise ProtocolEncodeError(
                f"{type(item).__name__} {item!r:.60} is not a {self.element!r}: {e}"
            ).at(f"[{i}]") from None

    def size(self, value: list[Any] | None) -> int:
        if value is None:
            return 1 if self.compact else 4
        n = UnsignedVarInt.size(len(value) + 1) if self.compact else 4
        el = self.element
        if isinstance(el, FixedType):
            return n + el.width * len(value)
        return n + sum(el.size(item) for item in value)


class Array(Type):
    """The schema-level array of a primitive type or a Schema; resolves to an :class:`ArrayCodec`."""

    def __init__(self, element: Type) -> None:
        self.element = element
        self.name = f"[]{element!r}"
        self.default = []

    def resolve(self, version: int, flexible: bool, nullable: bool) -> Type:
        return ArrayCodec(self.element.resolve(version, flexible, False), flexible, nullable)
