"""Schema, Field and Record: one generic, versioned codec for every Kafka message (KAFKA-643).

Mirrors ``org.apache.kafka.common.protocol.types.Schema`` / ``Field`` / ``Struct`` and the per-field
``"versions"``, ``"nullableVersions"``, ``"taggedVersions"`` of ``clients/.../common/message/*.json``.

As in the seed, a message is *described*, not hand-serialized: a Schema is an ordered list of
Fields, and a single ``read`` / ``write`` / ``size`` walks any Schema at any version. Instead of one
schema per version (or one class per version), each Field carries the version range it exists in,
exactly as Kafka's message JSON does. The seed's performance remark ("get the element by a Field
object ... directly to the right slot") becomes: the first use of (schema, version, flexible)
compiles a :class:`StructCodec` -- the active fields in order, with runs of fixed-width fields
merged into one precompiled ``struct.Struct`` -- and every later message reuses it.

``out`` convention: ``write`` appends to a ``bytearray`` (``out += ...``); the caller owns it and
can patch a size prefix in place afterwards (see ``header.encode_response``).
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable
from typing import Any

from kafka.protocol.array_of import Array
from kafka.protocol.errors import ProtocolDecodeError, ProtocolEncodeError
from kafka.protocol.tagged_fields import TaggedFields
from kafka.protocol.types import ByteReader, FixedType, Type

__all__ = ["Array", "Field", "Record", "Schema", "StructCodec", "parse_versions"]

_UNSET: Any = object()  # "no value read/given yet"; distinct from None, which is a real (null) value
_NO_VERSIONS = (1, 0)  # an empty range: lo > hi
_ENCODE_FAILURES = (struct.error, TypeError, AttributeError, ValueError, OverflowError, KeyError)


def parse_versions(spec: str | None) -> tuple[int, int]:
    """Kafka's version-range syntax: "3+", "3-7", "5", "none" -> inclusive (lo, hi)."""
    if spec is None or spec == "none":
        return _NO_VERSIONS
    if spec.endswith("+"):
        return int(spec[:-1]), 0x7FFF
    lo, _, hi = spec.partition("-")
    return int(lo), int(hi or lo)


class Record:
    """A decoded struct: attribute access (``rec.topics[0].name``) and item access (``rec["name"]``).

    Just a ``__dict__`` of field values in schema order; lists hold nested Records. Records compare
    equal to Records or plain dicts with the same values.
    """

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __getitem__(self, name: str) -> Any:
        return self.__dict__[name]

    def __setitem__(self, name: str, value: Any) -> None:
        self.__dict__[name] = value

    def __contains__(self, name: str) -> bool:
        return name in self.__dict__

    def get(self, name: str, default: Any = None) -> Any:
        return self.__dict__.get(name, default)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Record):
            return self.__dict__ == other.__dict__
        if isinstance(other, dict):
            return self.__dict__ == other
        return NotImplemented

    __hash__ = None  # mutable, like a dict

    def to_dict(self) -> dict[str, Any]:
        """Plain dicts and lists all the way down (memoryviews become bytes), e.g. for JSON logs."""
        return {k: _plain(v) for k, v in self.__dict__.items()}

    def __repr__(self) -> str:
        return "Record(" + ", ".join(f"{k}={_short(v)}" for k, v in self.__dict__.items()) + ")"


def _plain(v: Any) -> Any:
    if isinstance(v, Record):
        return v.to_dict()
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, memoryview):
        return bytes(v)
    return v


def _short(v: Any) -> str:
    # A produce request's records can be megabytes: show their size, not their contents.
    if isinstance(v, (bytes, bytearray, memoryview)) and len(v) > 32:
        return f"<{len(v)} bytes>"
    if isinstance(v, memoryview):
        return repr(bytes(v))
    if isinstance(v, list):
        return "[" + ", ".join(_short(x) for x in v) + "]"
    return repr(v)


