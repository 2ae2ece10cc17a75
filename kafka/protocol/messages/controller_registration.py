"""ControllerRegistration (key 70): a controller tells the active controller where it listens and which
feature levels it can run (KIP-919), written as a RegisterControllerRecord.

Mirrors ``common/message/ControllerRegistrationRequest.json`` and ``...Response.json`` version 0
(flexible); Kafka serves it on the controller listener only.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, String, UInt16, Uuid

CONTROLLER_REGISTRATION_REQUEST = Schema(
    "ControllerRegistrationRequest",
    Field("controller_id", Int32, "0+"),
    Field("incarnation_id", Uuid, "0+"),
    Field("zk_migration_ready", Boolean, "0+", default=False),
    Field("listeners", Array(Schema("Listener", Field("name", String, "0+"), Field("host", String, "0+"),
                                    Field("port", UInt16, "0+"), Field("security_protocol", Int16, "0+"))),
          "0+"),
    Field("features", Array(Schema("Feature", Field("name", String, "0+"),
                                   Field("min_supported_version", Int16, "0+"),
                                   Field("max_supported_version", Int16, "0+"))), "0+"),
)

CONTROLLER_REGISTRATION_RESPONSE = Schema(
    "ControllerRegistrationResponse",
    Field("throttle_time_ms", Int32, "0+", default=0),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

CONTROLLER_REGISTRATION = register(Api(ApiKey.CONTROLLER_REGISTRATION, "ControllerRegistration", 0, 0, 0,
                                       CONTROLLER_REGISTRATION_REQUEST, CONTROLLER_REGISTRATION_RESPONSE))
