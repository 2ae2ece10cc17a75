"""Heartbeat (key 12): "I am alive, and still in generation N" -- the answer says whether to rejoin.

Mirrors ``common/message/HeartbeatRequest.json`` and ``HeartbeatResponse.json`` (versions 0-4,
flexible from 4). During a rebalance the answer is REBALANCE_IN_PROGRESS: that is how members
learn they must send JoinGroup again. v3 adds ``group_instance_id``.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Field, Schema
from kafka.protocol.types import Int16, Int32, String

HEARTBEAT_REQUEST = Schema(
    "HeartbeatRequest",
    Field("group_id", String, "0+"),
    Field("generation_id", Int32, "0+"),
    Field("member_id", String, "0+"),
    Field("group_instance_id", String, "3+", nullable_versions="3+", default=None),
)

HEARTBEAT_RESPONSE = Schema(
    "HeartbeatResponse",
    Field("throttle_time_ms", Int32, "1+", ignorable=True),
    Field("error_code", Int16, "0+"),
)

HEARTBEAT = register(Api(ApiKey.HEARTBEAT, "Heartbeat", 0, 4, 4, HEARTBEAT_REQUEST, HEARTBEAT_RESPONSE))
