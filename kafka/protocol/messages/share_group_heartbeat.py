"""ShareGroupHeartbeat (key 76): KIP-932's one request of the share group protocol.

Mirrors ``common/message/ShareGroupHeartbeatRequest.json`` and ``ShareGroupHeartbeatResponse.json`` as
Apache Kafka 4.4 serves them: version 1 only (KIP-932's early-access v0 is gone), flexible. A member
names itself (the client makes up its member id, KIP-1082), says its epoch (0 to join, -1 to leave)
and, when it changed, which topics it reads; the answer carries its member epoch and, when it
changed, the partitions it may fetch from now. A share member owns nothing exclusively, so unlike
ConsumerGroupHeartbeat there is no list of owned partitions, no revocation and no rebalance timeout:
the coordinator's SimpleAssignor may hand the same partition to several members at once.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String, Uuid

SHARE_GROUP_HEARTBEAT_REQUEST = Schema(
    "ShareGroupHeartbeatRequest",
    Field("group_id", String, "0+"),
    Field("member_id", String, "0+"),
    Field("member_epoch", Int32, "0+"),  # 0: join; -1: leave
    Field("rack_id", String, "0+", nullable_versions="0+", default=None),
    Field("subscribed_topic_names", Array(String), "0+", nullable_versions="0+", default=None),
)

TOPIC_PARTITIONS = Schema(
    "TopicPartitions",
    Field("topic_id", Uuid, "0+"),
    Field("partitions", Array(Int32), "0+"),
)

ASSIGNMENT = Schema(
    "Assignment",
    Field("topic_partitions", Array(TOPIC_PARTITIONS), "0+"),
)

SHARE_GROUP_HEARTBEAT_RESPONSE = Schema(
    "ShareGroupHeartbeatResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("member_id", String, "0+", nullable_versions="0+", default=None),
    Field("member_epoch", Int32, "0+"),
    Field("heartbeat_interval_ms", Int32, "0+"),
    Field("assignment", ASSIGNMENT, "0+", nullable_versions="0+", default=None),  # null: unchanged
)

SHARE_GROUP_HEARTBEAT = register(Api(
    ApiKey.SHARE_GROUP_HEARTBEAT, "ShareGroupHeartbeat", 1, 1, 0,
    SHARE_GROUP_HEARTBEAT_REQUEST, SHARE_GROUP_HEARTBEAT_RESPONSE))
