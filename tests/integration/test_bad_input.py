"""Acceptance: bad input closes one connection or gets Kafka's error code; other clients carry on."""

from __future__ import annotations

import struct

import pytest

from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import encode_request
from kafka.protocol.record_batch import build_batch
from tests.wire import WireClient

OK_METADATA = {"topics": None, "allow_auto_topic_creation": False}


def assert_still_serving(port: int) -> None:
    other = WireClient(port)
    try:
        response = other.request(ApiKey.METADATA, 12, OK_METADATA)
        assert response.brokers[0].port == port
    finally:
        other.close()


def create(port: int, topic: str) -> None:
    client = WireClient(port)
    response = client.request(ApiKey.CREATE_TOPICS, 7, {
        "topics": [{"name": topic, "num_partitions": 1, "replication_factor": 1}], "timeout_ms": 5000})
    assert response.topics[0].error_code == Errors.NONE
    client.close()


@pytest.mark.parametrize("frame", [
    pytest.param(struct.pack(">i", 12) + b"\xff" * 12, id="garbage-after-valid-size"),
    pytest.param(struct.pack(">ihhi", 10, 9999, 0, 1) + b"\x00\x00", id="unknown-api-key"),
    pytest.param(struct.pack(">ihhih", 10, ApiKey.PRODUCE, 99, 1, -1), id="unsupported-version"),
    pytest.param(struct.pack(">i", 200 * 1024 * 1024), id="frame-over-socket.request.max.bytes"),
    pytest.param(struct.pack(">i", -5), id="negative-size"),
])
def test_bad_frame_closes_only_that_connection(broker, frame):
    bystander = WireClient(broker.port)
    bad = WireClient(broker.port)
    bad.send_frame(frame)
    assert bad.is_closed_by_broker()
    assert_still_serving(broker.port)
    assert bystander.request(ApiKey.API_VERSIONS, 3, {"client_software_name": "t",
                                                      "client_software_version": "1"}).error_code == 0


def test_unsupported_api_versions_version_is_answered_in_v0(broker):
    client = WireClient(broker.port)
    # ApiVersions v99 (header v2: a null client id, no tagged fields) and a body the broker cannot know.
    client.send_frame(struct.pack(">ihhihb", 15, ApiKey.API_VERSIONS, 99, 7, -1, 0) + b"\x01\x02\x03\x04")
    frame = client.read_frame()
    correlation_id, error_code = struct.unpack_from(">ih", frame)
    assert correlation_id == 7
    assert error_code == Errors.UNSUPPORTED_VERSION
    (count,) = struct.unpack_from(">i", frame, 6)
    ranges = {struct.unpack_from(">hhh", frame, 10 + 6 * i)[0]: struct.unpack_from(">hhh", frame,
                                                                                   10 + 6 * i)[1:]
              for i in range(count)}
    assert ranges[ApiKey.API_VERSIONS] == (0, 5)  # v5: KIP-1242, as Kafka 4.4
    assert ranges[ApiKey.PRODUCE] == (3, 12)  # v12: transaction.version 2 (KIP-890)


def produce_request(topic: str, records: bytes) -> dict:
    return {"acks": -1, "timeout_ms": 5000, "topic_data": [
        {"name": topic, "partition_data": [{"index": 0, "records": records}]}]}


def test_wrong_crc_is_corrupt_message_and_nothing_is_appended(broker):
    create(broker.port, "crc")
    client = WireClient(broker.port)
    good = build_batch([(b"k", b"good")])
    response = client.request(ApiKey.PRODUCE, 9, produce_request("crc", good))
    assert response.responses[0].partition_responses[0].error_code == Errors.NONE

    corrupt = bytearray(build_batch([(b"k", b"evil")]))
    corrupt[-1] ^= 0xFF
    response = client.request(ApiKey.PRODUCE, 9, produce_request("crc", bytes(corrupt)))
    assert response.responses[0].partition_responses[0].error_code == Errors.CORRUPT_MESSAGE

    offsets = client.request(ApiKey.LIST_OFFSETS, 7, {"replica_id": -1, "isolation_level": 0, "topics": [
        {"name": "crc", "partitions": [{"partition_index": 0, "timestamp": -1}]}]})
    assert offsets.topics[0].partitions[0].offset == 1, "only the good batch is in the log"
    response = client.request(ApiKey.PRODUCE, 9, produce_request("crc", good))
    assert response.responses[0].partition_responses[0].base_offset == 1, "the connection still works"


def test_produce_to_unknown_partition_and_bad_acks_get_error_codes(broker):
    create(broker.port, "codes")
    client = WireClient(broker.port)
    batch = build_batch([(None, b"v")])
    bad_partition = {"acks": 1, "timeout_ms": 5000, "topic_data": [
        {"name": "codes", "partition_data": [{"index": 7, "records": batch}]}]}
    response = client.request(ApiKey.PRODUCE, 9, bad_partition)
    assert response.responses[0].partition_responses[0].error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
    bad_acks = {**produce_request("codes", batch), "acks": 2}
    response = client.request(ApiKey.PRODUCE, 9, bad_acks)
    assert response.responses[0].partition_responses[0].error_code == Errors.INVALID_REQUIRED_ACKS


