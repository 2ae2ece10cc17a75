"""AlterPartition (key 56): a partition leader asks the controller to change the ISR (KIP-497, KIP-841).

Mirrors ``common/message/AlterPartitionRequest.json`` and ``AlterPartitionResponse.json`` (versions
0-1 here, flexible, topic names). The leader sends the ISR it wants with the leader epoch and
partition epoch it knows; the controller refuses a request from a stale leader (FENCED_LEADER_EPOCH)
or about a state that has moved on (INVALID_UPDATE_VERSION). The broker side is
kafka/server/alter_partition_manager.py; the controller's is ReplicationControlManager.alter_partition.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int8, Int16, Int32, Int64, String

ALTER_PARTITION_PARTITION_DATA = Schema(
    "PartitionData",
    Field("partition_index", Int32, "0+"),
    Field("leader_epoch", Int32, "0+"),
    Field("new_isr", Array(Int32), "0+"),
    Field("leader_recovery_state", Int8, "1+", default=0),
    Field("partition_epoch", Int32, "0+"),
)

ALTER_PARTITION_TOPIC_DATA = Schema(
    "TopicData",
    Field("topic_name", String, "0+"),
    Field("partitions", Array(ALTER_PARTITION_PARTITION_DATA), "0+"),
)

ALTER_PARTITION_REQUEST = Schema(
    "AlterPartitionRequest",
    Field("broker_id", Int32, "0+"),
    Field("broker_epoch", Int64, "0+", default=-1),
    Field("topics", Array(ALTER_PARTITION_TOPIC_DATA), "0+"),
)

ALTER_PARTITION_PARTITION_RESPONSE = Schema(
    "PartitionData",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("leader_id", Int32, "0+", default=-1),
    Field("leader_epoch", Int32, "0+", default=-1),
    Field("isr", Array(Int32), "0+", default=[]),
    Field("leader_recovery_state", Int8, "1+", default=0),
    Field("partition_epoch", Int32, "0+", default=-1),
)

ALTER_PARTITION_TOPIC_RESPONSE = Schema(
    "TopicData",
    Field("topic_name", String, "0+"),
    Field("partitions", Array(ALTER_PARTITION_PARTITION_RESPONSE), "0+"),
)

ALTER_PARTITION_RESPONSE = Schema(
    "AlterPartitionResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("topics", Array(ALTER_PARTITION_TOPIC_RESPONSE), "0+", default=[]),
)

ALTER_PARTITION = register(Api(ApiKey.ALTER_PARTITION, "AlterPartition", 0, 1, 0,
                               ALTER_PARTITION_REQUEST, ALTER_PARTITION_RESPONSE))
