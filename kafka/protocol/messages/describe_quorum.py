"""DescribeQuorum (key 55): the state of the metadata quorum, as its leader sees it (KIP-595, KIP-836).

Mirrors ``common/message/DescribeQuorumRequest.json`` and ``DescribeQuorumResponse.json`` versions 0-2
(flexible; version 2, KIP-853, names each voter's directory id and every voter's endpoints). Only the leader
knows every voter's and observer's log end offset and when it last fetched; `kafka-metadata-quorum describe`
prints this response.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String, UInt16, Uuid

DESCRIBE_QUORUM_PARTITION_REQUEST = Schema(
    "DescribeQuorumPartitionRequest",
    Field("partition_index", Int32, "0+"),
)

DESCRIBE_QUORUM_TOPIC_REQUEST = Schema(
    "DescribeQuorumTopicRequest",
    Field("topic_name", String, "0+"),
    Field("partitions", Array(DESCRIBE_QUORUM_PARTITION_REQUEST), "0+"),
)

DESCRIBE_QUORUM_REQUEST = Schema(
    "DescribeQuorumRequest",
    Field("topics", Array(DESCRIBE_QUORUM_TOPIC_REQUEST), "0+"),
)

REPLICA_STATE = Schema(
    "ReplicaState",
    Field("replica_id", Int32, "0+"),
    Field("replica_directory_id", Uuid, "2+", ignorable=True),  # left out below version 2
    Field("log_end_offset", Int64, "0+"),
    Field("last_fetch_timestamp", Int64, "1+", default=-1),
    Field("last_caught_up_timestamp", Int64, "1+", default=-1),
)

DESCRIBE_QUORUM_PARTITION_RESPONSE = Schema(
    "DescribeQuorumPartitionResponse",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "2+", nullable_versions="2+", default=None, ignorable=True),
    Field("leader_id", Int32, "0+", default=-1),
    Field("leader_epoch", Int32, "0+", default=-1),
    Field("high_watermark", Int64, "0+", default=-1),
    Field("current_voters", Array(REPLICA_STATE), "0+", default=[]),
    Field("observers", Array(REPLICA_STATE), "0+", default=[]),
)

DESCRIBE_QUORUM_TOPIC_RESPONSE = Schema(
    "DescribeQuorumTopicResponse",
    Field("topic_name", String, "0+"),
    Field("partitions", Array(DESCRIBE_QUORUM_PARTITION_RESPONSE), "0+"),
)

LISTENER = Schema(
    "Listener",
    Field("name", String, "2+"),
    Field("host", String, "2+"),
    Field("port", UInt16, "2+"),
)

NODE = Schema(
    "Node",
    Field("node_id", Int32, "2+"),
    Field("listeners", Array(LISTENER), "2+"),
)

DESCRIBE_QUORUM_RESPONSE = Schema(
    "DescribeQuorumResponse",
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "2+", nullable_versions="2+", default=None, ignorable=True),
    Field("topics", Array(DESCRIBE_QUORUM_TOPIC_RESPONSE), "0+", default=[]),
    Field("nodes", Array(NODE), "2+", default=[], ignorable=True),
)

DESCRIBE_QUORUM = register(Api(ApiKey.DESCRIBE_QUORUM, "DescribeQuorum", 0, 2, 0,
                               DESCRIBE_QUORUM_REQUEST, DESCRIBE_QUORUM_RESPONSE))