class Field:
    """One named, typed, versioned member of a Schema (one entry of a message JSON "fields" list).

    ``type`` is a primitive (``Int32``, ``String``, ``Records``...), ``Array(...)`` or a nested
    ``Schema``. ``default`` is what a missing value encodes as and what a decoded Record holds when
    the field is absent in that version; without one it is the type's zero (0, "", False, [], zero
    UUID, a Record of defaults) or None when the field is nullable in every version it exists in.
    A non-``ignorable`` field holding a non-default value cannot be written in a version that lacks
    it: that would silently drop information (Kafka raises UnsupportedVersionException there too).
    """

    __slots__ = (
        "name",
        "type",
        "versions",
        "nullable_versions",
        "tagged_versions",
        "tag",
        "ignorable",
        "about",
        "_range",
        "_nullable_range",
        "_tagged_range",
        "_default",
        "_fresh_default",
    )

    def __init__(
        self,
        name: str,
        type: Type | Schema,
        versions: str = "0+",
        *,
        nullable_versions: str | None = None,
        tagged_versions: str | None = None,
        tag: int | None = None,
        default: Any = _UNSET,
        ignorable: bool = False,
        about: str = "",
    ) -> None:
        if (tag is None) != (tagged_versions is None):
            raise ValueError(f"field {name}: tag and tagged_versions go together")
        self.name, self.type, self.versions = name, type, versions
        self.nullable_versions, self.tagged_versions, self.tag = nullable_versions, tagged_versions, tag
        self.ignorable, self.about = ignorable, about
        self._range = parse_versions(versions)
        self._nullable_range = parse_versions(nullable_versions)
        self._tagged_range = parse_versions(tagged_versions)
        if default is _UNSET:
            always_nullable = nullable_versions is not None and self._nullable_range[0] <= self._range[0]
            default = None if always_nullable else type.default
        self._default = default
        # What `default` calls for a value callers may mutate; None when the default is immutable.
        # Decided once here: a decoded Record fills every absent field with it.
        self._fresh_default: Callable[[], Any] | None = None
        if isinstance(type, Schema):
            if default is not None:
                self._fresh_default = type.new
        elif isinstance(default, dict):
            self._fresh_default = type.new
        elif isinstance(default, list):
            self._fresh_default = functools.partial(list, default)

    def present(self, version: int) -> bool:
        return self._range[0] <= version <= self._range[1]

    def nullable(self, version: int) -> bool:
        return self._nullable_range[0] <= version <= self._nullable_range[1]

    def tagged(self, version: int) -> bool:
        return self._tagged_range[0] <= version <= self._tagged_range[1]

    @property
    def default(self) -> Any:
        """A fresh default value (a new list / Record each time, so callers may mutate it)."""
        fresh = self._fresh_default
        return self._default if fresh is None else fresh()

    def _write_default(self) -> Any:
        # Shared and never mutated by write(), so no copy: () for lists, {} for structs.
        d = self._default
        if isinstance(self.type, Schema):
            return {} if d is not None else None
        return () if d == [] else d

    def is_default(self, value: Any) -> bool:
        d = self._default
        if isinstance(d, list) and isinstance(value, (list, tuple)):
            return list(value) == d
        if isinstance(self.type, Schema):
            return True  # only used for the ignorable check; nested structs are not compared
        return value == d

    def __repr__(self) -> str:
        extra = f", nullable_versions={self.nullable_versions!r}" if self.nullable_versions else ""
        if self.tag is not None:
            extra += f", tag={self.tag}, tagged_versions={self.tagged_versions!r}"
        return f"Field({self.name!r}, {self.type!r}, {self.versions!r}{extra})"


class Schema(Type):
    """An ordered list of Fields: a message body, or a struct nested in one.

    The public codec API (what the server calls)::

        rec = schema.read(reader, version, flexible)      # -> Record
        schema.write(out, rec, version, flexible)         # appends to bytearray `out`
        n = schema.size(rec, version, flexible)           # == bytes write() appends
    """

    def __init__(self, name: str, *fields: Field) -> None:
        self.name = name
        self.fields = fields
        self.by_name = {f.name: f for f in fields}
        if len(self.by_name) != len(fields):
            raise ValueError(f"{name}: duplicate field names")
        self._codecs: dict[tuple[int, bool], StructCodec] = {}

    @property
    def default(self) -> Any:  # a struct-typed field defaults to a Record of its fields' defaults
        return {}

    def __getitem__(self, name: str) -> Field:
        return self.by_name[name]

    def new(self, **values: Any) -> Record:
        """A Record holding every field: ``values`` where given, defaults elsewhere."""
        unknown = values.keys() - self.by_name.keys()
        if unknown:
            raise ProtocolEncodeError(f"unknown field(s) {sorted(unknown)}").at(self.name)
        return Record(**{f.name: values[f.name] if f.name in values else f.default for f in self.fields})

    def resolve(self, version: int, flexible: bool, nullable: bool = False) -> StructCodec:
        codec = self._codecs.get((version, flexible))
        if codec is None:
            codec = self._codecs[(version, flexible)] = StructCodec(self, version, flexible)
        return NullableStruct(codec) if nullable else codec

    def read(self, reader: ByteReader | bytes | memoryview, version: int, flexible: bool) -> Record:
        if not isinstance(reader, ByteReader):
            reader = ByteReader(reader)
        try:
            return self.resolve(version, flexible).read(reader)
        except ProtocolDecodeError as e:
            raise e.at(f"{self.name} v{version}") from None

    def write(self, out: bytearray, rec: Record | dict, version: int, flexible: bool) -> None:
        try:
            self.resolve(version, flexible).write(out, rec)
        except ProtocolEncodeError as e:
            raise e.at(f"{self.name} v{version}") from None

    def size(self, rec: Record | dict, version: int, flexible: bool) -> int:
        return self.resolve(version, flexible).size(rec)

    def __repr__(self) -> str:
        return self.name


