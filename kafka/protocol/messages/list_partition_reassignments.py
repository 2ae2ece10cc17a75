"""ListPartitionReassignments (key 46): the reassignments in progress (KIP-455).

Mirrors ``common/message/ListPartitionReassignmentsRequest.json`` and its response (version 0,
flexible). Null topics means all. Each ongoing reassignment lists the partition's replicas (old and
target together), the replicas being added and those being removed.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String

LIST_PARTITION_REASSIGNMENTS_TOPICS = Schema(
    "ListPartitionReassignmentsTopics",
    Field("name", String, "0+"),
    Field("partition_indexes", Array(Int32), "0+"),
)

LIST_PARTITION_REASSIGNMENTS_REQUEST = Schema(
    "ListPartitionReassignmentsRequest",
    Field("timeout_ms", Int32, "0+", default=60000),
    Field("topics", Array(LIST_PARTITION_REASSIGNMENTS_TOPICS), "0+", nullable_versions="0+", default=None),
)

ONGOING_PARTITION_REASSIGNMENT = Schema(
    "OngoingPartitionReassignment",
    Field("partition_index", Int32, "0+"),
    Field("replicas", Array(Int32), "0+"),
    Field("adding_replicas", Array(Int32), "0+"),
    Field("removing_replicas", Array(Int32), "0+"),
)

ONGOING_TOPIC_REASSIGNMENT = Schema(
    "OngoingTopicReassignment",
    Field("name", String, "0+"),
    Field("partitions", Array(ONGOING_PARTITION_REASSIGNMENT), "0+"),
)

LIST_PARTITION_REASSIGNMENTS_RESPONSE = Schema(
    "ListPartitionReassignmentsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+"),
    Field("topics", Array(ONGOING_TOPIC_REASSIGNMENT), "0+"),
)

LIST_PARTITION_REASSIGNMENTS = register(
    Api(ApiKey.LIST_PARTITION_REASSIGNMENTS, "ListPartitionReassignments", 0, 0, 0,
        LIST_PARTITION_REASSIGNMENTS_REQUEST, LIST_PARTITION_REASSIGNMENTS_RESPONSE)
)
