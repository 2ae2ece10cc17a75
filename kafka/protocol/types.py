"""The primitive wire types of the Kafka protocol, each with ``read``, ``write`` and ``size``.

Mirrors ``org.apache.kafka.common.protocol.types.Type`` (INT8 ... COMPACT_NULLABLE_BYTES,
UNSIGNED_VARINT, UUID, RECORDS) and ``ByteBufferAccessor``.

KAFKA-643: "a single read, write, and size method" per type instead of ad hoc serialization code
in every API. Conventions used by every type here:

* ``read(reader)`` consumes bytes from a :class:`ByteReader` and returns a Python value;
* ``write(out, value)`` appends the encoding to ``out``, a ``bytearray``;
* ``size(value)`` returns ``len`` of what ``write`` would append.

A schema field names a *family* (``String``, ``Bytes``, ``Records``, ``Array(...)``); the codec asks
``family.resolve(version, flexible, nullable)`` once per version for the concrete encoding, because
flexible versions (KIP-482) switch to "compact" lengths (unsigned varint of length + 1).

Arrays are in ``array_of.py`` (Kafka's ArrayOf and CompactArrayOf) and the tagged-field section of a
flexible struct in ``tagged_fields.py`` (Kafka's TaggedFields); the Schema that puts them together is
``schema.py``.
"""

from __future__ import annotations

import struct
import uuid
from typing import Any

from kafka.protocol.errors import ProtocolDecodeError, ProtocolEncodeError
from kafka.protocol.response_send import is_transferable

ZERO_UUID = uuid.UUID(int=0)


class ByteReader:
    """A buffer and a read position: the Python stand-in for a Java ``ByteBuffer``.

    ``buf`` is a memoryview, so slicing it (for strings, bytes, records) copies nothing.
    Fixed-width reads rely on ``struct.unpack_from``, which raises on a short buffer; length-prefixed
    reads check ``end`` themselves because slicing past the end silently returns less.
    """

    __slots__ = ("buf", "pos", "end")

    def __init__(self, data: bytes | bytearray | memoryview, pos: int = 0) -> None:
        view = memoryview(data)
        self.buf = view if view.format == "B" and view.ndim == 1 else view.cast("B")
        self.pos = pos
        self.end = len(self.buf)

    @property
    def remaining(self) -> int:
        return self.end - self.pos

    def take(self, n: int) -> memoryview:
        """The next ``n`` bytes as a zero-copy view."""
        pos = self.pos
        if n < 0 or pos + n > self.end:
            raise ProtocolDecodeError(f"need {n} bytes at offset {pos}, only {self.end - pos} left")
        self.pos = pos + n
        return self.buf[pos : pos + n]


class Type:
    """Base of every wire type. ``default`` is the value a missing field takes."""

    name = "type"
    default: Any = None

    def resolve(self, version: int, flexible: bool, nullable: bool) -> Type:
        """The concrete encoding for this (version, flexible, nullable); fixed types are themselves."""
        return self

    def read(self, reader: ByteReader) -> Any:
        raise NotImplementedError

    def write(self, out: bytearray, value: Any) -> None:
        raise NotImplementedError

    def size(self, value: Any) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.name


class FixedType(Type):
    """A big-endian fixed-width value. ``struct`` is exposed so a schema can coalesce a run of
    consecutive fixed fields into one precompiled Struct (one C call instead of one per field)."""

    def __init__(self, name: str, fmt: str, default: Any = 0) -> None:
        self.name = name
        self.struct = struct.Struct(">" + fmt)
        self.fmt = fmt
        self.width = self.struct.size
        self.default = default
        self._unpack_from = self.struct.unpack_from
        self._pack = self.struct.pack

    def read(self, reader: ByteReader) -> Any:
        try:
            value = self._unpack_from(reader.buf, reader.pos)[0]
        except struct.error:
            raise truncated(reader, self.width, self.name) from None
        reader.pos += self.width
        return value

    def write(self, out: bytearray, value: Any) -> None:
        out += self._pack(value)

    def size(self, value: Any) -> int:
        return self.width


Int8 = FixedType("int8", "b")
Int16 = FixedType("int16", "h")
Int32 = FixedType("int32", "i")
Int64 = FixedType("int64", "q")
UInt16 = FixedType("uint16", "H")
UInt32 = FixedType("uint32", "I")
Float64 = FixedType("float64", "d", 0.0)
Boolean = FixedType("bool", "?", False)