# --- the compiled form ------------------------------------------------------------------------


def _fields_of(value: Any) -> dict[str, Any]:
    if type(value) is Record:
        return value.__dict__
    if isinstance(value, dict):
        return value
    if isinstance(value, Record):
        return value.__dict__
    raise ProtocolEncodeError(f"expected a Record or dict, got {type(value).__name__}")


class _One:
    """A step that reads/writes one field with its resolved codec."""

    __slots__ = ("field", "name", "codec", "dflt")

    def __init__(self, field: Field, codec: Type) -> None:
        self.field, self.name, self.codec, self.dflt = field, field.name, codec, field._write_default()

    def read_into(self, reader: ByteReader, d: dict[str, Any]) -> None:
        d[self.name] = self.codec.read(reader)

    def write_from(self, out: bytearray, d: dict[str, Any]) -> None:
        self.codec.write(out, d.get(self.name, self.dflt))

    def size_of(self, d: dict[str, Any]) -> int:
        return self.codec.size(d.get(self.name, self.dflt))


class _FixedRun:
    """Consecutive fixed-width fields merged into one Struct: one C call reads or writes them all."""

    __slots__ = ("fields", "names", "struct", "width", "dflts")

    def __init__(self, fields: list[Field], codecs: list[FixedType]) -> None:
        self.fields = fields
        self.names = tuple(f.name for f in fields)
        self.struct = struct.Struct(">" + "".join(c.fmt for c in codecs))
        self.width = self.struct.size
        self.dflts = tuple(f._write_default() for f in fields)

    def read_into(self, reader: ByteReader, d: dict[str, Any]) -> None:
        d.update(zip(self.names, self.struct.unpack_from(reader.buf, reader.pos), strict=True))
        reader.pos += self.width

    def write_from(self, out: bytearray, d: dict[str, Any]) -> None:
        get = d.get
        out += self.struct.pack(*[get(n, dv) for n, dv in zip(self.names, self.dflts, strict=True)])

    def size_of(self, d: dict[str, Any]) -> int:
        return self.width


class NullableStruct(Type):
    """A struct field that may be null (ConsumerGroupHeartbeatResponse's Assignment): Kafka writes an
    int8 before it, -1 for null and 1 for a struct that follows."""

    def __init__(self, codec: StructCodec) -> None:
        self.codec = codec
        self.name = f"nullable {codec.name}"

    def read(self, reader: ByteReader) -> Record | None:
        present = reader.buf[reader.pos]
        reader.pos += 1
        return None if present == 0xFF else self.codec.read(reader)

    def write(self, out: bytearray, value: Any) -> None:
        if value is None:
            out.append(0xFF)
        else:
            out.append(1)
            self.codec.write(out, value)

    def size(self, value: Any) -> int:
        return 1 if value is None else 1 + self.codec.size(value)


