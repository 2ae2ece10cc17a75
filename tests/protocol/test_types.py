"""Primitive wire types: every type round-trips, size() == len(write()), known encodings, bad input."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka.protocol import types as T
from kafka.protocol.array_of import Array, ArrayCodec
from kafka.protocol.errors import Errors, ProtocolDecodeError, ProtocolEncodeError
from kafka.protocol.tagged_fields import TaggedFields
from kafka.protocol.types import ByteReader

FAST = settings(max_examples=150, deadline=None)


def roundtrip(codec: T.Type, value: object) -> object:
    out = bytearray()
    codec.write(out, value)
    assert codec.size(value) == len(out)
    reader = ByteReader(bytes(out))
    got = codec.read(reader)
    assert reader.pos == len(out), "read must consume exactly what write produced"
    return got


def ints(bits: int, signed: bool = True) -> st.SearchStrategy[int]:
    return (
        st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else st.integers(0, (1 << bits) - 1)
    )


FIXED = [
    (T.Int8, ints(8)),
    (T.Int16, ints(16)),
    (T.Int32, ints(32)),
    (T.Int64, ints(64)),
    (T.UInt16, ints(16, signed=False)),
    (T.UInt32, ints(32, signed=False)),
    (T.Boolean, st.booleans()),
    (T.Float64, st.floats(allow_nan=False)),
    (T.VarInt, ints(32)),
    (T.VarLong, ints(64)),
    (T.UnsignedVarInt, ints(32, signed=False)),
    (T.Uuid, st.uuids()),
]


@pytest.mark.parametrize(("codec", "values"), FIXED, ids=[c.name for c, _ in FIXED])
@FAST
@given(data=st.data())
def test_scalar_roundtrip(codec: T.Type, values: st.SearchStrategy, data: st.DataObject) -> None:
    value = data.draw(values)
    assert roundtrip(codec, value) == value


SIZED = [
    (T.String, st.text(max_size=40)),
    (T.NullableString, st.none() | st.text(max_size=40)),
    (T.CompactString, st.text(max_size=200)),
    (T.CompactNullableString, st.none() | st.text(max_size=40)),
    (T.Bytes, st.binary(max_size=40)),
    (T.NullableBytes, st.none() | st.binary(max_size=40)),
    (T.CompactBytes, st.binary(max_size=200)),
    (T.CompactNullableBytes, st.none() | st.binary(max_size=40)),
    (T.Records, st.binary(max_size=40)),
    (T.CompactNullableRecords, st.none() | st.binary(max_size=300)),
    (ArrayCodec(T.Int32, compact=False, nullable=False), st.lists(ints(32), max_size=5)),
    (ArrayCodec(T.CompactString, compact=True, nullable=True), st.none() | st.lists(st.text(max_size=5))),
    (Array(T.String).resolve(0, False, True), st.none() | st.lists(st.text(max_size=5), max_size=4)),
]


@pytest.mark.parametrize(("codec", "values"), SIZED, ids=[c.name for c, _ in SIZED])
@FAST
@given(data=st.data())
def test_sized_roundtrip(codec: T.Type, values: st.SearchStrategy, data: st.DataObject) -> None:
    value = data.draw(values)
    got = roundtrip(codec, value)
    assert got == value
    if isinstance(codec, T._Records) and value is not None:
        assert isinstance(got, memoryview), "records are handed on zero-copy"


def encode(codec: T.Type, value: object) -> bytes:
    out = bytearray()
    codec.write(out, value)
    return bytes(out)


@pytest.mark.parametrize(
    ("codec", "value", "wire"),
    [
        (T.UnsignedVarInt, 0, "00"),
        (T.UnsignedVarInt, 127, "7f"),
        (T.UnsignedVarInt, 128, "8001"),
        (T.UnsignedVarInt, 300, "ac02"),
        (T.VarInt, -1, "01"),  # zigzag: small negatives stay one byte
        (T.VarInt, 1, "02"),
        (T.VarInt, -(2**31), "ffffffff0f"),
        (T.VarLong, -(2**63), "ffffffffffffffffff01"),
        (T.String, "kafka", "00056b61666b61"),
        (T.NullableString, None, "ffff"),
        (T.CompactString, "", "01"),  # compact lengths are length + 1 ...
        (T.CompactNullableString, None, "00"),  # ... so that 0 can mean null
        (T.NullableBytes, None, "ffffffff"),
        (T.CompactBytes, b"\x01\x02", "030102"),
        (T.Int16, -1, "ffff"),
        (T.Uuid, uuid.UUID(int=1), "00000000000000000000000000000001"),
    ],
)
def test_known_encodings(codec: T.Type, value: object, wire: str) -> None:
    assert encode(codec, value).hex() == wire
    assert codec.read(ByteReader(bytes.fromhex(wire))) == value


def test_string_families_resolve_by_flexible_and_nullable() -> None:
    assert T.String.resolve(3, flexible=False, nullable=False) is T.String
    assert T.String.resolve(3, flexible=True, nullable=True) is T.CompactNullableString
    assert T.NullableBytes.resolve(9, flexible=True, nullable=False) is T.CompactBytes
    assert T.Records.resolve(9, flexible=True, nullable=True) is T.CompactNullableRecords
    assert T.Int32.resolve(9, flexible=True, nullable=True) is T.Int32


@pytest.mark.parametrize(
    ("codec", "wire"),
    [
        (T.Int32, "000001"),  # short fixed-width read
        (T.String, "0005616263"),  # length says 5, 3 bytes follow
        (T.CompactBytes, "0501"),
        (T.UnsignedVarInt, "8080"),  # continuation bit with nothing after it
        (T.UnsignedVarInt, "ffffffffff01"),  # longer than 5 bytes
        (T.String, "ffff"),  # null for a non-nullable string
        (T.String, "0002c328"),  # invalid UTF-8
        (ArrayCodec(T.Int32, False, False), "7fffffff"),  # absurd element count
        (ArrayCodec(T.Int32, False, False), "0000000200000001"),
    ],
)
def test_bad_input_raises_decode_error(codec: T.Type, wire: str) -> None:
    with pytest.raises(ProtocolDecodeError):
        codec.read(ByteReader(bytes.fromhex(wire)))


def test_decode_error_carries_invalid_request_code() -> None:
    with pytest.raises(ProtocolDecodeError) as e:
        T.String.read(ByteReader(b"\x00\x09abc"))
    assert e.value.error is Errors.INVALID_REQUEST


@pytest.mark.parametrize(
    ("codec", "value"),
    [
        (T.String, None),
        (T.CompactBytes, None),
        (ArrayCodec(T.Int32, True, False), None),
        (T.UnsignedVarInt, -1),
        (T.VarInt, 2**31),
        (T.Uuid, b"short"),
    ],
)
def test_unencodable_values_raise(codec: T.Type, value: object) -> None:
    with pytest.raises(ProtocolEncodeError):
        codec.write(bytearray(), value)


def test_tagged_fields_skip_unknown_tags() -> None:
    out = bytearray()
    TaggedFields.write(out, [(1, encode(T.Int32, 7)), (5, b"whatever"), (9, encode(T.CompactString, "x"))])
    assert TaggedFields.size([(1, b"1234"), (5, b"whatever"), (9, b"\x02x")]) == len(out)
    got: dict[str, object] = {}
    reader = ByteReader(bytes(out))
    TaggedFields.read(reader, {1: ("one", T.Int32), 9: ("nine", T.CompactString)}, got)
    assert got == {"one": 7, "nine": "x"}
    assert reader.remaining == 0


def test_tagged_field_size_mismatch_is_an_error() -> None:
    wire = bytes([1, 0, 3]) + encode(T.Int32, 7)  # one field, tag 0, claims 3 bytes, value is 4
    with pytest.raises(ProtocolDecodeError):
        TaggedFields.read(ByteReader(wire), {0: ("x", T.Int32)}, {})


def test_byte_reader_accepts_any_buffer() -> None:
    for data in (b"\x00\x01", bytearray(b"\x00\x01"), memoryview(b"\x00\x01")):
        assert T.Int16.read(ByteReader(data)) == 1
    reader = ByteReader(b"abcdef", pos=2)
    assert bytes(reader.take(3)) == b"cde" and reader.remaining == 1
