"""The broker's generic error answer (kafka/server/error_responses.py, Kafka's getErrorResponse) to a
Fetch: every partition the request named gets the error, no data, and an empty record set, never a
null one. librdkafka reads a record set of size -1 as a parse failure of the whole response and
fetches again at once: a null there turns one failure into a storm of requests.
"""

from __future__ import annotations

import uuid

import pytest

from kafka.protocol.errors import Errors
from kafka.protocol.header import (
    decode_request,
    decode_response,
    encode_request,
    encode_response,
    parse_request_header,
)
from kafka.protocol.messages.fetch import FETCH, PARTITION_DATA
from kafka.protocol.messages.metadata import METADATA
from kafka.server.error_responses import _only_present, error_response

TOPICS = {"orders": [0, 1, 2], "payments": [5]}


def fetch_request(version: int):
    """A Fetch as the handler gets it: encoded as a client sends it, decoded as the broker reads it."""
    body = {"replica_id": -1, "max_wait_ms": 500, "min_bytes": 1, "session_id": 0, "session_epoch": -1,
            "topics": [{"topic": topic, "topic_id": uuid.uuid5(uuid.NAMESPACE_DNS, topic), "partitions": [
                {"partition": p, "fetch_offset": 7, "partition_max_bytes": 1 << 20} for p in partitions]}
                for topic, partitions in TOPICS.items()],
            "forgotten_topics_data": []}
    frame = encode_request(FETCH, version, 42, "librdkafka", body)[4:]
    return decode_request(FETCH, version, frame, parse_request_header(frame).header_size)


def record_set_length(partition, version: int) -> bytes:
    """The bytes that carry this partition's record set length on the wire: records is the last field
    of PartitionData (an int32 length before v12; from v12 a compact length, then the tagged fields)."""
    out = bytearray()
    PARTITION_DATA.write(out, partition, version, FETCH.is_flexible(version))
    return bytes(out[-2:-1]) if FETCH.is_flexible(version) else bytes(out[-4:])


@pytest.mark.parametrize("version", range(FETCH.min_version, FETCH.max_version + 1))
def test_a_failed_fetch_answers_every_partition_with_empty_records_not_null(version):
    body = error_response(FETCH.key, version, fetch_request(version))

    names = {uuid.uuid5(uuid.NAMESPACE_DNS, topic): topic for topic in TOPICS}  # v13+: by topic id
    answered = {t["topic"] if version < 13 else names[t["topic_id"]]:
                [p["partition_index"] for p in t["partitions"]] for t in body["responses"]}
    assert answered == TOPICS
    for partition in (p for t in body["responses"] for p in t["partitions"]):
        assert partition["error_code"] == Errors.UNKNOWN_SERVER_ERROR
        assert partition["high_watermark"] == -1
        assert partition["records"] == b""
        # size 0: int32 0 before v12, compact length 1 (size + 1) from v12; null is int32 -1, or compact 0
        size_zero = b"\x01" if FETCH.is_flexible(version) else b"\0\0\0\0"
        assert record_set_length(partition, version) == size_zero

    # and what a client reads back: every record set there and empty (a -1 would read as None)
    _, decoded = decode_response(FETCH, version, bytes(encode_response(FETCH, version, 42, body))[4:])
    partitions = [p for t in decoded.responses for p in t.partitions]
    assert len(partitions) == 4
    assert all(p.error_code == Errors.UNKNOWN_SERVER_ERROR for p in partitions)
    assert all(p.records is not None and len(p.records) == 0 for p in partitions)
    if version >= 7:
        assert decoded.error_code == Errors.UNKNOWN_SERVER_ERROR


def test_a_record_set_left_out_or_null_by_a_builder_goes_out_empty():
    """Every API's generic answer, not only Fetch's: a record set the builder leaves out (the schema's
    default is null where it is nullable) or sets to None is sent as empty records."""
    body = {"responses": [{"topic": "orders", "partitions": [
        {"partition_index": 0, "error_code": Errors.UNKNOWN_SERVER_ERROR, "high_watermark": -1},
        {"partition_index": 1, "error_code": Errors.UNKNOWN_SERVER_ERROR, "high_watermark": -1,
         "records": None}]}]}
    for version in (4, 12):
        shaped = _only_present(body, FETCH.response, version)
        assert [p["records"] for p in shaped["responses"][0]["partitions"]] == [b"", b""]


def test_a_failed_metadata_carries_the_top_level_error_from_v13():
    """Metadata v13 (KIP-1102) has a top-level error code, set only in this answer (Kafka's
    MetadataRequest.getErrorResponse): every named topic gets the error, and so does the response."""
    request = decode_metadata_request({"topics": [{"name": "orders"}], "allow_auto_topic_creation": False})
    for version in (12, 13):
        body = error_response(METADATA.key, version, request, Errors.INVALID_REQUEST)
        assert [(t["name"], t["error_code"]) for t in body["topics"]] == [("orders", Errors.INVALID_REQUEST)]
        assert body["brokers"] == []
        _, decoded = decode_response(METADATA, version,
                                     bytes(encode_response(METADATA, version, 42, body))[4:])
        assert decoded.get("error_code", Errors.NONE) == (Errors.INVALID_REQUEST if version >= 13
                                                          else Errors.NONE)


def decode_metadata_request(body: dict):
    frame = encode_request(METADATA, 13, 42, "admin", body)[4:]
    return decode_request(METADATA, 13, frame, parse_request_header(frame).header_size)
