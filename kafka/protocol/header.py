"""Request and response headers, and whole-frame encode/decode helpers.

Mirrors ``common/message/RequestHeader.json`` / ``ResponseHeader.json`` and
``org.apache.kafka.common.requests.RequestHeader`` / ``RequestContext.parseRequest``.

KAFKA-643: "the generic piece being the header shared by all requests and responses, and the
specific portion being the bits for that message". The network layer calls only
``parse_request_header`` (and ``encode_api_versions_fallback``); ``KafkaApis`` calls
``decode_request`` / ``encode_response``.

Frames: on the wire every request and response is ``int32 size`` + ``size`` bytes. The network
layer strips the request's size prefix before calling in here; ``encode_response`` returns a
complete frame, size prefix included.

Header versions: request v1 = api_key, api_version, correlation_id, client_id (int16-length
nullable string, even in flexible versions, so any broker can read it); v2 adds a tagged-field
section. Response v0 = correlation_id; v1 adds a tagged-field section.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import kafka.protocol.messages  # noqa: F401  (fills APIS)
from kafka.protocol.api_keys import APIS, Api, ApiKey
from kafka.protocol.errors import Errors, ProtocolDecodeError, UnsupportedVersionError
from kafka.protocol.response_send import ResponseSend
from kafka.protocol.schema import Record
from kafka.protocol.tagged_fields import TaggedFields
from kafka.protocol.types import ByteReader, NullableString

_FIXED = struct.Struct(">hhi")  # api_key, api_version, correlation_id
_I32 = struct.Struct(">i")


@dataclass(frozen=True, slots=True)
class RequestHeader:
    api_key: int  # a plain int: it may be a key this broker does not know
    api_version: int
    correlation_id: int
    client_id: str | None
    header_size: int  # bytes of header; the body starts here
    header_version: int = 1

    @property
    def api(self) -> Api | None:
        return APIS.get(self.api_key)


def parse_request_header(data: bytes | bytearray | memoryview) -> RequestHeader:
    """Parse the header of a request frame (without its 4-byte size prefix).

    Header v2 is used when the api is known and the version is flexible -- including versions
    newer than we support, as Kafka does, so a too-new ApiVersions request still parses. For an
    unknown api key only the v1 part is read: enough to answer (or log) with the correlation id.
    Raises ProtocolDecodeError if even that is unreadable; the connection should then be closed.
    """
    reader = ByteReader(data)
    try:
        api_key, api_version, correlation_id = _FIXED.unpack_from(reader.buf, 0)
    except struct.error:
        raise ProtocolDecodeError(f"request header needs 8 bytes, frame has {len(reader.buf)}") from None
    reader.pos = _FIXED.size
    try:
        client_id = NullableString.read(reader)
        api = APIS.get(api_key)
        header_version = 1
        if api is not None and api.is_flexible(api_version):
            TaggedFields.read(reader, {}, {})  # no header tags are defined for requests; skip any
            header_version = 2
    except struct.error:
        raise ProtocolDecodeError("request header truncated").at("RequestHeader") from None
    except ProtocolDecodeError as e:
        raise e.at("RequestHeader") from None
    return RequestHeader(api_key, api_version, correlation_id, client_id, reader.pos, header_version)


def decode_request(api: Api, version: int, data: bytes | bytearray | memoryview, header_size: int) -> Record:
    """Decode the body that follows the header in ``data``. Raises UnsupportedVersionError for a
    version we do not advertise, ProtocolDecodeError (code INVALID_REQUEST) for malformed bytes."""
    if not api.is_supported(version):
        raise UnsupportedVersionError(
            f"{api.name} v{version} is not supported ({api.min_version}-{api.max_version})"
        )
    return api.request.read(ByteReader(data, header_size), version, api.is_flexible(version))


def encode_response(api: Api, version: int, correlation_id: int,
                    body: Record | dict[str, Any]) -> ResponseSend:
    """The complete response frame: size prefix, response header (v0, or v1 if flexible; always v0
    for ApiVersions), body. Returned as the buffer it was built in: a fetch response can carry
    megabytes of records, and copying them once more into an immutable bytes would buy nothing.
    Records given as file slices stay in their files (ResponseSend.transfers): the size prefix
    counts them, the network thread sends them with os.sendfile."""
    out = ResponseSend(4)  # size placeholder, patched below: cheaper than a size() pass over the body
    out += _I32.pack(correlation_id)
    if api.response_header_version(version) >= 1:
        out.append(0)  # empty tagged-field section
    api.response.write(out, body, version, api.is_flexible(version))
    _I32.pack_into(out, 0, out.size - 4)
    return out


def encode_api_versions_fallback(
    correlation_id: int, api_keys_ranges: Iterable[tuple[int, int, int]] | None = None
) -> bytearray:
    """Answer an ApiVersions request whose version is too new for us (KIP-511).

    The client cannot know which ApiVersions version we can read, so we reply in v0 (readable by
    every client) with error UNSUPPORTED_VERSION; the client then retries with a version from the
    ranges given. ``api_keys_ranges`` are (api_key, min_version, max_version); by default only
    ApiVersions' own range, which is what Kafka sends. Pass ``advertised_ranges()`` to list all.
    """
    api = APIS[ApiKey.API_VERSIONS]
    if api_keys_ranges is None:
        api_keys_ranges = [(api.key, api.min_version, api.max_version)]
    body = {
        "error_code": Errors.UNSUPPORTED_VERSION,
        "api_keys": [{"api_key": k, "min_version": lo, "max_version": hi} for k, lo, hi in api_keys_ranges],
    }
    return encode_response(api, 0, correlation_id, body)


def advertised_ranges() -> list[tuple[int, int, int]]:
    """(api_key, min_version, max_version) of every registered API, for the ApiVersions response."""
    return [(int(a.key), a.min_version, a.max_version) for a in sorted(APIS.values(), key=lambda a: a.key)]


# --- the client side (used by tests and by a future kafka.clients) ---------------------------


def encode_request_header(api_key: int, api_version: int, correlation_id: int, client_id: str | None,
                          header_version: int) -> bytes:
    """The bytes of a request header, the inverse of parse_request_header (Kafka's RequestHeader.write).

    Version 1: api_key int16, api_version int16, correlation_id int32, client_id as an int16 length
    and its UTF-8 bytes (-1 for None). Version 2, used with flexible API versions, adds an empty
    tagged-field section: one 0 byte. encode_request writes the same bytes inline; this function
    is the header alone, which students write by hand in lab 01 (docs/labs/01-wire-protocol.md).
    """
    # BEGIN LAB 01 SOLUTION: pack api_key, api_version, correlation_id, then client_id; v2 adds one 0 byte
    out = bytearray(_FIXED.pack(api_key, api_version, correlation_id))
    NullableString.write(out, client_id)  # int16 length, not compact, even in v2: every broker can read it
    if header_version >= 2:
        out.append(0)  # no tagged fields are defined for request headers: an empty section
    return bytes(out)
    # END LAB 01 SOLUTION


def encode_request(
    api: Api, version: int, correlation_id: int, client_id: str | None, body: Record | dict[str, Any]
) -> bytes:
    """A complete request frame, size prefix included."""
    out = bytearray(4)
    out += _FIXED.pack(api.key, version, correlation_id)
    NullableString.write(out, client_id)
    if api.request_header_version(version) >= 2:
        out.append(0)
    api.request.write(out, body, version, api.is_flexible(version))
    _I32.pack_into(out, 0, len(out) - 4)
    return bytes(out)


def decode_response(api: Api, version: int, data: bytes | bytearray | memoryview) -> tuple[int, Record]:
    """(correlation_id, body) of a response frame given without its size prefix."""
    reader = ByteReader(data)
    correlation_id = _I32.unpack_from(reader.buf, 0)[0]
    reader.pos = 4
    if api.response_header_version(version) >= 1:
        TaggedFields.read(reader, {}, {})
    return correlation_id, api.response.read(reader, version, api.is_flexible(version))
