"""The share-group admin RPCs (KIP-932, keys 90-92) on the wire byte for byte as Kafka 4.4's client jar
writes them (the hex below is MessageUtil.toByteBufferAccessor of its generated *Data classes),
including KIP-1226's lag, sent from DescribeShareGroupOffsets v1 and dropped at v0. Every version of
every field round-trips in test_schemas.py."""

from __future__ import annotations

import uuid

import pytest

from kafka.protocol.api_keys import APIS, ApiKey

pytestmark = pytest.mark.fast

TOPIC_ID = uuid.UUID(int=12345678901234567890)
DESCRIBE_REQUEST = dict(groups=[dict(group_id="g", topics=[dict(topic_name="t", partitions=[0, 3])]),
                                dict(group_id="h", topics=None)])
DESCRIBE_RESPONSE = dict(throttle_time_ms=0, groups=[
    dict(group_id="g", error_code=0, error_message=None,
         topics=[dict(topic_name="t", topic_id=TOPIC_ID, partitions=[
        dict(partition_index=3, start_offset=100, leader_epoch=5, lag=7, error_code=0,
             error_message=None)])]),
    dict(group_id="h", error_code=69, error_message="Group h not found.", topics=[])])
ALTER_REQUEST = dict(group_id="g",
                     topics=[dict(topic_name="t", partitions=[dict(partition_index=1, start_offset=42)])])
ALTER_RESPONSE = dict(throttle_time_ms=0, error_code=0, error_message=None, responses=[dict(
    topic_name="t", topic_id=TOPIC_ID,
    partitions=[dict(partition_index=1, error_code=3, error_message="unknown")])])
DELETE_REQUEST = dict(group_id="g", topics=[dict(topic_name="t")])
DELETE_RESPONSE = dict(throttle_time_ms=0, error_code=68, error_message="The group is not empty.",
                       responses=[dict(
    topic_name="t", topic_id=TOPIC_ID, error_code=0, error_message=None)])


@pytest.mark.parametrize(("api_key", "side", "version", "body", "kafka_hex"), [
    (ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, "request", 0, DESCRIBE_REQUEST,
     "03026702027403000000000000000300000268000000"),
    (ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, "response", 0, DESCRIBE_RESPONSE,
     "000000000302670202740000000000000000ab54a98ceb1f0ad202"
     "000000030000000000000064000000050000000000000000000268"
     "0100451347726f75702068206e6f7420666f756e642e0000"),
    (ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, "response", 1, DESCRIBE_RESPONSE,
     "000000000302670202740000000000000000ab54a98ceb1f0ad202"
     "000000030000000000000064000000050000000000000007000000"
     "00000000000002680100451347726f75702068206e6f7420666f756e642e0000"),
    (ApiKey.ALTER_SHARE_GROUP_OFFSETS, "request", 0, ALTER_REQUEST,
     "02670202740200000001000000000000002a000000"),
    (ApiKey.ALTER_SHARE_GROUP_OFFSETS, "response", 0, ALTER_RESPONSE,
     "000000000000000202740000000000000000ab54a98ceb1f0ad20200000001000308756e6b6e6f776e000000"),
    (ApiKey.DELETE_SHARE_GROUP_OFFSETS, "request", 0, DELETE_REQUEST, "02670202740000"),
    (ApiKey.DELETE_SHARE_GROUP_OFFSETS, "response", 0, DELETE_RESPONSE,
     "000000000044185468652067726f7570206973206e6f7420656d70"
     "74792e0202740000000000000000ab54a98ceb1f0ad20000000000"),
])
def test_the_bytes_are_kafkas(api_key, side, version, body, kafka_hex):
    api = APIS[api_key]
    schema = getattr(api, side)
    out = bytearray()
    schema.write(out, body, version, api.is_flexible(version))
    assert out.hex() == kafka_hex
    read = schema.read(bytes(out), version, True)
    again = bytearray()
    schema.write(again, read.to_dict(), version, True)
    assert again == out


def test_v0_carries_no_lag_and_reads_it_as_unknown():
    schema = APIS[ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS].response
    out = bytearray()
    schema.write(out, DESCRIBE_RESPONSE, 0, True)
    (partition,) = schema.read(bytes(out), 0, True).groups[0].topics[0].partitions
    assert (partition.start_offset, partition.leader_epoch, partition.lag) == (100, 5, -1)


def test_a_null_topic_list_asks_for_every_partition_and_reads_back_as_null():
    api = APIS[ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS]
    out = bytearray()
    api.request.write(out, DESCRIBE_REQUEST, 0, True)
    assert api.request.read(bytes(out), 0, True).groups[1].topics is None


def test_the_versions_are_kafka_4_4s():
    assert {key: (APIS[key].min_version, APIS[key].max_version, APIS[key].flexible_from, APIS[key].name)
            for key in (
        ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, ApiKey.ALTER_SHARE_GROUP_OFFSETS,
        ApiKey.DELETE_SHARE_GROUP_OFFSETS)} == {
        ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS: (0, 1, 0, "DescribeShareGroupOffsets"),
        ApiKey.ALTER_SHARE_GROUP_OFFSETS: (0, 0, 0, "AlterShareGroupOffsets"),
        ApiKey.DELETE_SHARE_GROUP_OFFSETS: (0, 0, 0, "DeleteShareGroupOffsets")}
