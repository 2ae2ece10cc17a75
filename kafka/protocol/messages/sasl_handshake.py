"""SaslHandshake (key 17): which SASL mechanism the client will authenticate with.

Mirrors ``common/message/SaslHandshakeRequest.json`` and ``...Response.json`` (versions 0-1, never
flexible). v0 sent the SASL tokens as raw frames after it (KIP-43); v1 wraps them in SaslAuthenticate
(KIP-152). The response lists the mechanisms the listener has enabled, so a client that asked for
another one learns what it may use (UNSUPPORTED_SASL_MECHANISM).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, String

SASL_HANDSHAKE_REQUEST = Schema(
    "SaslHandshakeRequest",
    Field("mechanism", String, "0+"),
)

SASL_HANDSHAKE_RESPONSE = Schema(
    "SaslHandshakeResponse",
    Field("error_code", Int16, "0+"),
    Field("mechanisms", Array(String), "0+"),
)

SASL_HANDSHAKE = register(
    Api(ApiKey.SASL_HANDSHAKE, "SaslHandshake", 0, 1, None, SASL_HANDSHAKE_REQUEST, SASL_HANDSHAKE_RESPONSE)
)
