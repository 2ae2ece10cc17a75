"""Every registered API's request and response schema round-trips at every version it describes.

Values are generated *from the schemas themselves* (see ``record_strategy``): only the fields
active in that version, respecting nullability and tagged fields. Plus: real librdkafka frames
decode to the expected fields and re-encode byte for byte; headers; encode-error reporting.
"""

from __future__ import annotations

import os
import pathlib
import re
import struct
import uuid
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka.protocol import types as T
from kafka.protocol.api_keys import APIS, Api, ApiKey
from kafka.protocol.array_of import ArrayCodec
from kafka.protocol.errors import Errors, ProtocolDecodeError, ProtocolEncodeError, UnsupportedVersionError
from kafka.protocol.header import (
    decode_request,
    decode_response,
    encode_api_versions_fallback,
    encode_request,
    encode_response,
    parse_request_header,
)
from kafka.protocol.schema import Field, NullableStruct, Record, Schema, StructCodec, _FixedRun
from kafka.protocol.types import ByteReader

DATA = pathlib.Path(__file__).parent / "data"

# The newest version each schema describes (Kafka's "validVersions"); we advertise fewer.
DESCRIBED = {
    ApiKey.API_VERSIONS: 5,
    ApiKey.METADATA: 13,
    ApiKey.PRODUCE: 12,
    ApiKey.FETCH: 18,
    ApiKey.LIST_OFFSETS: 11,
    ApiKey.CREATE_TOPICS: 7,
    ApiKey.DELETE_TOPICS: 6,
    ApiKey.DELETE_RECORDS: 2,
    ApiKey.DESCRIBE_CONFIGS: 4,
    ApiKey.INCREMENTAL_ALTER_CONFIGS: 1,
    ApiKey.DESCRIBE_CLIENT_QUOTAS: 1,
    ApiKey.ALTER_CLIENT_QUOTAS: 1,
    ApiKey.DESCRIBE_ACLS: 3,
    ApiKey.CREATE_ACLS: 3,
    ApiKey.DELETE_ACLS: 3,
    ApiKey.SASL_HANDSHAKE: 1,
    ApiKey.SASL_AUTHENTICATE: 2,
    ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS: 0,
    ApiKey.ALTER_USER_SCRAM_CREDENTIALS: 0,
    ApiKey.ALTER_CONFIGS: 2,
    ApiKey.FIND_COORDINATOR: 6,
    ApiKey.INIT_PRODUCER_ID: 5,
    ApiKey.ADD_PARTITIONS_TO_TXN: 5,
    ApiKey.ADD_OFFSETS_TO_TXN: 4,
    ApiKey.END_TXN: 5,
    ApiKey.WRITE_TXN_MARKERS: 2,
    ApiKey.TXN_OFFSET_COMMIT: 6,
    ApiKey.DESCRIBE_TRANSACTIONS: 0,
    ApiKey.LIST_TRANSACTIONS: 2,
    ApiKey.ALLOCATE_PRODUCER_IDS: 0,
    ApiKey.JOIN_GROUP: 9,
    ApiKey.SYNC_GROUP: 5,
    ApiKey.HEARTBEAT: 4,
    ApiKey.LEAVE_GROUP: 5,
    ApiKey.OFFSET_COMMIT: 10,
    ApiKey.OFFSET_FETCH: 10,
    ApiKey.CONSUMER_GROUP_HEARTBEAT: 1,
    ApiKey.CONSUMER_GROUP_DESCRIBE: 1,
    ApiKey.DESCRIBE_GROUPS: 6,
    ApiKey.LIST_GROUPS: 5,
    ApiKey.DELETE_GROUPS: 3,
    ApiKey.OFFSET_DELETE: 0,
    ApiKey.CREATE_PARTITIONS: 3,
    ApiKey.DESCRIBE_CLUSTER: 2,
    ApiKey.DESCRIBE_TOPIC_PARTITIONS: 0,  # KIP-966
    ApiKey.VOTE: 2,
    ApiKey.BEGIN_QUORUM_EPOCH: 0,
    ApiKey.END_QUORUM_EPOCH: 0,
    ApiKey.DESCRIBE_QUORUM: 2,
    ApiKey.BROKER_REGISTRATION: 3,
    ApiKey.BROKER_HEARTBEAT: 2,
    ApiKey.ALTER_PARTITION: 1,
    ApiKey.OFFSET_FOR_LEADER_EPOCH: 4,
    ApiKey.ELECT_LEADERS: 2,
    ApiKey.ALTER_PARTITION_REASSIGNMENTS: 1,
    ApiKey.LIST_PARTITION_REASSIGNMENTS: 0,
    ApiKey.FETCH_SNAPSHOT: 0,
    ApiKey.DESCRIBE_LOG_DIRS: 5,
    ApiKey.DESCRIBE_PRODUCERS: 0,
    ApiKey.ADD_RAFT_VOTER: 1,  # KIP-853, KIP-1186
    ApiKey.REMOVE_RAFT_VOTER: 0,
    ApiKey.UPDATE_RAFT_VOTER: 0,
    ApiKey.UPDATE_FEATURES: 2,  # KIP-584 (v1: validate_only, v2: no result per feature)
    ApiKey.SHARE_FETCH: 2,  # KIP-932 (1-2 in Kafka 4.4; v0 was early access)
    ApiKey.SHARE_ACKNOWLEDGE: 2,
    ApiKey.SHARE_GROUP_HEARTBEAT: 1,  # KIP-932; Kafka 4.4 serves v1 only
    ApiKey.SHARE_GROUP_DESCRIBE: 1,
    ApiKey.INITIALIZE_SHARE_GROUP_STATE: 0,  # KIP-932's share coordinator
    ApiKey.READ_SHARE_GROUP_STATE: 0,
    ApiKey.WRITE_SHARE_GROUP_STATE: 1,
    ApiKey.DELETE_SHARE_GROUP_STATE: 0,
    ApiKey.READ_SHARE_GROUP_STATE_SUMMARY: 1,
    ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS: 1,  # KIP-932's admin APIs (v1: KIP-1226's lag)
    ApiKey.ALTER_SHARE_GROUP_OFFSETS: 0,
    ApiKey.DELETE_SHARE_GROUP_OFFSETS: 0,
    ApiKey.CONTROLLER_REGISTRATION: 0,
    ApiKey.UNREGISTER_CONTROLLER: 0,
    ApiKey.STREAMS_GROUP_HEARTBEAT: 1,  # KIP-1071 (v1: KIP-1331's fields)
    ApiKey.STREAMS_GROUP_DESCRIBE: 1,
    ApiKey.STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE: 0,  # KIP-1331
    ApiKey.GET_TELEMETRY_SUBSCRIPTIONS: 0,  # KIP-714
    ApiKey.PUSH_TELEMETRY: 0,
    ApiKey.LIST_CONFIG_RESOURCES: 1,  # KIP-1142 (v0: ListClientMetricsResources)
}


