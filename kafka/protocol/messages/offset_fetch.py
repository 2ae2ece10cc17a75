"""OffsetFetch (key 9): "where did group G get to?" -- the committed offsets a consumer resumes from.

Mirrors ``common/message/OffsetFetchRequest.json`` and ``OffsetFetchResponse.json`` (versions
0-9, flexible from 6). A null ``topics`` list (v2+) asks for every partition the group has
committed. v8 (KIP-709) batches ``groups``: the request and the response move their topics one
level down, under each group. A partition with no committed offset answers offset -1. v9
(KIP-848) adds the member id and epoch of a consumer group's member. v10 (KIP-848) names each topic
of a group by its id instead of its name, both ways; an id the metadata cache does not know answers
UNKNOWN_TOPIC_ID for its partitions, and asked for everything, a group's offsets of a topic that is
gone (no id) are left out. We advertise 1-10.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, Int64, String, Uuid

OFFSET_FETCH_REQUEST_TOPIC = Schema(
    "OffsetFetchRequestTopic",
    Field("name", String, "0-7"),
    Field("partition_indexes", Array(Int32), "0-7"),
)

OFFSET_FETCH_REQUEST_TOPICS = Schema(
    "OffsetFetchRequestTopics",
    Field("name", String, "8-9", ignorable=True),
    Field("topic_id", Uuid, "10+", ignorable=True),
    Field("partition_indexes", Array(Int32), "8+"),
)

OFFSET_FETCH_REQUEST_GROUP = Schema(
    "OffsetFetchRequestGroup",
    Field("group_id", String, "8+"),
    Field("member_id", String, "9+", nullable_versions="9+", default=None, ignorable=True),
    Field("member_epoch", Int32, "9+", default=-1, ignorable=True),
    Field("topics", Array(OFFSET_FETCH_REQUEST_TOPICS), "8+", nullable_versions="8+"),
)

OFFSET_FETCH_REQUEST = Schema(
    "OffsetFetchRequest",
    Field("group_id", String, "0-7"),
    Field("topics", Array(OFFSET_FETCH_REQUEST_TOPIC), "0-7", nullable_versions="2-7"),
    Field("groups", Array(OFFSET_FETCH_REQUEST_GROUP), "8+"),
    Field("require_stable", Boolean, "7+", default=False),
)

OFFSET_FETCH_RESPONSE_PARTITION = Schema(
    "OffsetFetchResponsePartition",
    Field("partition_index", Int32, "0-7"),
    Field("committed_offset", Int64, "0-7"),
    Field("committed_leader_epoch", Int32, "5-7", default=-1, ignorable=True),
    Field("metadata", String, "0-7", nullable_versions="0-7"),
    Field("error_code", Int16, "0-7"),
)

OFFSET_FETCH_RESPONSE_TOPIC = Schema(
    "OffsetFetchResponseTopic",
    Field("name", String, "0-7"),
    Field("partitions", Array(OFFSET_FETCH_RESPONSE_PARTITION), "0-7"),
)

OFFSET_FETCH_RESPONSE_PARTITIONS = Schema(
    "OffsetFetchResponsePartitions",
    Field("partition_index", Int32, "8+"),
    Field("committed_offset", Int64, "8+"),
    Field("committed_leader_epoch", Int32, "8+", default=-1, ignorable=True),
    Field("metadata", String, "8+", nullable_versions="8+"),
    Field("error_code", Int16, "8+"),
)

OFFSET_FETCH_RESPONSE_TOPICS = Schema(
    "OffsetFetchResponseTopics",
    Field("name", String, "8-9", ignorable=True),
    Field("topic_id", Uuid, "10+", ignorable=True),
    Field("partitions", Array(OFFSET_FETCH_RESPONSE_PARTITIONS), "8+"),
)

OFFSET_FETCH_RESPONSE_GROUP = Schema(
    "OffsetFetchResponseGroup",
    Field("group_id", String, "8+"),
    Field("topics", Array(OFFSET_FETCH_RESPONSE_TOPICS), "8+"),
    Field("error_code", Int16, "8+", default=0),
)

OFFSET_FETCH_RESPONSE = Schema(
    "OffsetFetchResponse",
    Field("throttle_time_ms", Int32, "3+", ignorable=True),
    Field("topics", Array(OFFSET_FETCH_RESPONSE_TOPIC), "0-7"),
    Field("error_code", Int16, "2-7", default=0, ignorable=True),
    Field("groups", Array(OFFSET_FETCH_RESPONSE_GROUP), "8+"),
)

OFFSET_FETCH = register(
    Api(ApiKey.OFFSET_FETCH, "OffsetFetch", 1, 10, 6, OFFSET_FETCH_REQUEST, OFFSET_FETCH_RESPONSE)
)
