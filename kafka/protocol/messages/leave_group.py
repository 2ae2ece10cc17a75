"""LeaveGroup (key 13): members leave on purpose, so the group rebalances now, not after a timeout.

Mirrors ``common/message/LeaveGroupRequest.json`` and ``LeaveGroupResponse.json`` (versions 0-5,
flexible from 4). v3 (KIP-345) batches ``members``, each by member id or group instance id, with a
per-member error in the response; v0-2 name one ``member_id``. v5 (KIP-800) gives each leaving
member a ``reason``, which the coordinator logs ("client reason: ..."); the response is v4's.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String

MEMBER_IDENTITY = Schema(
    "MemberIdentity",
    Field("member_id", String, "3+"),
    Field("group_instance_id", String, "3+", nullable_versions="3+", default=None),
    Field("reason", String, "5+", nullable_versions="5+", default=None, ignorable=True),
)

LEAVE_GROUP_REQUEST = Schema(
    "LeaveGroupRequest",
    Field("group_id", String, "0+"),
    Field("member_id", String, "0-2"),
    Field("members", Array(MEMBER_IDENTITY), "3+"),
)

MEMBER_RESPONSE = Schema(
    "MemberResponse",
    Field("member_id", String, "3+"),
    Field("group_instance_id", String, "3+", nullable_versions="3+", default=None),
    Field("error_code", Int16, "3+"),
)

LEAVE_GROUP_RESPONSE = Schema(
    "LeaveGroupResponse",
    Field("throttle_time_ms", Int32, "1+", ignorable=True),
    Field("error_code", Int16, "0+"),
    Field("members", Array(MEMBER_RESPONSE), "3+"),
)

LEAVE_GROUP = register(
    Api(ApiKey.LEAVE_GROUP, "LeaveGroup", 0, 5, 4, LEAVE_GROUP_REQUEST, LEAVE_GROUP_RESPONSE)
)