# --- generating values from a schema ---------------------------------------------------------

_INT_BOUNDS = {"b": 8, "h": 16, "i": 32, "q": 64}
_UNSIGNED_BITS = {"H": 16, "I": 32}


def _active(f: Field, version: int, flexible: bool) -> bool:
    return f.present(version) and (flexible or not f.tagged(version))


def codec_strategy(codec: T.Type) -> st.SearchStrategy[Any]:
    if isinstance(codec, StructCodec):
        return record_strategy(codec.schema, codec.version, codec.flexible)
    if isinstance(codec, NullableStruct):
        return st.none() | codec_strategy(codec.codec)
    if isinstance(codec, ArrayCodec):
        items = st.lists(codec_strategy(codec.element), max_size=3)
        return st.none() | items if codec.nullable else items
    if isinstance(codec, T.FixedType):
        if codec.fmt == "?":
            return st.booleans()
        if codec.fmt == "d":
            return st.floats(allow_nan=False)
        if codec.fmt in _UNSIGNED_BITS:
            return st.integers(0, (1 << _UNSIGNED_BITS[codec.fmt]) - 1)
        bits = _INT_BOUNDS[codec.fmt]
        # mostly small values and the edges, where off-by-one and sign bugs live
        return st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    if codec is T.Uuid:
        return st.uuids() | st.just(uuid.UUID(int=0))
    if isinstance(codec, T._String):
        s = st.text(max_size=12)
        return st.none() | s if codec.nullable else s
    if isinstance(codec, T._Bytes):
        b = st.binary(max_size=24)
        return st.none() | b if codec.nullable else b
    raise AssertionError(f"no strategy for {codec!r}")


