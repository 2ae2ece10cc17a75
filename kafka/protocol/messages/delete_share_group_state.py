"""DeleteShareGroupState (key 86): a share group's state for a partition goes (KIP-932).

Mirrors ``common/message/DeleteShareGroupStateRequest.json`` and ``...Response.json`` (version 0,
flexible from 0). When a share group is deleted, or its offsets for a topic are, the group
coordinator asks the share coordinator to forget the partitions: it writes a ShareSnapshot tombstone
for each one it knows. Broker to broker only.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String, Uuid

PARTITION_DATA = Schema(
    "PartitionData",
    Field("partition", Int32, "0+"),
)

DELETE_STATE_DATA = Schema(
    "DeleteStateData",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(PARTITION_DATA), "0+"),
)

DELETE_SHARE_GROUP_STATE_REQUEST = Schema(
    "DeleteShareGroupStateRequest",
    Field("group_id", String, "0+"),
    Field("topics", Array(DELETE_STATE_DATA), "0+"),
)

PARTITION_RESULT = Schema(
    "PartitionResult",
    Field("partition", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

DELETE_STATE_RESULT = Schema(
    "DeleteStateResult",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(PARTITION_RESULT), "0+"),
)

DELETE_SHARE_GROUP_STATE_RESPONSE = Schema(
    "DeleteShareGroupStateResponse",
    Field("results", Array(DELETE_STATE_RESULT), "0+"),
)

DELETE_SHARE_GROUP_STATE = register(Api(
    ApiKey.DELETE_SHARE_GROUP_STATE, "DeleteShareGroupState", 0, 0, 0,
    DELETE_SHARE_GROUP_STATE_REQUEST, DELETE_SHARE_GROUP_STATE_RESPONSE))
