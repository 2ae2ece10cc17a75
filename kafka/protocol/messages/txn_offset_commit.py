"""TxnOffsetCommit (key 28): commit a group's offsets as part of a transaction (KIP-98, KIP-447).

Mirrors ``common/message/TxnOffsetCommitRequest.json`` and ``...Response.json`` (flexible from 3).
Sent by a transactional producer to the group's coordinator after AddOffsetsToTxn. The offsets are
written to ``__consumer_offsets`` as a transactional batch and stay pending (invisible to
OffsetFetch) until the transaction's COMMIT marker reaches that partition; an ABORT drops them.
v3 (KIP-447) carries the consumer's generation and member id so a zombie is fenced. v4 and v5 are v3's
shape (KIP-890): from v5 (transaction.version 2) the group's partition is added to the transaction by the
broker, and the producer sends no AddOffsetsToTxn. v6 (KIP-1319) names each topic by its id instead of
its name, both ways (an id the metadata cache does not know: UNKNOWN_TOPIC_ID), and hears two errors
older versions get as ILLEGAL_GENERATION: GROUP_ID_NOT_FOUND (a member's commit to a group the
coordinator does not have) and STALE_MEMBER_EPOCH (a consumer group member's older epoch). Its
``generation_id`` is Kafka's GenerationIdOrMemberEpoch, the same bytes.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String, Uuid

TXN_OFFSET_COMMIT_REQUEST_PARTITION = Schema(
    "TxnOffsetCommitRequestPartition",
    Field("partition_index", Int32, "0+"),
    Field("committed_offset", Int64, "0+"),
    Field("committed_leader_epoch", Int32, "2+", default=-1),
    Field("committed_metadata", String, "0+", nullable_versions="0+", default=None),
)

TXN_OFFSET_COMMIT_REQUEST_TOPIC = Schema(
    "TxnOffsetCommitRequestTopic",
    Field("name", String, "0-5", ignorable=True),
    Field("topic_id", Uuid, "6+", ignorable=True),
    Field("partitions", Array(TXN_OFFSET_COMMIT_REQUEST_PARTITION), "0+"),
)

TXN_OFFSET_COMMIT_REQUEST = Schema(
    "TxnOffsetCommitRequest",
    Field("transactional_id", String, "0+"),
    Field("group_id", String, "0+"),
    Field("producer_id", Int64, "0+"),
    Field("producer_epoch", Int16, "0+"),
    Field("generation_id", Int32, "3+", default=-1),
    Field("member_id", String, "3+", default=""),
    Field("group_instance_id", String, "3+", nullable_versions="3+", default=None),
    Field("topics", Array(TXN_OFFSET_COMMIT_REQUEST_TOPIC), "0+"),
)

TXN_OFFSET_COMMIT_RESPONSE_PARTITION = Schema(
    "TxnOffsetCommitResponsePartition",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
)

TXN_OFFSET_COMMIT_RESPONSE_TOPIC = Schema(
    "TxnOffsetCommitResponseTopic",
    Field("name", String, "0-5", ignorable=True),
    Field("topic_id", Uuid, "6+", ignorable=True),
    Field("partitions", Array(TXN_OFFSET_COMMIT_RESPONSE_PARTITION), "0+"),
)

TXN_OFFSET_COMMIT_RESPONSE = Schema(
    "TxnOffsetCommitResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("topics", Array(TXN_OFFSET_COMMIT_RESPONSE_TOPIC), "0+"),
)

TXN_OFFSET_COMMIT = register(
    Api(ApiKey.TXN_OFFSET_COMMIT, "TxnOffsetCommit", 0, 6, 3,
        TXN_OFFSET_COMMIT_REQUEST, TXN_OFFSET_COMMIT_RESPONSE)
)
