"""The share-group state RPCs (KIP-932, keys 83-87) on the wire byte for byte as Kafka 4.4's client jar
writes them (the hex below is its MessageUtil output), including KIP-1226's delivery complete count,
sent from v1 and dropped at v0. Every version of every field round-trips in test_schemas.py."""

from __future__ import annotations

import uuid

import pytest

from kafka.protocol.api_keys import APIS, ApiKey

pytestmark = pytest.mark.fast

TOPIC_ID = uuid.UUID(int=12345678901234567890)
WRITE = dict(group_id="g", topics=[dict(topic_id=TOPIC_ID, partitions=[dict(
    partition=3, state_epoch=1, leader_epoch=5, start_offset=100, delivery_complete_count=2,
    state_batches=[dict(
        first_offset=100, last_offset=101, delivery_state=2, delivery_count=1)])])])
SUMMARY = dict(results=[dict(topic_id=TOPIC_ID, partitions=[dict(
    partition=3, error_code=0, error_message=None, state_epoch=1, leader_epoch=5, start_offset=100,
    delivery_complete_count=2)])])
READ = dict(results=[dict(topic_id=TOPIC_ID, partitions=[dict(
    partition=3, error_code=124, error_message="fenced", state_epoch=1, start_offset=100, state_batches=[dict(
        first_offset=100, last_offset=101, delivery_state=4, delivery_count=2)])])])


@pytest.mark.parametrize(("api_key", "side", "version", "body", "kafka_hex"), [
    (ApiKey.WRITE_SHARE_GROUP_STATE, "request", 0, WRITE,
     "0267020000000000000000ab54a98ceb1f0ad2020000000300000001000000050000000000000064020000000000000064000000000000"
     "006502000100000000"),
    (ApiKey.WRITE_SHARE_GROUP_STATE, "request", 1, WRITE,
     "0267020000000000000000ab54a98ceb1f0ad20200000003000000010000000500000000000000640000000202000000000000006400"
     "0000000000006502000100000000"),
    (ApiKey.READ_SHARE_GROUP_STATE_SUMMARY, "response", 0, SUMMARY,
     "020000000000000000ab54a98ceb1f0ad2020000000300000000000001000000050000000000000064000000"),
    (ApiKey.READ_SHARE_GROUP_STATE_SUMMARY, "response", 1, SUMMARY,
     "020000000000000000ab54a98ceb1f0ad202000000030000000000000100000005000000000000006400000002000000"),
    (ApiKey.READ_SHARE_GROUP_STATE, "response", 0, READ,
     "020000000000000000ab54a98ceb1f0ad20200000003007c0766656e636564000000010000000000000064020000000000000064000000"
     "000000006504000200000000"),
])
def test_the_bytes_are_kafkas(api_key, side, version, body, kafka_hex):
    api = APIS[api_key]
    schema = getattr(api, side)
    out = bytearray()
    schema.write(out, body, version, api.is_flexible(version))
    assert out.hex() == kafka_hex
    read = schema.read(bytes(out), version, True)
    assert read.to_dict()["results" if side == "response" else "topics"][0]["topic_id"] == TOPIC_ID


def test_the_versions_are_kafka_4_4s():
    assert {key: (APIS[key].min_version, APIS[key].max_version) for key in (
        ApiKey.INITIALIZE_SHARE_GROUP_STATE, ApiKey.READ_SHARE_GROUP_STATE, ApiKey.WRITE_SHARE_GROUP_STATE,
        ApiKey.DELETE_SHARE_GROUP_STATE, ApiKey.READ_SHARE_GROUP_STATE_SUMMARY)} == {
        ApiKey.INITIALIZE_SHARE_GROUP_STATE: (0, 0), ApiKey.READ_SHARE_GROUP_STATE: (0, 0),
        ApiKey.WRITE_SHARE_GROUP_STATE: (0, 1), ApiKey.DELETE_SHARE_GROUP_STATE: (0, 0),
        ApiKey.READ_SHARE_GROUP_STATE_SUMMARY: (0, 1)}
