"""PushTelemetry (key 72, KIP-714): a client pushes its metrics, as OpenTelemetry's MetricsData.

Mirrors ``common/message/PushTelemetryRequest.json`` and ``...Response.json`` (version 0, flexible).
The metrics are the bytes of an OTLP ``MetricsData`` protobuf message, compressed with the codec named
by ``compression_type`` (a record batch's ids: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd). A push with
``terminating`` set is the client's last.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Field, Schema
from kafka.protocol.types import Boolean, Bytes, Int8, Int16, Int32, Uuid

PUSH_TELEMETRY_REQUEST = Schema(
    "PushTelemetryRequest",
    Field("client_instance_id", Uuid, "0+"),
    Field("subscription_id", Int32, "0+"),
    Field("terminating", Boolean, "0+"),
    Field("compression_type", Int8, "0+"),
    Field("metrics", Bytes, "0+"),
)

PUSH_TELEMETRY_RESPONSE = Schema(
    "PushTelemetryResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
)

PUSH_TELEMETRY = register(
    Api(ApiKey.PUSH_TELEMETRY, "PushTelemetry", 0, 0, 0, PUSH_TELEMETRY_REQUEST, PUSH_TELEMETRY_RESPONSE)
)
