"""ReadShareGroupState (key 84): a share partition's leader reads its state back (KIP-932).

Mirrors ``common/message/ReadShareGroupStateRequest.json`` and ``...Response.json`` (version 0,
flexible from 0). A broker that becomes leader of a partition a share group reads asks the share
coordinator, through the persister, for the share-partition start offset and the in-flight batches
(each a run of offsets with one delivery state and count), giving its leader epoch: the coordinator
records it, so a write from an older leader is fenced from then on. Broker to broker only.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.messages.write_share_group_state import STATE_BATCH  # the same StateBatch struct
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String, Uuid

PARTITION_DATA = Schema(
    "PartitionData",
    Field("partition", Int32, "0+"),
    Field("leader_epoch", Int32, "0+"),
)

READ_STATE_DATA = Schema(
    "ReadStateData",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(PARTITION_DATA), "0+"),
)

READ_SHARE_GROUP_STATE_REQUEST = Schema(
    "ReadShareGroupStateRequest",
    Field("group_id", String, "0+"),
    Field("topics", Array(READ_STATE_DATA), "0+"),
)

PARTITION_RESULT = Schema(
    "PartitionResult",
    Field("partition", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("state_epoch", Int32, "0+"),
    Field("start_offset", Int64, "0+"),
    Field("state_batches", Array(STATE_BATCH), "0+"),
)

READ_STATE_RESULT = Schema(
    "ReadStateResult",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(PARTITION_RESULT), "0+"),
)

READ_SHARE_GROUP_STATE_RESPONSE = Schema(
    "ReadShareGroupStateResponse",
    Field("results", Array(READ_STATE_RESULT), "0+"),
)

READ_SHARE_GROUP_STATE = register(Api(
    ApiKey.READ_SHARE_GROUP_STATE, "ReadShareGroupState", 0, 0, 0,
    READ_SHARE_GROUP_STATE_REQUEST, READ_SHARE_GROUP_STATE_RESPONSE))
