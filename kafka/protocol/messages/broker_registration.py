"""BrokerRegistration (key 62): a broker joins the cluster (KIP-631).

Mirrors ``common/message/BrokerRegistrationRequest.json`` and ``BrokerRegistrationResponse.json``
(versions 0-3 here, flexible). Sent once per broker process to the active controller on the control
plane; the answer's broker epoch names this incarnation of the broker from then on.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, Int64, String, Uuid

LISTENER = Schema(
    "Listener",
    Field("name", String, "0+"),
    Field("host", String, "0+"),
    Field("port", Int32, "0+"),  # a uint16 in Kafka's JSON
    Field("security_protocol", Int16, "0+"),
)

FEATURE = Schema(
    "Feature",
    Field("name", String, "0+"),
    Field("min_supported_version", Int16, "0+"),
    Field("max_supported_version", Int16, "0+"),
)

BROKER_REGISTRATION_REQUEST = Schema(
    "BrokerRegistrationRequest",
    Field("broker_id", Int32, "0+"),
    Field("cluster_id", String, "0+"),
    Field("incarnation_id", Uuid, "0+"),
    Field("listeners", Array(LISTENER), "0+"),
    Field("features", Array(FEATURE), "0+"),
    Field("rack", String, "0+", nullable_versions="0+", default=None),
    Field("is_migrating_zk_broker", Boolean, "1+", default=False),
    Field("log_dirs", Array(Uuid), "2+", default=[]),
    Field("previous_broker_epoch", Int64, "3+", default=-1),
)

BROKER_REGISTRATION_RESPONSE = Schema(
    "BrokerRegistrationResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("broker_epoch", Int64, "0+", default=-1),
)

BROKER_REGISTRATION = register(Api(ApiKey.BROKER_REGISTRATION, "BrokerRegistration", 0, 3, 0,
                                   BROKER_REGISTRATION_REQUEST, BROKER_REGISTRATION_RESPONSE))