def test_invalid_topic_name_is_rejected(broker):
    client = WireClient(broker.port)
    response = client.request(ApiKey.CREATE_TOPICS, 7, {
        "topics": [{"name": "bad/name", "num_partitions": 1, "replication_factor": 1}], "timeout_ms": 5000})
    assert response.topics[0].error_code == Errors.INVALID_TOPIC_EXCEPTION
    response = client.request(ApiKey.CREATE_TOPICS, 7, {
        "topics": [{"name": "rf", "num_partitions": 1, "replication_factor": 3}], "timeout_ms": 5000})
    assert response.topics[0].error_code == Errors.INVALID_REPLICATION_FACTOR
    response = client.request(ApiKey.CREATE_TOPICS, 7, {
        "topics": [{"name": "cfg", "num_partitions": 1, "replication_factor": 1,
                    "configs": [{"name": "segment.bytes", "value": "lots"}]}], "timeout_ms": 5000})
    assert response.topics[0].error_code == Errors.INVALID_CONFIG
    assert "segment.bytes" in response.topics[0].error_message


def test_acks_zero_failure_closes_the_connection(broker):
    create(broker.port, "acks0")
    client = WireClient(broker.port)
    corrupt = bytearray(build_batch([(b"k", b"v")]))
    corrupt[-1] ^= 0xFF
    client.send_frame(encode_request(APIS[ApiKey.PRODUCE], 9, 1, "t",
                                     {**produce_request("acks0", bytes(corrupt)),
                                                                      "acks": 0}))
    assert client.is_closed_by_broker(), "with no response to carry an error, the broker hangs up"
    assert_still_serving(broker.port)


def test_min_insync_replicas_counts_at_most_the_replicas_there_are(broker):
    """Kafka 4's effectiveMinIsr: min.insync.replicas=2 on a topic of one replica asks for one, so acks=all
    is answered (a Kafka 3 broker refused it with NOT_ENOUGH_REPLICAS); an ISR too small for a topic
    of three is in tests/cluster/test_replication.py."""
    client = WireClient(broker.port)
    response = client.request(ApiKey.CREATE_TOPICS, 7, {
        "topics": [{"name": "strict", "num_partitions": 1, "replication_factor": 1,
                    "configs": [{"name": "min.insync.replicas", "value": "2"}]}], "timeout_ms": 5000})
    assert response.topics[0].error_code == Errors.NONE
    batch = build_batch([(None, b"v")])
    response = client.request(ApiKey.PRODUCE, 9, produce_request("strict", batch))
    assert response.responses[0].partition_responses[0].error_code == Errors.NONE
    response = client.request(ApiKey.PRODUCE, 9, {**produce_request("strict", batch), "acks": 1})
    assert response.responses[0].partition_responses[0].error_code == Errors.NONE


@pytest.mark.parametrize("api_key,version,body,errors_of", [
    pytest.param(ApiKey.LIST_OFFSETS, 7, {"replica_id": -1, "isolation_level": 0, "topics": [
        {"name": "boom", "partitions": [{"partition_index": 0, "timestamp": -1},
                                        {"partition_index": 1, "timestamp": -2}]}]},
        lambda r: [p.error_code for t in r.topics for p in t.partitions], id="ListOffsets"),
    pytest.param(ApiKey.PRODUCE, 9, produce_request("boom", build_batch([(None, b"v")])),
                 lambda r: [p.error_code for t in r.responses for p in t.partition_responses], id="Produce"),
    pytest.param(ApiKey.DESCRIBE_CONFIGS, 4, {"resources": [{"resource_type": 2, "resource_name": "boom",
                                                             "configuration_keys": None}],
                                              "include_synonyms": False, "include_documentation": False},
                 lambda r: [x.error_code for x in r.results], id="DescribeConfigs"),
    pytest.param(ApiKey.LIST_GROUPS, 4, {"states_filter": []}, lambda r: [r.error_code], id="ListGroups"),
])
def test_an_exception_in_a_handler_is_answered_with_unknown_server_error(broker, api_key, version, body,
                                                                         errors_of):
    """Kafka's handleError: a handler that raises answers every part of the request with
    UNKNOWN_SERVER_ERROR and keeps the connection (it used to be closed, losing what was in flight)."""
    def broken_handler(request):
        raise RuntimeError("a bug in a handler")

    broker.server.apis.handlers[api_key] = broken_handler
    client = WireClient(broker.port)
    response = client.request(api_key, version, body)
    assert set(errors_of(response)) == {Errors.UNKNOWN_SERVER_ERROR}
    assert client.request(ApiKey.METADATA, 12, OK_METADATA).brokers[0].port == broker.port  # same connection
    client.close()
