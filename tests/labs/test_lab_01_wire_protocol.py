"""Lab 01, the wire protocol by hand (docs/labs/01-wire-protocol.md): `encode_request_header` in
kafka/protocol/header.py, then whole requests built on it and answered by a real broker.

Seed 001 (KAFKA-643): every request is "a generic piece being the header shared by all requests"
and "the specific portion being the bits for that message". `kafka-lab check 01` prints each
check's docstring as PASS or STILL MISSING.
"""

from __future__ import annotations

import socket
import struct

import pytest

from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.header import decode_response, encode_request_header, parse_request_header

API_VERSIONS = APIS[ApiKey.API_VERSIONS]
METADATA = APIS[ApiKey.METADATA]


def request_frame(api, version: int, correlation_id: int, client_id: str | None, body: dict) -> bytes:
    """Size prefix + the student's header + the body written by the Schema layer."""
    payload = bytearray(encode_request_header(api.key, version, correlation_id, client_id,
                                              api.request_header_version(version)))
    api.request.write(payload, body, version, api.is_flexible(version))
    return struct.pack(">i", len(payload)) + payload


def exchange(port: int, frame: bytes) -> bytes:
    """Send one frame, return the response frame without its size prefix (b"" if the broker hung up)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(frame)
        prefix = sock.recv(4, socket.MSG_WAITALL)
        if len(prefix) < 4:
            return b""
        return sock.recv(struct.unpack(">i", prefix)[0], socket.MSG_WAITALL)


def test_a_v1_header_is_three_big_endian_integers_then_the_client_id():
    """a v1 header is api_key (int16), api_version (int16), correlation_id (int32),
    then client_id as an int16 length and its bytes"""
    header = encode_request_header(3, 12, 7, "lab", 1)
    assert isinstance(header, bytes | bytearray), f"return the header's bytes, not a {type(header).__name__}"
    expected = bytes.fromhex("0003 000c 00000007 0003") + b"lab"
    assert bytes(header) == expected, (
        f"Metadata v12, correlation 7, client 'lab': want {expected.hex(' ')}, got {bytes(header).hex(' ')}")


def test_the_client_id_length_counts_utf8_bytes_and_null_is_minus_one():
    """client_id's length counts its UTF-8 bytes, and a null client_id is length -1 with no bytes"""
    assert bytes(encode_request_header(0, 9, 1, "café", 1))[8:] == b"\x00\x05caf\xc3\xa9", \
        "'café' is 5 bytes in UTF-8: the length prefix is 5, not 4"
    assert bytes(encode_request_header(0, 9, 1, None,
                                       1))[8:] == b"\xff\xff", "a null client_id is the int16 -1"


def test_a_v2_header_ends_with_an_empty_tagged_field_section():
    """a v2 header (flexible API versions) is the v1 header plus an empty tagged-field section: one 0 byte"""
    v1 = bytes(encode_request_header(18, 3, 1, "lab", 1))
    v2 = bytes(encode_request_header(18, 3, 1, "lab", 2))
    assert v2 == v1 + b"\x00", f"want the v1 bytes then 00, got {v2.hex(' ')}"


@pytest.mark.parametrize(("api", "version"),
                         [(API_VERSIONS, 0), (API_VERSIONS, 3), (METADATA, 1), (METADATA, 12)],
                         ids=["ApiVersions v0", "ApiVersions v3", "Metadata v1", "Metadata v12"])
def test_the_broker_parses_back_what_you_encoded(api, version):
    """parse_request_header, the broker's side, reads back every field you encoded,
    and the body starts where your header ends"""
    header_version = api.request_header_version(version)
    header = bytes(encode_request_header(api.key, version, 42, "round-trip", header_version))
    parsed = parse_request_header(header + b"body")
    assert (parsed.api_key, parsed.api_version, parsed.correlation_id, parsed.client_id) == \
        (api.key, version, 42, "round-trip"), f"{api.name} v{version}: the broker read {parsed}"
    assert parsed.header_size == len(header), (
        f"{api.name} v{version} uses header v{header_version}: "
        f"the broker expects the body at byte {parsed.header_size}")


def test_a_broker_answers_an_api_versions_request_with_your_header(broker):
    """a real broker answers an ApiVersions v3 request built with your header, with correlation id and
    API list"""
    response = exchange(broker.port, request_frame(
        API_VERSIONS, 3, 1234, "lab01-check",
        {"client_software_name": "lab01", "client_software_version": "1"}))
    assert response, "the broker closed the connection: it could not parse the header (see its log)"
    correlation_id, body = decode_response(API_VERSIONS, 3, response)
    assert correlation_id == 1234, (
        f"the broker answered correlation id {correlation_id}: the header's id went astray")
    assert body.error_code == 0, f"error_code {body.error_code}: 35 means the broker read another api_version"
    assert {k.api_key for k in body.api_keys} >= {0, 1, 3,
                                                  18}, "Produce, Fetch, Metadata and ApiVersions are listed"


def test_a_broker_answers_a_metadata_request_with_your_header(broker):
    """a real broker answers Metadata v12 (all topics) built with your header, naming itself as broker 1"""
    response = exchange(broker.port, request_frame(METADATA, 12, 5, "lab01-check", {"topics": None}))
    assert response, "the broker closed the connection: Metadata v12 needs header v2 (flexible)"
    correlation_id, body = decode_response(METADATA, 12, response)
    assert correlation_id == 5
    assert [(b.node_id, b.port) for b in body.brokers] == [(1, broker.port)], f"brokers: {body.brokers}"