@cache  # built and validated once per (schema, version), not once per example: a third of the time
def record_strategy(schema: Schema, version: int, flexible: bool) -> st.SearchStrategy[Any]:
    """A Record or dict holding a value for every field active in ``version`` (and nothing else)."""
    fields = {
        f.name: codec_strategy(f.type.resolve(version, flexible, f.nullable(version)))
        for f in schema.fields
        if _active(f, version, flexible)
    }
    as_dict = st.fixed_dictionaries(fields)
    return as_dict | as_dict.map(lambda d: Record(**d))  # write() takes either


def expected(codec: T.Type, value: Any) -> Any:
    """What reading back ``value`` must give: the same values, defaults for inactive fields."""
    if isinstance(codec, StructCodec):
        d = value.__dict__ if isinstance(value, Record) else value
        return {
            f.name: expected(
                f.type.resolve(codec.version, codec.flexible, f.nullable(codec.version)), d[f.name]
            )
            if _active(f, codec.version, codec.flexible)
            else f.default
            for f in codec.schema.fields
        }
    if isinstance(codec, NullableStruct):
        return None if value is None else expected(codec.codec, value)
    if isinstance(codec, ArrayCodec) and value is not None:
        return [expected(codec.element, v) for v in value]
    return value


CASES = [
    pytest.param(api, side, v, id=f"{api.name}-{side}-v{v}")
    for api in sorted(APIS.values(), key=lambda a: a.key)
    for side in ("request", "response")
    for v in range(0, DESCRIBED[api.key] + 1)
]
# Examples per case: 15 in `make test`; the quick loop (`make test-fast`) sets SCHEMA_ROUNDTRIP_EXAMPLES
# lower, since the ~500 cases at 15 each would take most of its minute.
EXAMPLES = int(os.environ.get("SCHEMA_ROUNDTRIP_EXAMPLES", "15"))


def test_every_registered_api_is_covered() -> None:
    assert set(APIS) == set(DESCRIBED)
    for api in APIS.values():
        assert api.max_version <= DESCRIBED[api.key]


@pytest.mark.parametrize(("api", "side", "version"), CASES)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_schema_roundtrip(api: Api, side: str, version: int, data: st.DataObject) -> None:
    schema: Schema = getattr(api, side)
    flexible = api.is_flexible(version)
    value = data.draw(record_strategy(schema, version, flexible))
    out = bytearray()
    schema.write(out, value, version, flexible)
    assert schema.size(value, version, flexible) == len(out)
    reader = ByteReader(bytes(out))
    got = schema.read(reader, version, flexible)
    assert reader.remaining == 0
    assert isinstance(got, Record)
    assert got == expected(schema.resolve(version, flexible), value)
    again = bytearray()
    schema.write(again, got, version, flexible)  # a decoded Record re-encodes identically
    assert again == out


# --- real frames from librdkafka -------------------------------------------------------------


def load(name: str) -> bytes:
    text = (DATA / name).read_text()
    return bytes.fromhex("".join(line for line in text.splitlines() if not line.startswith("#")))


CAPTURED = sorted(p.name for p in DATA.glob("rdkafka_*.hex"))


