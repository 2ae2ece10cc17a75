"""ConsumerGroupHeartbeat (key 68): KIP-848's one request of the consumer group protocol.

Mirrors ``common/message/ConsumerGroupHeartbeatRequest.json`` and ``ConsumerGroupHeartbeatResponse.json``
(versions 0-1, flexible from 0). The member says who it is (member epoch 0 to join, -1 to leave),
what it subscribes to (names, or from v1 a regex the broker evaluates) and which partitions it owns;
the answer carries its member epoch and, when it changed, the partitions it may use now. No
JoinGroup/SyncGroup round and no client leader: the coordinator computes the assignment.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String, Uuid

TOPIC_PARTITIONS = Schema(
    "TopicPartitions",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(Int32), "0+"),
)

CONSUMER_GROUP_HEARTBEAT_REQUEST = Schema(
    "ConsumerGroupHeartbeatRequest",
    Field("group_id", String, "0+"),
    Field("member_id", String, "0+"),
    Field("member_epoch", Int32, "0+"),  # 0: join; -1: leave; -2: a static member leaving to come back
    Field("instance_id", String, "0+", nullable_versions="0+", default=None),
    Field("rack_id", String, "0+", nullable_versions="0+", default=None),
    Field("rebalance_timeout_ms", Int32, "0+", default=-1),
    Field("subscribed_topic_names", Array(String), "0+", nullable_versions="0+", default=None),
    Field("subscribed_topic_regex", String, "1+", nullable_versions="1+", default=None),
    Field("server_assignor", String, "0+", nullable_versions="0+", default=None),
    Field("topic_partitions", Array(TOPIC_PARTITIONS), "0+", nullable_versions="0+", default=None),
)

ASSIGNMENT = Schema(
    "Assignment",
    Field("topic_partitions", Array(TOPIC_PARTITIONS), "0+"),
)

CONSUMER_GROUP_HEARTBEAT_RESPONSE = Schema(
    "ConsumerGroupHeartbeatResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("member_id", String, "0+", nullable_versions="0+", default=None),
    Field("member_epoch", Int32, "0+"),
    Field("heartbeat_interval_ms", Int32, "0+"),
    Field("assignment", ASSIGNMENT, "0+", nullable_versions="0+", default=None),
)

CONSUMER_GROUP_HEARTBEAT = register(Api(
    ApiKey.CONSUMER_GROUP_HEARTBEAT, "ConsumerGroupHeartbeat", 0, 1, 0,
    CONSUMER_GROUP_HEARTBEAT_REQUEST, CONSUMER_GROUP_HEARTBEAT_RESPONSE))
