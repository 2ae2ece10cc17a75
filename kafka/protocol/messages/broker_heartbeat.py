"""BrokerHeartbeat (key 63): a broker tells the active controller it is alive, and how far it has read
the metadata log (KIP-631).

Mirrors ``common/message/BrokerHeartbeatRequest.json`` and ``BrokerHeartbeatResponse.json``
(versions 0-2, flexible; 2 adds the cordoned log directories, KIP-1066). The answer says whether the
broker has caught up, whether it is still fenced, and (during a controlled shutdown) whether it may stop now.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, Int64, Uuid

BROKER_HEARTBEAT_REQUEST = Schema(
    "BrokerHeartbeatRequest",
    Field("broker_id", Int32, "0+"),
    Field("broker_epoch", Int64, "0+", default=-1),
    Field("current_metadata_offset", Int64, "0+"),
    Field("want_fence", Boolean, "0+"),
    Field("want_shut_down", Boolean, "0+"),
    Field("offline_log_dirs", Array(Uuid), "1+", default=[], tag=0, tagged_versions="1+"),
    Field("cordoned_log_dirs", Array(Uuid), "2+", nullable_versions="2+", default=None, tag=1,
          tagged_versions="2+"),
)

BROKER_HEARTBEAT_RESPONSE = Schema(
    "BrokerHeartbeatResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("is_caught_up", Boolean, "0+", default=False),
    Field("is_fenced", Boolean, "0+", default=True),
    Field("should_shut_down", Boolean, "0+", default=False),
)

BROKER_HEARTBEAT = register(Api(ApiKey.BROKER_HEARTBEAT, "BrokerHeartbeat", 0, 2, 0,
                                BROKER_HEARTBEAT_REQUEST, BROKER_HEARTBEAT_RESPONSE))
