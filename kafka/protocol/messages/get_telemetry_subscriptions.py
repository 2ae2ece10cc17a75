"""GetTelemetrySubscriptions (key 71, KIP-714): a client asks which of its metrics to push, and how often.

Mirrors ``common/message/GetTelemetrySubscriptionsRequest.json`` and ``...Response.json`` (version 0,
flexible). A client's first request carries the zero client instance id: the broker assigns one. The
answer names the subscription (an id the pushes must repeat), the metric name prefixes wanted ("" for
all, none for none), the push interval, the codecs accepted and the largest push accepted.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int8, Int16, Int32, String, Uuid

GET_TELEMETRY_SUBSCRIPTIONS_REQUEST = Schema(
    "GetTelemetrySubscriptionsRequest",
    Field("client_instance_id", Uuid, "0+"),
)

GET_TELEMETRY_SUBSCRIPTIONS_RESPONSE = Schema(
    "GetTelemetrySubscriptionsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("client_instance_id", Uuid, "0+"),
    Field("subscription_id", Int32, "0+"),
    Field("accepted_compression_types", Array(Int8), "0+"),
    Field("push_interval_ms", Int32, "0+"),
    Field("telemetry_max_bytes", Int32, "0+"),
    Field("delta_temporality", Boolean, "0+"),
    Field("requested_metrics", Array(String), "0+"),
)

GET_TELEMETRY_SUBSCRIPTIONS = register(
    Api(ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, "GetTelemetrySubscriptions", 0, 0, 0,
        GET_TELEMETRY_SUBSCRIPTIONS_REQUEST, GET_TELEMETRY_SUBSCRIPTIONS_RESPONSE)
)
