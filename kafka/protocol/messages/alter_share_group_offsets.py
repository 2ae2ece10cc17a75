"""AlterShareGroupOffsets (key 91): set where a share group starts reading its partitions (KIP-932).

Mirrors ``common/message/AlterShareGroupOffsetsRequest.json`` and ``...Response.json`` (version 0,
flexible from 0). Only an empty share group may be altered: its coordinator notes the partitions as
initializing and asks the share coordinator to start their share state afresh at the new
share-partition start offsets (InitializeShareGroupState). ``kafka-share-groups --reset-offsets
--execute`` sends it.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String, Uuid

ALTER_SHARE_GROUP_OFFSETS_REQUEST_PARTITION = Schema(
    "AlterShareGroupOffsetsRequestPartition",
    Field("partition_index", Int32, "0+"),
    Field("start_offset", Int64, "0+"),
)

ALTER_SHARE_GROUP_OFFSETS_REQUEST_TOPIC = Schema(
    "AlterShareGroupOffsetsRequestTopic",
    Field("topic_name", String, "0+"),
    Field("partitions", Array(ALTER_SHARE_GROUP_OFFSETS_REQUEST_PARTITION), "0+"),
)

ALTER_SHARE_GROUP_OFFSETS_REQUEST = Schema(
    "AlterShareGroupOffsetsRequest",
    Field("group_id", String, "0+"),
    Field("topics", Array(ALTER_SHARE_GROUP_OFFSETS_REQUEST_TOPIC), "0+"),
)

ALTER_SHARE_GROUP_OFFSETS_RESPONSE_PARTITION = Schema(
    "AlterShareGroupOffsetsResponsePartition",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

ALTER_SHARE_GROUP_OFFSETS_RESPONSE_TOPIC = Schema(
    "AlterShareGroupOffsetsResponseTopic",
    Field("topic_name", String, "0+"),
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(ALTER_SHARE_GROUP_OFFSETS_RESPONSE_PARTITION), "0+"),
)

ALTER_SHARE_GROUP_OFFSETS_RESPONSE = Schema(
    "AlterShareGroupOffsetsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("responses", Array(ALTER_SHARE_GROUP_OFFSETS_RESPONSE_TOPIC), "0+"),
)

ALTER_SHARE_GROUP_OFFSETS = register(Api(
    ApiKey.ALTER_SHARE_GROUP_OFFSETS, "AlterShareGroupOffsets", 0, 0, 0,
    ALTER_SHARE_GROUP_OFFSETS_REQUEST, ALTER_SHARE_GROUP_OFFSETS_RESPONSE))
