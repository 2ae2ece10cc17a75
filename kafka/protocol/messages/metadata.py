"""Metadata (key 3): brokers, topics, partitions and their leaders -- how a client finds out whom to talk to.

Mirrors ``common/message/MetadataRequest.json`` and ``MetadataResponse.json`` (versions 0-13,
flexible from 9). Note the v0 / v1+ difference: in v0 an empty topic list means "all topics", from
v1 "all topics" is a null list (hence ``nullable_versions="1+"``). v13 adds a top-level error code
(KIP-1102): a broker sets it only in the answer to a request it failed as a whole (Kafka's
MetadataRequest.getErrorResponse), and a client that reads REBOOTSTRAP_REQUIRED there starts again
from its bootstrap servers.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, String, Uuid

METADATA_REQUEST_TOPIC = Schema(
    "MetadataRequestTopic",
    Field("topic_id", Uuid, "10+", ignorable=True),
    Field("name", String, "0+", nullable_versions="10+"),
)

METADATA_REQUEST = Schema(
    "MetadataRequest",
    Field("topics", Array(METADATA_REQUEST_TOPIC), "0+", nullable_versions="1+"),
    Field("allow_auto_topic_creation", Boolean, "4+", default=True),
    Field("include_cluster_authorized_operations", Boolean, "8-10"),
    Field("include_topic_authorized_operations", Boolean, "8+"),
)

METADATA_RESPONSE_BROKER = Schema(
    "MetadataResponseBroker",
    Field("node_id", Int32, "0+"),
    Field("host", String, "0+"),
    Field("port", Int32, "0+"),
    Field("rack", String, "1+", nullable_versions="1+", default=None, ignorable=True),
)

METADATA_RESPONSE_PARTITION = Schema(
    "MetadataResponsePartition",
    Field("error_code", Int16, "0+"),
    Field("partition_index", Int32, "0+"),
    Field("leader_id", Int32, "0+"),
    Field("leader_epoch", Int32, "7+", default=-1, ignorable=True),
    Field("replica_nodes", Array(Int32), "0+"),
    Field("isr_nodes", Array(Int32), "0+"),
    Field("offline_replicas", Array(Int32), "5+", ignorable=True),
)

# "Authorized operations" default to INT32_MIN: "not requested", distinct from "no operations" (0).
AUTHORIZED_OPERATIONS_OMITTED = -(2**31)

METADATA_RESPONSE_TOPIC = Schema(
    "MetadataResponseTopic",
    Field("error_code", Int16, "0+"),
    Field("name", String, "0+", nullable_versions="12+"),
    Field("topic_id", Uuid, "10+", ignorable=True),
    Field("is_internal", Boolean, "1+", default=False, ignorable=True),
    Field("partitions", Array(METADATA_RESPONSE_PARTITION), "0+"),
    Field("topic_authorized_operations", Int32, "8+", default=AUTHORIZED_OPERATIONS_OMITTED),
)

METADATA_RESPONSE = Schema(
    "MetadataResponse",
    Field("throttle_time_ms", Int32, "3+", ignorable=True),
    Field("brokers", Array(METADATA_RESPONSE_BROKER), "0+"),
    Field("cluster_id", String, "2+", nullable_versions="2+", default=None, ignorable=True),
    Field("controller_id", Int32, "1+", default=-1, ignorable=True),
    Field("topics", Array(METADATA_RESPONSE_TOPIC), "0+"),
    Field("cluster_authorized_operations", Int32, "8-10", default=AUTHORIZED_OPERATIONS_OMITTED),
    Field("error_code", Int16, "13+", ignorable=True),
)

METADATA = register(Api(ApiKey.METADATA, "Metadata", 0, 13, 9, METADATA_REQUEST, METADATA_RESPONSE))