def truncated(reader: ByteReader, need: int, what: str) -> ProtocolDecodeError:
    return ProtocolDecodeError(
        f"truncated: {what} needs {need} bytes at offset {reader.pos}, {reader.remaining} left"
    )


class _UnsignedVarInt(Type):
    """Protocol-buffer style base-128 varint: 7 bits per byte, high bit means "more follows"."""

    name = "uvarint"
    default = 0
    max_bytes = 5

    def read(self, reader: ByteReader) -> int:
        buf, pos = reader.buf, reader.pos
        if pos >= reader.end:
            raise ProtocolDecodeError(f"varint truncated at offset {pos}")
        b = buf[pos]
        if b < 0x80:  # the common case: one byte (every length under 128)
            reader.pos = pos + 1
            return b
        value, shift = b & 0x7F, 7
        limit = min(reader.end, pos + self.max_bytes)
        pos += 1
        while pos < limit:
            b = buf[pos]
            pos += 1
            value |= (b & 0x7F) << shift
            if b < 0x80:
                reader.pos = pos
                return value
            shift += 7
        raise ProtocolDecodeError(f"varint longer than {self.max_bytes} bytes or truncated at offset {pos}")

    def write(self, out: bytearray, value: int) -> None:
        if 0 <= value < 0x80:
            out.append(value)
            return
        if not 0 <= value < 1 << (7 * self.max_bytes):
            raise ProtocolEncodeError(f"{value} does not fit in a {self.name}")
        while value >= 0x80:
            out.append((value & 0x7F) | 0x80)
            value >>= 7
        out.append(value)

    def size(self, value: int) -> int:
        n = 1
        while value >= 0x80:
            value >>= 7
            n += 1
        return n


class _UnsignedVarLong(_UnsignedVarInt):
    name = "uvarlong"
    max_bytes = 10


UnsignedVarInt = _UnsignedVarInt()
_UVarLong = _UnsignedVarLong()


class _ZigZag(Type):
    """Signed varint: zigzag maps 0,-1,1,-2,... to 0,1,2,3,... so small negatives stay short."""

    default = 0

    def __init__(self, name: str, bits: int, unsigned: _UnsignedVarInt) -> None:
        self.name, self.bits, self._u = name, bits, unsigned
        self._lo, self._hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def read(self, reader: ByteReader) -> int:
        z = self._u.read(reader)
        return (z >> 1) ^ -(z & 1)

    def write(self, out: bytearray, value: int) -> None:
        if not self._lo <= value <= self._hi:
            raise ProtocolEncodeError(f"{value} does not fit in a {self.name}")
        self._u.write(out, (value << 1) ^ (value >> (self.bits - 1)))

    def size(self, value: int) -> int:
        return self._u.size((value << 1) ^ (value >> (self.bits - 1)))


VarInt = _ZigZag("varint", 32, UnsignedVarInt)
VarLong = _ZigZag("varlong", 64, _UVarLong)


class _Uuid(Type):
    """16 raw bytes, read as ``uuid.UUID``. Writes accept a UUID or 16 bytes."""

    name = "uuid"
    default = ZERO_UUID

    def read(self, reader: ByteReader) -> uuid.UUID:
        return uuid.UUID(bytes=bytes(reader.take(16)))

    def write(self, out: bytearray, value: uuid.UUID | bytes) -> None:
        raw = value.bytes if isinstance(value, uuid.UUID) else bytes(value)
        if len(raw) != 16:
            raise ProtocolEncodeError(f"a uuid is 16 bytes, got {len(raw)}")
        out += raw

    def size(self, value: Any) -> int:
        return 16


Uuid = _Uuid()

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")


