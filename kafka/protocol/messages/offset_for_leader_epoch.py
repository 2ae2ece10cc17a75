"""OffsetForLeaderEpoch (key 23): "where does leader epoch E end in your log?" (KIP-101, KIP-279).

Mirrors ``common/message/OffsetForLeaderEpochRequest.json`` and ``OffsetForLeaderEpochResponse.json``
(versions 2-4, flexible from 4; v3 adds the asking replica's id). A follower that has just become
follower asks its leader about its own latest epoch and truncates its log to the answer, so a
deposed leader drops the tail nobody else has. current_leader_epoch fences a stale asker
(FENCED_LEADER_EPOCH) or a leader that has not heard of the new epoch yet (UNKNOWN_LEADER_EPOCH).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.messages.fetch import DEBUGGING_REPLICA_ID
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String

OFFSET_FOR_LEADER_PARTITION = Schema(
    "OffsetForLeaderPartition",
    Field("partition", Int32, "0+"),
    Field("current_leader_epoch", Int32, "2+", default=-1),
    Field("leader_epoch", Int32, "0+"),
)

OFFSET_FOR_LEADER_TOPIC = Schema(
    "OffsetForLeaderTopic",
    Field("topic", String, "0+"),
    Field("partitions", Array(OFFSET_FOR_LEADER_PARTITION), "0+"),
)

OFFSET_FOR_LEADER_EPOCH_REQUEST = Schema(
    "OffsetForLeaderEpochRequest",
    Field("replica_id", Int32, "3+", default=DEBUGGING_REPLICA_ID),
    Field("topics", Array(OFFSET_FOR_LEADER_TOPIC), "0+"),
)

EPOCH_END_OFFSET = Schema(
    "EpochEndOffset",
    Field("error_code", Int16, "0+"),
    Field("partition", Int32, "0+"),
    Field("leader_epoch", Int32, "1+", default=-1),
    Field("end_offset", Int64, "0+", default=-1),
)

OFFSET_FOR_LEADER_TOPIC_RESULT = Schema(
    "OffsetForLeaderTopicResult",
    Field("topic", String, "0+"),
    Field("partitions", Array(EPOCH_END_OFFSET), "0+"),
)

OFFSET_FOR_LEADER_EPOCH_RESPONSE = Schema(
    "OffsetForLeaderEpochResponse",
    Field("throttle_time_ms", Int32, "2+", default=0),
    Field("topics", Array(OFFSET_FOR_LEADER_TOPIC_RESULT), "0+"),
)

OFFSET_FOR_LEADER_EPOCH = register(
    Api(ApiKey.OFFSET_FOR_LEADER_EPOCH, "OffsetForLeaderEpoch", 2, 4, 4,
        OFFSET_FOR_LEADER_EPOCH_REQUEST, OFFSET_FOR_LEADER_EPOCH_RESPONSE)
)
