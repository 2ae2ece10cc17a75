"""OffsetDelete (key 47): forget a group's committed offsets for some partitions (KIP-496).

Mirrors ``common/message/OffsetDeleteRequest.json`` and ``OffsetDeleteResponse.json`` (version 0
only, not flexible). Refused per partition with GROUP_SUBSCRIBED_TO_TOPIC while a live member of
the group is subscribed to that topic.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String

OFFSET_DELETE_REQUEST_PARTITION = Schema(
    "OffsetDeleteRequestPartition",
    Field("partition_index", Int32, "0+"),
)

OFFSET_DELETE_REQUEST_TOPIC = Schema(
    "OffsetDeleteRequestTopic",
    Field("name", String, "0+"),
    Field("partitions", Array(OFFSET_DELETE_REQUEST_PARTITION), "0+"),
)

OFFSET_DELETE_REQUEST = Schema(
    "OffsetDeleteRequest",
    Field("group_id", String, "0+"),
    Field("topics", Array(OFFSET_DELETE_REQUEST_TOPIC), "0+"),
)

OFFSET_DELETE_RESPONSE_PARTITION = Schema(
    "OffsetDeleteResponsePartition",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
)

OFFSET_DELETE_RESPONSE_TOPIC = Schema(
    "OffsetDeleteResponseTopic",
    Field("name", String, "0+"),
    Field("partitions", Array(OFFSET_DELETE_RESPONSE_PARTITION), "0+"),
)

OFFSET_DELETE_RESPONSE = Schema(
    "OffsetDeleteResponse",
    Field("error_code", Int16, "0+"),
    Field("throttle_time_ms", Int32, "0+", ignorable=True),
    Field("topics", Array(OFFSET_DELETE_RESPONSE_TOPIC), "0+"),
)

OFFSET_DELETE = register(
    Api(ApiKey.OFFSET_DELETE, "OffsetDelete", 0, 0, None, OFFSET_DELETE_REQUEST, OFFSET_DELETE_RESPONSE)
)
