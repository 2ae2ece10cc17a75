"""UnregisterController (key 94): remove a controller's registration (its RegisterControllerRecord) from
the cluster metadata, from metadata.version 4.4-IV2 on; `kafka-metadata-quorum remove-controller
--unregister` sends it after the controller has left the voter set.

Mirrors ``common/message/UnregisterControllerRequest.json`` and ``...Response.json`` version 0
(flexible). Kafka serves it on both listeners: a broker forwards it to the active controller.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Field, Schema
from kafka.protocol.types import Int16, Int32, String

UNREGISTER_CONTROLLER_REQUEST = Schema(
    "UnregisterControllerRequest",
    Field("controller_id", Int32, "0+"),
)

UNREGISTER_CONTROLLER_RESPONSE = Schema(
    "UnregisterControllerResponse",
    Field("throttle_time_ms", Int32, "0+", default=0),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

UNREGISTER_CONTROLLER = register(Api(ApiKey.UNREGISTER_CONTROLLER, "UnregisterController", 0, 0, 0,
                                     UNREGISTER_CONTROLLER_REQUEST, UNREGISTER_CONTROLLER_RESPONSE))