@pytest.mark.parametrize("name", CAPTURED)
def test_captured_frames_decode_and_reencode_byte_for_byte(name: str) -> None:
    frame = load(name)
    h = parse_request_header(frame)
    assert h.client_id == "kafka-teaching-capture"
    api = APIS[h.api_key]
    body = decode_request(api, h.api_version, frame, h.header_size)
    again = encode_request(api, h.api_version, h.correlation_id, h.client_id, body)
    assert again[4:] == frame


def test_captured_api_versions_v3() -> None:
    frame = load("rdkafka_apiversions_v3.hex")
    h = parse_request_header(frame)
    assert (h.api_key, h.api_version, h.header_version) == (ApiKey.API_VERSIONS, 3, 2)
    body = decode_request(h.api, 3, frame, h.header_size)
    assert body.client_software_name == "confluent-kafka-python"
    assert re.fullmatch(r"[\d.]+-rdkafka-[\d.]+", body.client_software_version)


def test_captured_metadata_v12() -> None:
    frame = load("rdkafka_metadata_v12.hex")
    h = parse_request_header(frame)
    body = decode_request(h.api, h.api_version, frame, h.header_size)
    assert h.api_version == 12
    assert [t.name for t in body.topics] == ["capture"]
    assert body.topics[0].topic_id == uuid.UUID(int=0)
    assert body.allow_auto_topic_creation is True


def test_captured_produce_v9() -> None:
    frame = load("rdkafka_produce_v9.hex")
    h = parse_request_header(frame)
    req = decode_request(h.api, h.api_version, frame, h.header_size)
    assert (h.api_version, req.acks, req.timeout_ms, req.transactional_id) == (9, -1, 30000, None)
    topic = req.topic_data[0]
    assert topic.name == "capture" and topic.partition_data[0].index == 0
    records = topic.partition_data[0].records
    assert isinstance(records, memoryview)  # zero-copy into the frame
    base_offset, batch_length, _epoch, magic = struct.unpack_from(">qiib", records)
    assert (base_offset, magic, batch_length + 12) == (0, 2, len(records))  # a RecordBatch v2, whole
    assert b"hello, kafka" in bytes(records)


def test_captured_fetch_v12() -> None:
    frame = load("rdkafka_fetch_v12.hex")
    h = parse_request_header(frame)
    req = decode_request(h.api, h.api_version, frame, h.header_size)
    assert (req.replica_id, req.isolation_level, req.session_epoch) == (-1, 1, -1)
    part = req.topics[0].partitions[0]
    assert (req.topics[0].topic, part.partition, part.fetch_offset) == ("capture", 0, 0)
    assert req.cluster_id is None  # tagged, not sent: the default


def test_captured_admin_requests() -> None:
    frame = load("rdkafka_createtopics_v4.hex")
    h = parse_request_header(frame)
    req = decode_request(h.api, h.api_version, frame, h.header_size)
    assert req.topics[0].to_dict() == {
        "name": "created",
        "num_partitions": 3,
        "replication_factor": 1,
        "assignments": [],
        "configs": [{"name": "cleanup.policy", "value": "compact"}],
    }
    frame = load("rdkafka_deletetopics_v4.hex")
    h = parse_request_header(frame)
    assert decode_request(h.api, h.api_version, frame, h.header_size).topic_names == ["created"]


# --- headers and frames ----------------------------------------------------------------------


def test_unknown_api_key_still_yields_correlation_id() -> None:
    frame = struct.pack(">hhih", 9999, 3, 42, 3) + b"cli" + b"\x00\x01\x02"
    h = parse_request_header(frame)
    assert (h.api_key, h.correlation_id, h.client_id, h.header_size, h.api) == (9999, 42, "cli", 13, None)


def test_too_new_api_versions_parses_flexible_header_and_gets_v0_fallback() -> None:
    frame = struct.pack(">hhih", 18, 9, 77, -1) + b"\x01\x00\x03xyz"  # one unknown header tag
    h = parse_request_header(frame)
    assert (h.header_version, h.header_size, h.client_id) == (2, 16, None)
    assert not h.api.is_supported(9)
    with pytest.raises(UnsupportedVersionError):
        decode_request(h.api, 9, frame, h.header_size)
    response = encode_api_versions_fallback(h.correlation_id)
    assert struct.unpack_from(">i", response)[0] == len(response) - 4
    corr, body = decode_response(h.api, 0, response[4:])
    assert (corr, body.error_code) == (77, Errors.UNSUPPORTED_VERSION)
    assert body.api_keys == [{"api_key": 18, "min_version": 0, "max_version": 5}]  # 0-5: Kafka 4.4


