"""ConsumerGroupDescribe (key 69): KIP-848's DescribeGroups for groups of the consumer protocol.

Mirrors ``common/message/ConsumerGroupDescribeRequest.json`` and ``ConsumerGroupDescribeResponse.json``
(versions 0-1, flexible from 0; v1 adds each member's type, KIP-1099). Beside the state it shows what
only the new protocol has: the group epoch, the assignment epoch, the broker-side assignor, and for
each member its current assignment next to its target.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int8, Int16, Int32, String, Uuid

CONSUMER_GROUP_DESCRIBE_REQUEST = Schema(
    "ConsumerGroupDescribeRequest",
    Field("group_ids", Array(String), "0+"),
    Field("include_authorized_operations", Boolean, "0+"),
)

TOPIC_PARTITIONS = Schema(
    "TopicPartitions",
    Field("topic_id", Uuid, "0+"),
    Field("topic_name", String, "0+"),
    Field("partitions", Array(Int32), "0+"),
)

ASSIGNMENT = Schema(
    "Assignment",
    Field("topic_partitions", Array(TOPIC_PARTITIONS), "0+"),
)

MEMBER = Schema(
    "Member",
    Field("member_id", String, "0+"),
    Field("instance_id", String, "0+", nullable_versions="0+", default=None),
    Field("rack_id", String, "0+", nullable_versions="0+", default=None),
    Field("member_epoch", Int32, "0+"),
    Field("client_id", String, "0+"),
    Field("client_host", String, "0+"),
    Field("subscribed_topic_names", Array(String), "0+"),
    Field("subscribed_topic_regex", String, "0+", nullable_versions="0+", default=None),
    Field("assignment", ASSIGNMENT, "0+"),
    Field("target_assignment", ASSIGNMENT, "0+"),
    Field("member_type", Int8, "1+", default=-1, ignorable=True),  # -1 unknown, 0 classic, 1 consumer
)

DESCRIBED_GROUP = Schema(
    "DescribedGroup",
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("group_id", String, "0+"),
    Field("group_state", String, "0+"),
    Field("group_epoch", Int32, "0+"),
    Field("assignment_epoch", Int32, "0+"),
    Field("assignor_name", String, "0+"),
    Field("members", Array(MEMBER), "0+"),
    Field("authorized_operations", Int32, "0+", default=-2147483648),
)

CONSUMER_GROUP_DESCRIBE_RESPONSE = Schema(
    "ConsumerGroupDescribeResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("groups", Array(DESCRIBED_GROUP), "0+"),
)

CONSUMER_GROUP_DESCRIBE = register(Api(
    ApiKey.CONSUMER_GROUP_DESCRIBE, "ConsumerGroupDescribe", 0, 1, 0,
    CONSUMER_GROUP_DESCRIBE_REQUEST, CONSUMER_GROUP_DESCRIBE_RESPONSE))