class StructCodec(Type):
    """A Schema compiled for one (version, flexible): what actually reads and writes bytes."""

    def __init__(self, schema: Schema, version: int, flexible: bool) -> None:
        self.schema, self.version, self.flexible = schema, version, flexible
        self.name = f"{schema.name}(v{version})"
        self.names = tuple(f.name for f in schema.fields)
        self._name_set = frozenset(self.names)
        steps: list[_One | _FixedRun] = []
        run: list[tuple[Field, FixedType]] = []

        def flush() -> None:
            if len(run) == 1:
                steps.append(_One(*run[0]))
            elif run:
                steps.append(_FixedRun([f for f, _ in run], [c for _, c in run]))
            run.clear()

        tagged: list[tuple[Field, Type]] = []
        absent: list[Field] = []
        for f in schema.fields:
            if not f.present(version) or (f.tagged(version) and not flexible):
                absent.append(f)
                continue
            codec = f.type.resolve(version, flexible, f.nullable(version))
            if f.tagged(version):
                tagged.append((f, codec))
            elif isinstance(codec, FixedType):
                run.append((f, codec))
            else:
                flush()
                steps.append(_One(f, codec))
        flush()
        self.steps = steps
        tagged.sort(key=lambda fc: fc[0].tag)
        self.tags = {f.tag: (f.name, c) for f, c in tagged}
        if len(self.tags) != len(tagged):
            raise ValueError(f"{self.name}: duplicate tags")
        # (field, tag, codec, encoding of the default): a tagged field equal to its default is not sent
        self.tagged = [(f, f.tag, c, self._encode(c, f._write_default())) for f, c in tagged]
        # fields a decoded Record still needs a value for: absent in this version, or tagged and not sent
        self.fills = absent + [f for f, _ in tagged]
        self.strict = [f for f in absent if not f.ignorable and not f.present(version)]

    @staticmethod
    def _encode(codec: Type, value: Any) -> bytearray:
        buf = bytearray()
        codec.write(buf, value)
        return buf

    # -- read --

    def read(self, reader: ByteReader) -> Record:
        d = dict.fromkeys(self.names, _UNSET)  # pre-sized, and keeps the schema's field order
        step = None
        try:
            for step in self.steps:
                step.read_into(reader, d)
            if self.flexible:
                step = None
                TaggedFields.read(reader, self.tags, d)
        except ProtocolDecodeError as e:
            raise e.at(self._where(step)) from None
        except struct.error:
            raise ProtocolDecodeError(f"truncated at offset {reader.pos}").at(self._where(step)) from None
        for f in self.fills:
            if d[f.name] is _UNSET:
                d[f.name] = f.default
        rec = Record.__new__(Record)
        rec.__dict__ = d
        return rec

    @staticmethod
    def _where(step: _One | _FixedRun | None) -> str:
        if step is None:
            return "<tagged fields>"
        if isinstance(step, _One):
            return step.name
        return "/".join(step.names)  # somewhere in a merged run of fixed-width fields

    # -- write / size --

    def write(self, out: bytearray, value: Any) -> None:
        d = value.__dict__ if type(value) is Record else _fields_of(value)
        if not d.keys() <= self._name_set:  # a typo'd field name would otherwise silently become a default
            raise ProtocolEncodeError(f"unknown field(s) {sorted(d.keys() - self._name_set)}")
        step = None
        try:
            for step in self.steps:
                step.write_from(out, d)
        except ProtocolEncodeError as e:
            raise (e.at(step.name) if isinstance(step, _One) else e) from None
        except _ENCODE_FAILURES as e:
            raise self._explain(step, d, e) from None
        if self.strict:
            self._check_droppable(d)
        if self.flexible:
            encoded = self._encode_tagged(d) if self.tagged else None
            if encoded:
                TaggedFields.write(out, encoded)
            else:
                out.append(0)  # an empty tagged-field section: the common case

    def size(self, value: Any) -> int:
        d = _fields_of(value)
        n = 0
        for step in self.steps:
            n += step.size_of(d)
        if self.flexible:
            n += TaggedFields.size(self._encode_tagged(d)) if self.tagged else 1
        return n

    def _encode_tagged(self, d: dict[str, Any]) -> list[tuple[int, bytearray]]:
        encoded = []
        for f, tag, codec, default_bytes in self.tagged:
            v = d.get(f.name, _UNSET)
            if v is _UNSET:
                continue
            try:
                raw = self._encode(codec, v)
            except ProtocolEncodeError as e:
                raise e.at(f.name) from None
            except _ENCODE_FAILURES as e:
                raise ProtocolEncodeError(f"{v!r:.60} is not a {codec!r}: {e}").at(f.name) from None
            if raw != default_bytes:
                encoded.append((tag, raw))
        return encoded

    def _check_droppable(self, d: dict[str, Any]) -> None:
        for f in self.strict:
            v = d.get(f.name, _UNSET)
            if v is not _UNSET and not f.is_default(v):
                raise ProtocolEncodeError(
                    f"non-default value {v!r:.60} cannot be sent: the field exists only in versions "
                    f"{f.versions}"
                ).at(f.name)

    def _explain(self, step: _One | _FixedRun | None, d: dict[str, Any], e: Exception) -> ProtocolEncodeError:
        """Turn a low-level failure (struct.error, AttributeError...) into an error naming the field."""
        if isinstance(step, _FixedRun):  # find which member of the merged run was bad
            for f, dv in zip(step.fields, step.dflts, strict=True):
                v = d.get(f.name, dv)
                try:
                    f.type.write(bytearray(), v)
                except _ENCODE_FAILURES as inner:
                    e, step = inner, _One(f, f.type)
                    break
        if not isinstance(step, _One):
            return ProtocolEncodeError(f"{self.name}: {e}")
        v = d.get(step.name, step.dflt)
        if v is None:
            why = f"None given, but the field is not nullable in version {self.version}"
        else:
            why = f"{type(v).__name__} {v!r:.60} is not a valid {step.codec!r}: {e}"
        return ProtocolEncodeError(why).at(step.name)
