"""JoinGroup (key 11): a member asks to be part of the group's next generation.

Mirrors ``common/message/JoinGroupRequest.json`` and ``JoinGroupResponse.json`` (versions 0-9,
flexible from 6). The coordinator answers everyone once the rebalance completes; only the elected
leader's response carries ``members`` (each member's protocol metadata, i.e. its subscription), so
the leader can compute the assignment. v4 (KIP-394): a new member first gets MEMBER_ID_REQUIRED
with its id and joins again. v5 (KIP-345): ``group_instance_id`` for static membership. v8 adds
``reason`` (KIP-800), which the coordinator writes into its rebalance log line ("client reason: ...",
"not provided" without one). v9 adds ``skip_assignment`` (KIP-814): a static leader that rejoins a
Stable group under a new member id gets every member's metadata with skip_assignment true, so it
knows it leads but keeps the group's assignment; before v9 it was told the old leader id instead.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Bytes, Int16, Int32, String

JOIN_GROUP_REQUEST_PROTOCOL = Schema(
    "JoinGroupRequestProtocol",
    Field("name", String, "0+"),
    Field("metadata", Bytes, "0+"),
)

JOIN_GROUP_REQUEST = Schema(
    "JoinGroupRequest",
    Field("group_id", String, "0+"),
    Field("session_timeout_ms", Int32, "0+"),
    # v0 has no rebalance timeout: the session timeout serves as both (as in Kafka).
    Field("rebalance_timeout_ms", Int32, "1+", default=-1, ignorable=True),
    Field("member_id", String, "0+"),
    Field("group_instance_id", String, "5+", nullable_versions="5+", default=None),
    Field("protocol_type", String, "0+"),
    Field("protocols", Array(JOIN_GROUP_REQUEST_PROTOCOL), "0+"),
    Field("reason", String, "8+", nullable_versions="8+", default=None, ignorable=True),
)

JOIN_GROUP_RESPONSE_MEMBER = Schema(
    "JoinGroupResponseMember",
    Field("member_id", String, "0+"),
    Field("group_instance_id", String, "5+", nullable_versions="5+", default=None, ignorable=True),
    Field("metadata", Bytes, "0+"),
)

JOIN_GROUP_RESPONSE = Schema(
    "JoinGroupResponse",
    Field("throttle_time_ms", Int32, "2+", ignorable=True),
    Field("error_code", Int16, "0+"),
    Field("generation_id", Int32, "0+", default=-1),
    Field("protocol_type", String, "7+", nullable_versions="7+", default=None, ignorable=True),
    Field("protocol_name", String, "0+", nullable_versions="7+"),
    Field("leader", String, "0+"),
    Field("skip_assignment", Boolean, "9+", default=False),
    Field("member_id", String, "0+"),
    Field("members", Array(JOIN_GROUP_RESPONSE_MEMBER), "0+"),
)

JOIN_GROUP = register(Api(ApiKey.JOIN_GROUP, "JoinGroup", 0, 9, 6, JOIN_GROUP_REQUEST, JOIN_GROUP_RESPONSE))
