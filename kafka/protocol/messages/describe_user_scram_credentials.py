"""DescribeUserScramCredentials (key 50): which SCRAM mechanisms and iteration counts users have (KIP-554).

Mirrors ``common/message/DescribeUserScramCredentialsRequest.json`` and ``...Response.json``
(version 0, flexible). A null or empty user list describes every user. Salts and keys never leave
the controller: only the mechanism and its iterations are told.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int8, Int16, Int32, String

USER_NAME = Schema("UserName", Field("name", String, "0+"))

DESCRIBE_USER_SCRAM_CREDENTIALS_REQUEST = Schema(
    "DescribeUserScramCredentialsRequest",
    Field("users", Array(USER_NAME), "0+", nullable_versions="0+", default=None),
)

CREDENTIAL_INFO = Schema(
    "CredentialInfo",
    Field("mechanism", Int8, "0+"),
    Field("iterations", Int32, "0+"),
)

DESCRIBE_USER_SCRAM_CREDENTIALS_RESULT = Schema(
    "DescribeUserScramCredentialsResult",
    Field("user", String, "0+"),
    Field("error_code", Int16, "0+", default=0),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("credential_infos", Array(CREDENTIAL_INFO), "0+", default=[]),
)

DESCRIBE_USER_SCRAM_CREDENTIALS_RESPONSE = Schema(
    "DescribeUserScramCredentialsResponse",
    Field("throttle_time_ms", Int32, "0+", default=0),
    Field("error_code", Int16, "0+", default=0),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("results", Array(DESCRIBE_USER_SCRAM_CREDENTIALS_RESULT), "0+", default=[]),
)

DESCRIBE_USER_SCRAM_CREDENTIALS = register(
    Api(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, "DescribeUserScramCredentials", 0, 0, 0,
        DESCRIBE_USER_SCRAM_CREDENTIALS_REQUEST, DESCRIBE_USER_SCRAM_CREDENTIALS_RESPONSE)
)
