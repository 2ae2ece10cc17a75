"""DeleteShareGroupOffsets (key 92): forget a share group's state for whole topics (KIP-932).

Mirrors ``common/message/DeleteShareGroupOffsetsRequest.json`` and ``...Response.json`` (version 0,
flexible from 0). Only an empty share group's offsets may be deleted, a topic at a time: its
coordinator notes the topic as deleting, asks the share coordinator to delete every partition's share
state (DeleteShareGroupState), and then forgets the topic; a member reading it later starts where
``share.auto.offset.reset`` says. ``kafka-share-groups --delete-offsets`` sends it.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String, Uuid

DELETE_SHARE_GROUP_OFFSETS_REQUEST_TOPIC = Schema(
    "DeleteShareGroupOffsetsRequestTopic",
    Field("topic_name", String, "0+"),
)

DELETE_SHARE_GROUP_OFFSETS_REQUEST = Schema(
    "DeleteShareGroupOffsetsRequest",
    Field("group_id", String, "0+"),
    Field("topics", Array(DELETE_SHARE_GROUP_OFFSETS_REQUEST_TOPIC), "0+"),
)

DELETE_SHARE_GROUP_OFFSETS_RESPONSE_TOPIC = Schema(
    "DeleteShareGroupOffsetsResponseTopic",
    Field("topic_name", String, "0+"),
    Field("topic_id", Uuid, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

DELETE_SHARE_GROUP_OFFSETS_RESPONSE = Schema(
    "DeleteShareGroupOffsetsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("responses", Array(DELETE_SHARE_GROUP_OFFSETS_RESPONSE_TOPIC), "0+"),
)

DELETE_SHARE_GROUP_OFFSETS = register(Api(
    ApiKey.DELETE_SHARE_GROUP_OFFSETS, "DeleteShareGroupOffsets", 0, 0, 0,
    DELETE_SHARE_GROUP_OFFSETS_REQUEST, DELETE_SHARE_GROUP_OFFSETS_RESPONSE))
