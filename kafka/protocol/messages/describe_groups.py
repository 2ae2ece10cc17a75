"""DescribeGroups (key 15): state, protocol and members (with their assignments) of some groups.

Mirrors ``common/message/DescribeGroupsRequest.json`` and ``DescribeGroupsResponse.json``
(versions 0-6, flexible from 5). ``group_state`` is the state machine's name ("Stable",
"PreparingRebalance", ...); ``protocol_data`` is the chosen assignor ("range", "cooperative-sticky").
A group the coordinator does not know is described as state "Dead": with no error before v6, with
GROUP_ID_NOT_FOUND and ``error_message`` from v6 (KIP-1043), as in Kafka.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Bytes, Int16, Int32, String

DESCRIBE_GROUPS_REQUEST = Schema(
    "DescribeGroupsRequest",
    Field("groups", Array(String), "0+"),
    Field("include_authorized_operations", Boolean, "3+"),
)

DESCRIBED_GROUP_MEMBER = Schema(
    "DescribedGroupMember",
    Field("member_id", String, "0+"),
    Field("group_instance_id", String, "4+", nullable_versions="4+", default=None, ignorable=True),
    Field("client_id", String, "0+"),
    Field("client_host", String, "0+"),
    Field("member_metadata", Bytes, "0+"),
    Field("member_assignment", Bytes, "0+"),
)

DESCRIBED_GROUP = Schema(
    "DescribedGroup",
    Field("error_code", Int16, "0+"),
    # KIP-1043: a group not found (or not a classic group) is GROUP_ID_NOT_FOUND with a message from v6
    Field("error_message", String, "6+", nullable_versions="6+", default=None, ignorable=True),
    Field("group_id", String, "0+"),
    Field("group_state", String, "0+"),
    Field("protocol_type", String, "0+"),
    Field("protocol_data", String, "0+"),
    Field("members", Array(DESCRIBED_GROUP_MEMBER), "0+"),
    Field("authorized_operations", Int32, "3+", default=-(2**31)),
)

DESCRIBE_GROUPS_RESPONSE = Schema(
    "DescribeGroupsResponse",
    Field("throttle_time_ms", Int32, "1+", ignorable=True),
    Field("groups", Array(DESCRIBED_GROUP), "0+"),
)

DESCRIBE_GROUPS = register(
    Api(ApiKey.DESCRIBE_GROUPS, "DescribeGroups", 0, 6, 5, DESCRIBE_GROUPS_REQUEST, DESCRIBE_GROUPS_RESPONSE)
)
