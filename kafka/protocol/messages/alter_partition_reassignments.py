"""AlterPartitionReassignments (key 45): move partitions' replicas to other brokers (KIP-455).

Mirrors ``common/message/AlterPartitionReassignmentsRequest.json`` and its response (versions 0-1,
flexible). Each partition names its target replicas; null cancels the reassignment in progress.
The controller answers once the reassignment has *started*; ListPartitionReassignments shows its
progress, and it completes when every target replica has joined the ISR. v1 can forbid a target of
another size than the partition's replica list (KIP-860: INVALID_REPLICATION_FACTOR then), and the
response says which way it was asked.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, String

REASSIGNABLE_PARTITION = Schema(
    "ReassignablePartition",
    Field("partition_index", Int32, "0+"),
    Field("replicas", Array(Int32), "0+", nullable_versions="0+", default=None),
)

REASSIGNABLE_TOPIC = Schema(
    "ReassignableTopic",
    Field("name", String, "0+"),
    Field("partitions", Array(REASSIGNABLE_PARTITION), "0+"),
)

ALTER_PARTITION_REASSIGNMENTS_REQUEST = Schema(
    "AlterPartitionReassignmentsRequest",
    Field("timeout_ms", Int32, "0+", default=60000),
    Field("allow_replication_factor_change", Boolean, "1+", default=True),
    Field("topics", Array(REASSIGNABLE_TOPIC), "0+"),
)

REASSIGNABLE_PARTITION_RESPONSE = Schema(
    "ReassignablePartitionResponse",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+"),
)

REASSIGNABLE_TOPIC_RESPONSE = Schema(
    "ReassignableTopicResponse",
    Field("name", String, "0+"),
    Field("partitions", Array(REASSIGNABLE_PARTITION_RESPONSE), "0+"),
)

ALTER_PARTITION_REASSIGNMENTS_RESPONSE = Schema(
    "AlterPartitionReassignmentsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("allow_replication_factor_change", Boolean, "1+", default=True, ignorable=True),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+"),
    Field("responses", Array(REASSIGNABLE_TOPIC_RESPONSE), "0+"),
)

ALTER_PARTITION_REASSIGNMENTS = register(
    Api(ApiKey.ALTER_PARTITION_REASSIGNMENTS, "AlterPartitionReassignments", 0, 1, 0,
        ALTER_PARTITION_REASSIGNMENTS_REQUEST, ALTER_PARTITION_REASSIGNMENTS_RESPONSE)
)
