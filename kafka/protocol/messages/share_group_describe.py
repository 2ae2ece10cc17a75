"""ShareGroupDescribe (key 77): KIP-932's DescribeGroups for share groups.

Mirrors ``common/message/ShareGroupDescribeRequest.json`` and ``ShareGroupDescribeResponse.json`` as
Apache Kafka 4.4 serves them: version 1 only, flexible. Like ConsumerGroupDescribe it shows the group
epoch, the assignment epoch and the broker-side assignor ("simple"); each member shows the partitions
it was given, with no target beside them, since a share member takes its target in one step.
"""

from kafka.protocol.api_keys import Api, ApiKey, register

# a member's partitions are shaped as in ConsumerGroupDescribe's answer (the same JSON structs in Kafka)
from kafka.protocol.messages.consumer_group_describe import ASSIGNMENT
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, String

SHARE_GROUP_DESCRIBE_REQUEST = Schema(
    "ShareGroupDescribeRequest",
    Field("group_ids", Array(String), "0+"),
    Field("include_authorized_operations", Boolean, "0+"),
)

MEMBER = Schema(
    "Member",
    Field("member_id", String, "0+"),
    Field("rack_id", String, "0+", nullable_versions="0+", default=None),
    Field("member_epoch", Int32, "0+"),
    Field("client_id", String, "0+"),
    Field("client_host", String, "0+"),
    Field("subscribed_topic_names", Array(String), "0+"),
    Field("assignment", ASSIGNMENT, "0+"),
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

SHARE_GROUP_DESCRIBE_RESPONSE = Schema(
    "ShareGroupDescribeResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("groups", Array(DESCRIBED_GROUP), "0+"),
)

SHARE_GROUP_DESCRIBE = register(Api(
    ApiKey.SHARE_GROUP_DESCRIBE, "ShareGroupDescribe", 1, 1, 0,
    SHARE_GROUP_DESCRIBE_REQUEST, SHARE_GROUP_DESCRIBE_RESPONSE))
