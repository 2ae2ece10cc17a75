"""DeleteTopics (key 20): delete topics by name (v0-5) or by name-or-id (v6+).

Mirrors ``common/message/DeleteTopicsRequest.json`` and ``DeleteTopicsResponse.json`` (versions 0-6,
flexible from 4). v5 adds a per-topic error message, v6 topic ids (KIP-516).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String, Uuid

DELETE_TOPIC_STATE = Schema(
    "DeleteTopicState",
    Field("name", String, "6+", nullable_versions="6+", default=None),
    Field("topic_id", Uuid, "6+"),
)

DELETE_TOPICS_REQUEST = Schema(
    "DeleteTopicsRequest",
    Field("topics", Array(DELETE_TOPIC_STATE), "6+"),
    Field("topic_names", Array(String), "0-5", ignorable=True),
    Field("timeout_ms", Int32, "0+"),
)

DELETABLE_TOPIC_RESULT = Schema(
    "DeletableTopicResult",
    Field("name", String, "0+", nullable_versions="6+"),
    Field("topic_id", Uuid, "6+", ignorable=True),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "5+", nullable_versions="5+", default=None, ignorable=True),
)

DELETE_TOPICS_RESPONSE = Schema(
    "DeleteTopicsResponse",
    Field("throttle_time_ms", Int32, "1+", ignorable=True),
    Field("responses", Array(DELETABLE_TOPIC_RESULT), "0+"),
)

DELETE_TOPICS = register(
    Api(ApiKey.DELETE_TOPICS, "DeleteTopics", 1, 6, 4, DELETE_TOPICS_REQUEST, DELETE_TOPICS_RESPONSE)
)
