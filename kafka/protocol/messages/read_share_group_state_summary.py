"""ReadShareGroupStateSummary (key 87): a share partition's state without its batches (KIP-932).

Mirrors ``common/message/ReadShareGroupStateSummaryRequest.json`` and ``...Response.json`` (versions
0-1, flexible from 0; v1 adds the delivery complete count, KIP-1226). The group coordinator asks it
to describe a share group's offsets (kafka-share-groups --describe): the state epoch, leader epoch and
share-partition start offset, read without fencing anybody. Broker to broker only.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String, Uuid

PARTITION_DATA = Schema(
    "PartitionData",
    Field("partition", Int32, "0+"),
    Field("leader_epoch", Int32, "0+"),
)

READ_STATE_SUMMARY_DATA = Schema(
    "ReadStateSummaryData",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(PARTITION_DATA), "0+"),
)

READ_SHARE_GROUP_STATE_SUMMARY_REQUEST = Schema(
    "ReadShareGroupStateSummaryRequest",
    Field("group_id", String, "0+"),
    Field("topics", Array(READ_STATE_SUMMARY_DATA), "0+"),
)

PARTITION_RESULT = Schema(
    "PartitionResult",
    Field("partition", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("state_epoch", Int32, "0+"),
    Field("leader_epoch", Int32, "0+"),
    Field("start_offset", Int64, "0+"),
    Field("delivery_complete_count", Int32, "1+", default=-1, ignorable=True),  # KIP-1226
)

READ_STATE_SUMMARY_RESULT = Schema(
    "ReadStateSummaryResult",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(PARTITION_RESULT), "0+"),
)

READ_SHARE_GROUP_STATE_SUMMARY_RESPONSE = Schema(
    "ReadShareGroupStateSummaryResponse",
    Field("results", Array(READ_STATE_SUMMARY_RESULT), "0+"),
)

READ_SHARE_GROUP_STATE_SUMMARY = register(Api(
    ApiKey.READ_SHARE_GROUP_STATE_SUMMARY, "ReadShareGroupStateSummary", 0, 1, 0,
    READ_SHARE_GROUP_STATE_SUMMARY_REQUEST, READ_SHARE_GROUP_STATE_SUMMARY_RESPONSE))
