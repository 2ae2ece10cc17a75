"""OffsetCommit (key 8): store "group G has consumed topic T partition P up to offset O".

Mirrors ``common/message/OffsetCommitRequest.json`` and ``OffsetCommitResponse.json`` (versions
0-9, flexible from 8). The broker writes each offset as a record in ``__consumer_offsets``
(seed 000: the offset manager "only needs to talk to the Replica Manager"). A generation id of -1
with an empty member id is a "simple" commit from outside any group (the admin tool's reset).
v2-4 carry ``retention_time_ms``; v6 adds the leader epoch; v7 ``group_instance_id``; v9 (KIP-848)
says the client understands STALE_MEMBER_EPOCH, and carries a member epoch instead of a generation
for consumer groups. v10 (KIP-848) names each topic by its id instead of its name, in the request and
the response: KafkaApis resolves the ids through the metadata cache, and an id it does not know answers
UNKNOWN_TOPIC_ID for each of that topic's partitions. We advertise 2-10.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String, Uuid

OFFSET_COMMIT_REQUEST_PARTITION = Schema(
    "OffsetCommitRequestPartition",
    Field("partition_index", Int32, "0+"),
    Field("committed_offset", Int64, "0+"),
    Field("committed_leader_epoch", Int32, "6+", default=-1, ignorable=True),
    Field("commit_timestamp", Int64, "1", default=-1),
    Field("committed_metadata", String, "0+", nullable_versions="0+"),
)

OFFSET_COMMIT_REQUEST_TOPIC = Schema(
    "OffsetCommitRequestTopic",
    Field("name", String, "0-9", ignorable=True),
    Field("topic_id", Uuid, "10+", ignorable=True),
    Field("partitions", Array(OFFSET_COMMIT_REQUEST_PARTITION), "0+"),
)

OFFSET_COMMIT_REQUEST = Schema(
    "OffsetCommitRequest",
    Field("group_id", String, "0+"),
    Field("generation_id_or_member_epoch", Int32, "1+", default=-1, ignorable=True),
    Field("member_id", String, "1+", ignorable=True),
    Field("group_instance_id", String, "7+", nullable_versions="7+", default=None),
    Field("retention_time_ms", Int64, "2-4", default=-1, ignorable=True),
    Field("topics", Array(OFFSET_COMMIT_REQUEST_TOPIC), "0+"),
)

OFFSET_COMMIT_RESPONSE_PARTITION = Schema(
    "OffsetCommitResponsePartition",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
)

OFFSET_COMMIT_RESPONSE_TOPIC = Schema(
    "OffsetCommitResponseTopic",
    Field("name", String, "0-9", ignorable=True),
    Field("topic_id", Uuid, "10+", ignorable=True),
    Field("partitions", Array(OFFSET_COMMIT_RESPONSE_PARTITION), "0+"),
)

OFFSET_COMMIT_RESPONSE = Schema(
    "OffsetCommitResponse",
    Field("throttle_time_ms", Int32, "3+", ignorable=True),
    Field("topics", Array(OFFSET_COMMIT_RESPONSE_TOPIC), "0+"),
)

OFFSET_COMMIT = register(
    Api(ApiKey.OFFSET_COMMIT, "OffsetCommit", 2, 10, 8, OFFSET_COMMIT_REQUEST, OFFSET_COMMIT_RESPONSE)
)
