"""SyncGroup (key 14): the leader hands in the assignment; every member gets back its own share.

Mirrors ``common/message/SyncGroupRequest.json`` and ``SyncGroupResponse.json`` (versions 0-5,
flexible from 4). Followers send an empty ``assignments`` list and wait; the leader's request
carries one entry per member. v3 adds ``group_instance_id``; v5 (KIP-559) echoes the protocol
type and name so a client can check them. We advertise 0-5.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Bytes, Int16, Int32, String

SYNC_GROUP_REQUEST_ASSIGNMENT = Schema(
    "SyncGroupRequestAssignment",
    Field("member_id", String, "0+"),
    Field("assignment", Bytes, "0+"),
)

SYNC_GROUP_REQUEST = Schema(
    "SyncGroupRequest",
    Field("group_id", String, "0+"),
    Field("generation_id", Int32, "0+"),
    Field("member_id", String, "0+"),
    Field("group_instance_id", String, "3+", nullable_versions="3+", default=None),
    Field("protocol_type", String, "5+", nullable_versions="5+", default=None, ignorable=True),
    Field("protocol_name", String, "5+", nullable_versions="5+", default=None, ignorable=True),
    Field("assignments", Array(SYNC_GROUP_REQUEST_ASSIGNMENT), "0+"),
)

SYNC_GROUP_RESPONSE = Schema(
    "SyncGroupResponse",
    Field("throttle_time_ms", Int32, "1+", ignorable=True),
    Field("error_code", Int16, "0+"),
    Field("protocol_type", String, "5+", nullable_versions="5+", default=None, ignorable=True),
    Field("protocol_name", String, "5+", nullable_versions="5+", default=None, ignorable=True),
    Field("assignment", Bytes, "0+"),
)

SYNC_GROUP = register(Api(ApiKey.SYNC_GROUP, "SyncGroup", 0, 5, 4, SYNC_GROUP_REQUEST, SYNC_GROUP_RESPONSE))
