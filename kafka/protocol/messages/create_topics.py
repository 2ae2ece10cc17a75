"""CreateTopics (key 19): create topics with a partition count and replication factor, or an explicit
replica assignment, plus per-topic configs.

Mirrors ``common/message/CreateTopicsRequest.json`` and ``CreateTopicsResponse.json`` (versions 0-7,
flexible from 5). v5 returns the resulting topic configs (KIP-525), v7 the new topic id.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int8, Int16, Int32, String, Uuid

CREATABLE_REPLICA_ASSIGNMENT = Schema(
    "CreatableReplicaAssignment",
    Field("partition_index", Int32, "0+"),
    Field("broker_ids", Array(Int32), "0+"),
)

CREATABLE_TOPIC_CONFIG = Schema(
    "CreatableTopicConfig",
    Field("name", String, "0+"),
    Field("value", String, "0+", nullable_versions="0+"),
)

CREATABLE_TOPIC = Schema(
    "CreatableTopic",
    Field("name", String, "0+"),
    Field("num_partitions", Int32, "0+"),  # -1: use num.partitions (v4+) or the assignments
    Field("replication_factor", Int16, "0+"),  # -1: use default.replication.factor (v4+)
    Field("assignments", Array(CREATABLE_REPLICA_ASSIGNMENT), "0+"),
    Field("configs", Array(CREATABLE_TOPIC_CONFIG), "0+"),
)

CREATE_TOPICS_REQUEST = Schema(
    "CreateTopicsRequest",
    Field("topics", Array(CREATABLE_TOPIC), "0+"),
    Field("timeout_ms", Int32, "0+", default=60000),
    Field("validate_only", Boolean, "1+", default=False),
)

CREATABLE_TOPIC_CONFIGS = Schema(
    "CreatableTopicConfigs",
    Field("name", String, "5+"),
    Field("value", String, "5+", nullable_versions="5+"),
    Field("read_only", Boolean, "5+"),
    Field("config_source", Int8, "5+", default=-1, ignorable=True),
    Field("is_sensitive", Boolean, "5+"),
)

CREATABLE_TOPIC_RESULT = Schema(
    "CreatableTopicResult",
    Field("name", String, "0+"),
    Field("topic_id", Uuid, "7+", ignorable=True),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "1+", nullable_versions="0+", ignorable=True),
    Field("topic_config_error_code", Int16, "5+", tag=0, tagged_versions="5+", ignorable=True),
    Field("num_partitions", Int32, "5+", default=-1, ignorable=True),
    Field("replication_factor", Int16, "5+", default=-1, ignorable=True),
    Field("configs", Array(CREATABLE_TOPIC_CONFIGS), "5+", nullable_versions="5+", ignorable=True),
)

CREATE_TOPICS_RESPONSE = Schema(
    "CreateTopicsResponse",
    Field("throttle_time_ms", Int32, "2+", ignorable=True),
    Field("topics", Array(CREATABLE_TOPIC_RESULT), "0+"),
)

CREATE_TOPICS = register(
    Api(ApiKey.CREATE_TOPICS, "CreateTopics", 2, 7, 5, CREATE_TOPICS_REQUEST, CREATE_TOPICS_RESPONSE)
)