class _Sized(Type):
    """Shared shape of strings, bytes and records: a length, then that many bytes.

    ``compact`` lengths are an unsigned varint of (length + 1), with 0 meaning null;
    classic lengths are int16 (strings) or int32 (bytes), with -1 meaning null.
    The four variants of a family share one ``resolve`` table.
    """

    def __init__(self, name: str, family: str, compact: bool, nullable: bool, wide: bool) -> None:
        self.name, self.family, self.compact, self.nullable = name, family, compact, nullable
        self._len = _I32 if wide else _I16
        self._variants: dict[tuple[bool, bool], _Sized] = {}
        self.default = None if nullable else self._empty

    _empty: Any = b""

    def resolve(self, version: int, flexible: bool, nullable: bool) -> Type:
        return self._variants[(flexible, nullable)]

    def _read_length(self, reader: ByteReader) -> int:
        if self.compact:
            n = UnsignedVarInt.read(reader) - 1
        else:
            try:
                n = self._len.unpack_from(reader.buf, reader.pos)[0]
            except struct.error:
                raise truncated(reader, self._len.size, f"{self.name} length") from None
            reader.pos += self._len.size
        if n < 0:
            if n == -1 and self.nullable:
                return -1
            raise ProtocolDecodeError(f"{self.name} has invalid length {n}")
        return n

    def _write_length(self, out: bytearray, n: int) -> None:
        if self.compact:
            UnsignedVarInt.write(out, n + 1)
        else:
            out += self._len.pack(n)

    def _length_size(self, n: int) -> int:
        return UnsignedVarInt.size(n + 1) if self.compact else self._len.size

    def _null(self, out: bytearray | None) -> int:
        if not self.nullable:
            raise ProtocolEncodeError(f"None given for non-nullable {self.name}")
        if out is not None:
            self._write_length(out, -1)
        return self._length_size(-1)


class _String(_Sized):
    _empty = ""

    def read(self, reader: ByteReader) -> str | None:
        n = self._read_length(reader)
        if n < 0:
            return None
        raw = reader.take(n)
        try:
            return str(raw, "utf-8")
        except UnicodeDecodeError as e:
            raise ProtocolDecodeError(f"{self.name} is not valid UTF-8: {e.reason}") from None

    def write(self, out: bytearray, value: str | None) -> None:
        if value is None:
            self._null(out)
            return
        raw = value.encode("utf-8")
        if not self.compact and len(raw) > 0x7FFF:
            raise ProtocolEncodeError(f"{self.name} longer than 32767 bytes")
        self._write_length(out, len(raw))
        out += raw

    def size(self, value: str | None) -> int:
        if value is None:
            return self._null(None)
        n = len(value.encode("utf-8")) if not value.isascii() else len(value)
        return self._length_size(n) + n


class _Bytes(_Sized):
    """Opaque bytes. ``read`` copies them out (``bytes``), since such fields are small and kept."""

    _copy = True

    def read(self, reader: ByteReader) -> bytes | memoryview | None:
        n = self._read_length(reader)
        if n < 0:
            return None
        view = reader.take(n)
        return bytes(view) if self._copy else view

    def write(self, out: bytearray, value: Any) -> None:
        if value is None:
            self._null(out)
            return
        self._write_length(out, len(value))
        out += value  # one memcpy; works for bytes, bytearray and memoryview alike

    def size(self, value: Any) -> int:
        if value is None:
            return self._null(None)
        n = len(value)
        return self._length_size(n) + n


class _Records(_Bytes):
    """A RecordBatch blob: nullable bytes the codec never looks inside (the log does that).

    ``read`` returns a zero-copy ``memoryview`` into the request frame: produce requests are the
    largest thing the broker decodes and their payload goes straight to the log. Call ``bytes()``
    on it if you must keep it after the frame buffer is gone.
    """

    _copy = False

    def write(self, out: bytearray, value: Any) -> None:
        if is_transferable(value):  # a FileRecords slice: its bytes are sent later, from the file
            transfers = getattr(out, "transfers", None)
            if transfers is None:  # the codec does no I/O: only a ResponseSend can carry a slice
                raise ProtocolEncodeError(f"{self.name}: a file slice needs a ResponseSend buffer")
            self._write_length(out, len(value))
            transfers.append((len(out), value))
            return
        super().write(out, value)


def _family(cls: type[_Sized], name: str, wide: bool) -> tuple[_Sized, _Sized, _Sized, _Sized]:
    plain = cls(name, name, False, False, wide)
    nullable = cls("nullable_" + name, name, False, True, wide)
    compact = cls("compact_" + name, name, True, False, wide)
    compact_nullable = cls("compact_nullable_" + name, name, True, True, wide)
    table = {
        (False, False): plain,
        (False, True): nullable,
        (True, False): compact,
        (True, True): compact_nullable,
    }
    for member in table.values():
        member._variants = table
    return plain, nullable, compact, compact_nullable


String, NullableString, CompactString, CompactNullableString = _family(_String, "string", wide=False)
Bytes, NullableBytes, CompactBytes, CompactNullableBytes = _family(_Bytes, "bytes", wide=True)
Records, NullableRecords, CompactRecords, CompactNullableRecords = _family(_Records, "records", wide=True)
