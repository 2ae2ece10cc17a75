"""InitializeShareGroupState (key 83): a share group's state for a partition is born (KIP-932).

Mirrors ``common/message/InitializeShareGroupStateRequest.json`` and ``...Response.json`` (version 0,
flexible from 0). The group coordinator sends it, through the persister, when a share group first
reads a partition (or when an admin resets its offsets): the share coordinator writes a ShareSnapshot
with the new state epoch and start offset and no in-flight batches. Broker to broker only.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String, Uuid

PARTITION_DATA = Schema(
    "PartitionData",
    Field("partition", Int32, "0+"),
    Field("state_epoch", Int32, "0+"),
    Field("start_offset", Int64, "0+"),  # -1: no start offset yet (share.auto.offset.reset decides)
)

INITIALIZE_STATE_DATA = Schema(
    "InitializeStateData",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(PARTITION_DATA), "0+"),
)

INITIALIZE_SHARE_GROUP_STATE_REQUEST = Schema(
    "InitializeShareGroupStateRequest",
    Field("group_id", String, "0+"),
    Field("topics", Array(INITIALIZE_STATE_DATA), "0+"),
)

PARTITION_RESULT = Schema(
    "PartitionResult",
    Field("partition", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

INITIALIZE_STATE_RESULT = Schema(
    "InitializeStateResult",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(PARTITION_RESULT), "0+"),
)

INITIALIZE_SHARE_GROUP_STATE_RESPONSE = Schema(
    "InitializeShareGroupStateResponse",
    Field("results", Array(INITIALIZE_STATE_RESULT), "0+"),
)

INITIALIZE_SHARE_GROUP_STATE = register(Api(
    ApiKey.INITIALIZE_SHARE_GROUP_STATE, "InitializeShareGroupState", 0, 0, 0,
    INITIALIZE_SHARE_GROUP_STATE_REQUEST, INITIALIZE_SHARE_GROUP_STATE_RESPONSE))
