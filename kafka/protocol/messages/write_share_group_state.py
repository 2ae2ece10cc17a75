"""WriteShareGroupState (key 85): a share partition's leader persists what changed (KIP-932).

Mirrors ``common/message/WriteShareGroupStateRequest.json`` and ``...Response.json`` (versions 0-1,
flexible from 0; v1 adds the delivery complete count, KIP-1226). The leader sends its state epoch,
leader epoch, share-partition start offset and the batches whose delivery state or count changed;
the share coordinator fences stale epochs, merges the batches over the state it holds and writes a
ShareUpdate (or, every share.coordinator.snapshot.update.records.per.snapshot updates, a whole
ShareSnapshot) to __share_group_state, answering once it commits. Broker to broker only.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int8, Int16, Int32, Int64, String, Uuid

STATE_BATCH = Schema(
    "StateBatch",
    Field("first_offset", Int64, "0+"),
    Field("last_offset", Int64, "0+"),
    Field("delivery_state", Int8, "0+"),  # 0 available, 2 acknowledged, 4 archived
    Field("delivery_count", Int16, "0+"),
)

PARTITION_DATA = Schema(
    "PartitionData",
    Field("partition", Int32, "0+"),
    Field("state_epoch", Int32, "0+"),
    Field("leader_epoch", Int32, "0+"),
    Field("start_offset", Int64, "0+"),  # -1: not being written
    # offsets at or past the start offset whose delivery is complete (KIP-1226); -1: not known
    Field("delivery_complete_count", Int32, "1+", default=-1, ignorable=True),
    Field("state_batches", Array(STATE_BATCH), "0+"),
)

WRITE_STATE_DATA = Schema(
    "WriteStateData",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(PARTITION_DATA), "0+"),
)

WRITE_SHARE_GROUP_STATE_REQUEST = Schema(
    "WriteShareGroupStateRequest",
    Field("group_id", String, "0+"),
    Field("topics", Array(WRITE_STATE_DATA), "0+"),
)

PARTITION_RESULT = Schema(
    "PartitionResult",
    Field("partition", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

WRITE_STATE_RESULT = Schema(
    "WriteStateResult",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(PARTITION_RESULT), "0+"),
)

WRITE_SHARE_GROUP_STATE_RESPONSE = Schema(
    "WriteShareGroupStateResponse",
    Field("results", Array(WRITE_STATE_RESULT), "0+"),
)

WRITE_SHARE_GROUP_STATE = register(Api(
    ApiKey.WRITE_SHARE_GROUP_STATE, "WriteShareGroupState", 0, 1, 0,
    WRITE_SHARE_GROUP_STATE_REQUEST, WRITE_SHARE_GROUP_STATE_RESPONSE))
