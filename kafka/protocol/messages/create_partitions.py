"""CreatePartitions (key 37): grow a topic to a new partition count (partitions are never removed).

Mirrors ``common/message/CreatePartitionsRequest.json`` and ``CreatePartitionsResponse.json``
(versions 0-3, flexible from 2). ``count`` is the new total, not the number to add; explicit
``assignments`` (broker ids per new partition) are optional.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, String

CREATE_PARTITIONS_ASSIGNMENT = Schema(
    "CreatePartitionsAssignment",
    Field("broker_ids", Array(Int32), "0+"),
)

CREATE_PARTITIONS_TOPIC = Schema(
    "CreatePartitionsTopic",
    Field("name", String, "0+"),
    Field("count", Int32, "0+"),
    Field("assignments", Array(CREATE_PARTITIONS_ASSIGNMENT), "0+", nullable_versions="0+"),
)

CREATE_PARTITIONS_REQUEST = Schema(
    "CreatePartitionsRequest",
    Field("topics", Array(CREATE_PARTITIONS_TOPIC), "0+"),
    Field("timeout_ms", Int32, "0+", default=60000),
    Field("validate_only", Boolean, "0+", default=False),
)

CREATE_PARTITIONS_TOPIC_RESULT = Schema(
    "CreatePartitionsTopicResult",
    Field("name", String, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

CREATE_PARTITIONS_RESPONSE = Schema(
    "CreatePartitionsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("results", Array(CREATE_PARTITIONS_TOPIC_RESULT), "0+"),
)

CREATE_PARTITIONS = register(
    Api(ApiKey.CREATE_PARTITIONS, "CreatePartitions", 0, 3, 2, CREATE_PARTITIONS_REQUEST,
        CREATE_PARTITIONS_RESPONSE)
)