def test_truncated_header_raises_decode_error() -> None:
    with pytest.raises(ProtocolDecodeError):
        parse_request_header(b"\x00\x12\x00")
    with pytest.raises(ProtocolDecodeError):
        parse_request_header(struct.pack(">hhih", 3, 1, 1, 10) + b"abc")


def test_response_header_versions() -> None:
    produce, api_versions = APIS[ApiKey.PRODUCE], APIS[ApiKey.API_VERSIONS]
    body = {"responses": []}
    v8 = encode_response(produce, 8, 5, body)
    v9 = encode_response(produce, 9, 5, body)
    assert v8[4:8] == v9[4:8] == struct.pack(">i", 5)
    assert v9[8] == 0  # header v1: an empty tagged-field section after the correlation id
    assert len(v8) == 4 + 4 + 4 + 4  # size, correlation id, empty array, throttle time
    av3 = encode_response(api_versions, 3, 5, {"api_keys": []})
    assert decode_response(api_versions, 3, av3[4:])[0] == 5
    assert av3[8] == 0  # error_code high byte, not a header tag section: ApiVersions is header v0
    assert api_versions.response_header_version(3) == 0 and produce.response_header_version(9) == 1


def test_request_header_versions() -> None:
    fetch = APIS[ApiKey.FETCH]
    assert fetch.request_header_version(11) == 1 and fetch.request_header_version(12) == 2
    assert fetch.is_supported(18) and not fetch.is_supported(19) and not fetch.is_supported(3)


# --- the codec's behaviour -------------------------------------------------------------------


def test_missing_fields_take_defaults_and_decode_fills_them() -> None:
    fetch = APIS[ApiKey.FETCH]
    out = bytearray()
    fetch.request.write(out, {"max_wait_ms": 500, "topics": [{"topic": "t", "partitions": [{}]}]}, 12, True)
    req = fetch.request.read(bytes(out), 12, True)
    assert (req.replica_id, req.max_bytes, req.session_epoch, req.rack_id) == (-1, 0x7FFFFFFF, -1, "")
    assert req.topics[0].partitions[0].last_fetched_epoch == -1
    assert req.replica_state == {"replica_id": -1, "replica_epoch": -1}  # v15+ field, absent in v12


def test_decoded_defaults_are_fresh_objects() -> None:
    meta = APIS[ApiKey.METADATA]
    out = bytearray()
    meta.response.write(out, {}, 0, False)
    a, b = meta.response.read(bytes(out), 0, False), meta.response.read(bytes(out), 0, False)
    assert a.cluster_id is None and a.controller_id == -1  # v0 lacks both: the defaults
    a.topics.append("x")
    assert b.topics == []


def test_tagged_fields_equal_to_default_are_not_sent() -> None:
    fetch = APIS[ApiKey.FETCH]
    part = {"partition_index": 0, "current_leader": {"leader_id": -1, "leader_epoch": -1}}
    quiet, loud = bytearray(), bytearray()
    fetch.response.write(quiet, {"responses": [{"topic": "t", "partitions": [part]}]}, 12, True)
    part["current_leader"] = {"leader_id": 2, "leader_epoch": 7}
    fetch.response.write(loud, {"responses": [{"topic": "t", "partitions": [part]}]}, 12, True)
    assert len(loud) == len(quiet) + 1 + 1 + 8 + 1  # tag, size, 2 x int32, the struct's own tag section
    got = fetch.response.read(bytes(loud), 12, True)
    assert got.responses[0].partitions[0].current_leader == {"leader_id": 2, "leader_epoch": 7}


