"""DescribeShareGroupOffsets (key 90): where each share partition of a share group starts (KIP-932).

Mirrors ``common/message/DescribeShareGroupOffsetsRequest.json`` and ``...Response.json`` (versions
0-1, flexible from 0; v1 adds the lag, KIP-1226). A share group commits no offsets: each of its share
partitions keeps a *share-partition start offset* in the share coordinator. The admin asks the group's
coordinator, which reads them there (ReadShareGroupStateSummary); null topics means every partition
whose share state exists. ``kafka-share-groups --describe`` prints the answer.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String, Uuid

DESCRIBE_SHARE_GROUP_OFFSETS_REQUEST_TOPIC = Schema(
    "DescribeShareGroupOffsetsRequestTopic",
    Field("topic_name", String, "0+"),
    Field("partitions", Array(Int32), "0+"),
)

DESCRIBE_SHARE_GROUP_OFFSETS_REQUEST_GROUP = Schema(
    "DescribeShareGroupOffsetsRequestGroup",
    Field("group_id", String, "0+"),
    Field("topics", Array(DESCRIBE_SHARE_GROUP_OFFSETS_REQUEST_TOPIC), "0+", nullable_versions="0+"),
)

DESCRIBE_SHARE_GROUP_OFFSETS_REQUEST = Schema(
    "DescribeShareGroupOffsetsRequest",
    Field("groups", Array(DESCRIBE_SHARE_GROUP_OFFSETS_REQUEST_GROUP), "0+"),
)

DESCRIBE_SHARE_GROUP_OFFSETS_RESPONSE_PARTITION = Schema(
    "DescribeShareGroupOffsetsResponsePartition",
    Field("partition_index", Int32, "0+"),
    Field("start_offset", Int64, "0+"),
    Field("leader_epoch", Int32, "0+"),
    Field("lag", Int64, "1+", default=-1, ignorable=True),  # KIP-1226
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

DESCRIBE_SHARE_GROUP_OFFSETS_RESPONSE_TOPIC = Schema(
    "DescribeShareGroupOffsetsResponseTopic",
    Field("topic_name", String, "0+"),
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(DESCRIBE_SHARE_GROUP_OFFSETS_RESPONSE_PARTITION), "0+"),
)

DESCRIBE_SHARE_GROUP_OFFSETS_RESPONSE_GROUP = Schema(
    "DescribeShareGroupOffsetsResponseGroup",
    Field("group_id", String, "0+"),
    Field("topics", Array(DESCRIBE_SHARE_GROUP_OFFSETS_RESPONSE_TOPIC), "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

DESCRIBE_SHARE_GROUP_OFFSETS_RESPONSE = Schema(
    "DescribeShareGroupOffsetsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("groups", Array(DESCRIBE_SHARE_GROUP_OFFSETS_RESPONSE_GROUP), "0+"),
)

DESCRIBE_SHARE_GROUP_OFFSETS = register(Api(
    ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, "DescribeShareGroupOffsets", 0, 1, 0,
    DESCRIBE_SHARE_GROUP_OFFSETS_REQUEST, DESCRIBE_SHARE_GROUP_OFFSETS_RESPONSE))
