"""SaslAuthenticate (key 36): one SASL token each way (KIP-152).

Mirrors ``common/message/SaslAuthenticateRequest.json`` and ``...Response.json`` (versions 0-2,
flexible from 2). v1 adds the session lifetime (KIP-368, re-authentication; always 0 here: sessions
do not expire). A failure carries SASL_AUTHENTICATION_FAILED and a message in error_message.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Field, Schema
from kafka.protocol.types import Bytes, Int16, Int64, String

SASL_AUTHENTICATE_REQUEST = Schema(
    "SaslAuthenticateRequest",
    Field("auth_bytes", Bytes, "0+"),
)

SASL_AUTHENTICATE_RESPONSE = Schema(
    "SaslAuthenticateResponse",
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("auth_bytes", Bytes, "0+", default=b""),
    Field("session_lifetime_ms", Int64, "1+", default=0, ignorable=True),
)

SASL_AUTHENTICATE = register(
    Api(ApiKey.SASL_AUTHENTICATE, "SaslAuthenticate", 0, 2, 2, SASL_AUTHENTICATE_REQUEST,
        SASL_AUTHENTICATE_RESPONSE)
)