def test_unknown_tagged_fields_from_a_newer_client_are_skipped() -> None:
    api = APIS[ApiKey.API_VERSIONS]
    body = T.CompactString
    out = bytearray()
    body.write(out, "py")
    body.write(out, "1.0")
    out += bytes([1, 42, 2, 0xAB, 0xCD])  # one tagged field we do not know: tag 42, 2 bytes
    got = api.request.read(bytes(out), 3, True)
    assert got == {"client_software_name": "py", "client_software_version": "1.0",
                   "cluster_id": None, "node_id": -1}  # v5's fields, at their defaults


def test_encode_errors_name_the_field() -> None:
    produce = APIS[ApiKey.PRODUCE]
    bad = {"acks": 1, "topic_data": [{"name": "t", "partition_data": [{"index": "zero"}]}]}
    with pytest.raises(
        ProtocolEncodeError, match=r"ProduceRequest v9\.topic_data\[0\]\.partition_data\[0\]\.index"
    ):
        produce.request.write(bytearray(), bad, 9, True)
    with pytest.raises(ProtocolEncodeError, match=r"acks: None given, but the field is not nullable"):
        produce.request.write(bytearray(), {"acks": None}, 9, True)
    with pytest.raises(ProtocolEncodeError, match=r"name: None given"):
        produce.request.write(bytearray(), {"topic_data": [{"name": None}]}, 3, False)
    with pytest.raises(ProtocolEncodeError, match=r"unknown field.*'akcs'"):
        produce.request.write(bytearray(), {"akcs": 1}, 9, True)


def test_non_ignorable_field_cannot_be_dropped_silently() -> None:
    meta, produce = APIS[ApiKey.METADATA], APIS[ApiKey.PRODUCE]
    with pytest.raises(ProtocolEncodeError, match="allow_auto_topic_creation"):
        meta.request.write(bytearray(), {"allow_auto_topic_creation": False}, 3, False)
    meta.request.write(bytearray(), {"allow_auto_topic_creation": True}, 3, False)  # the default: fine
    # log_start_offset is ignorable: a v3 response simply does not carry it
    part = {"index": 0, "base_offset": 5, "log_start_offset": 3}
    out = bytearray()
    produce.response.write(out, {"responses": [{"name": "t", "partition_responses": [part]}]}, 3, False)
    got = produce.response.read(bytes(out), 3, False)
    assert got.responses[0].partition_responses[0].log_start_offset == -1


def test_nullable_defaults() -> None:
    produce = APIS[ApiKey.PRODUCE]
    assert produce.request["transactional_id"].default is None
    assert produce.request.resolve(9, True).schema is produce.request
    part = produce.request["topic_data"].type.element["partition_data"].type.element
    assert part["records"].default is None  # nullable in every version -> None
    assert APIS[ApiKey.METADATA].request["topics"].default == []  # not nullable in v0 -> []


def test_fixed_width_runs_are_merged() -> None:
    part = APIS[ApiKey.FETCH].request["topics"].type.element["partitions"].type.element
    codec = part.resolve(12, True)
    assert len(codec.steps) == 1 and isinstance(codec.steps[0], _FixedRun)
    assert codec.steps[0].struct.format == ">iiqiqi"


def test_record_api() -> None:
    r = Record(name="t", partitions=[Record(index=0, records=b"x" * 100)])
    assert r["name"] == "t" and r.partitions[0].index == 0 and "name" in r
    assert r == {"name": "t", "partitions": [{"index": 0, "records": b"x" * 100}]}
    assert "<100 bytes>" in repr(r)
    assert r.to_dict() == {"name": "t", "partitions": [{"index": 0, "records": b"x" * 100}]}
    assert Record(a=1) != Record(a=2)


def test_schema_new_builds_full_records() -> None:
    resp = APIS[ApiKey.PRODUCE].response
    rec = resp.new(responses=[])
    assert rec == {"responses": [], "throttle_time_ms": 0, "node_endpoints": []}
    with pytest.raises(ProtocolEncodeError):
        resp.new(respones=[])
