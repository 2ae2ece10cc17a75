"""DescribeTopicPartitions (key 75): topics and partitions with their eligible leader replicas (KIP-966).

Mirrors ``common/message/DescribeTopicPartitionsRequest.json`` and
``DescribeTopicPartitionsResponse.json`` (version 0, flexible). It is Metadata's answer for the
admin client, plus the two fields Metadata lacks (``EligibleLeaderReplicas`` and
``LastKnownElr``) and a cursor: an answer holds at most ``ResponsePartitionLimit`` partitions,
and ``NextCursor`` names the topic and partition where the next request starts.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, String, Uuid

DEFAULT_RESPONSE_PARTITION_LIMIT = 2000
AUTHORIZED_OPERATIONS_OMITTED = -(2**31)

DESCRIBE_TOPIC_PARTITIONS_CURSOR = Schema(
    "Cursor",
    Field("topic_name", String, "0+"),
    Field("partition_index", Int32, "0+"),
)

DESCRIBE_TOPIC_PARTITIONS_REQUEST_TOPIC = Schema(
    "TopicRequest",
    Field("name", String, "0+"),
)

DESCRIBE_TOPIC_PARTITIONS_REQUEST = Schema(
    "DescribeTopicPartitionsRequest",
    Field("topics", Array(DESCRIBE_TOPIC_PARTITIONS_REQUEST_TOPIC), "0+"),
    Field("response_partition_limit", Int32, "0+", default=DEFAULT_RESPONSE_PARTITION_LIMIT),
    Field("cursor", DESCRIBE_TOPIC_PARTITIONS_CURSOR, "0+", nullable_versions="0+", default=None),
)

DESCRIBE_TOPIC_PARTITIONS_RESPONSE_PARTITION = Schema(
    "DescribeTopicPartitionsResponsePartition",
    Field("error_code", Int16, "0+"),
    Field("partition_index", Int32, "0+"),
    Field("leader_id", Int32, "0+"),
    Field("leader_epoch", Int32, "0+", default=-1, ignorable=True),
    Field("replica_nodes", Array(Int32), "0+"),
    Field("isr_nodes", Array(Int32), "0+"),
    Field("eligible_leader_replicas", Array(Int32), "0+", nullable_versions="0+", default=None),
    Field("last_known_elr", Array(Int32), "0+", nullable_versions="0+", default=None),
    Field("offline_replicas", Array(Int32), "0+", ignorable=True),
)

DESCRIBE_TOPIC_PARTITIONS_RESPONSE_TOPIC = Schema(
    "DescribeTopicPartitionsResponseTopic",
    Field("error_code", Int16, "0+"),
    Field("name", String, "0+", nullable_versions="0+"),
    Field("topic_id", Uuid, "0+", ignorable=True),
    Field("is_internal", Boolean, "0+", default=False, ignorable=True),
    Field("partitions", Array(DESCRIBE_TOPIC_PARTITIONS_RESPONSE_PARTITION), "0+"),
    Field("topic_authorized_operations", Int32, "0+", default=AUTHORIZED_OPERATIONS_OMITTED),
)

DESCRIBE_TOPIC_PARTITIONS_RESPONSE = Schema(
    "DescribeTopicPartitionsResponse",
    Field("throttle_time_ms", Int32, "0+", ignorable=True),
    Field("topics", Array(DESCRIBE_TOPIC_PARTITIONS_RESPONSE_TOPIC), "0+"),
    Field("next_cursor", DESCRIBE_TOPIC_PARTITIONS_CURSOR, "0+", nullable_versions="0+", default=None),
)

DESCRIBE_TOPIC_PARTITIONS = register(
    Api(ApiKey.DESCRIBE_TOPIC_PARTITIONS, "DescribeTopicPartitions", 0, 0, 0,
        DESCRIBE_TOPIC_PARTITIONS_REQUEST, DESCRIBE_TOPIC_PARTITIONS_RESPONSE)
)
