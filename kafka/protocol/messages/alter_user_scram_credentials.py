"""AlterUserScramCredentials (key 51): add or remove users' SCRAM credentials (KIP-554).

Mirrors ``common/message/AlterUserScramCredentialsRequest.json`` and ``...Response.json``
(version 0, flexible). The client salts and hashes: an upsertion carries the salt and the salted
password (Hi(password, salt, iterations)), never the password, and the controller derives the
stored and server keys from them. Mechanism: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Bytes, Int8, Int16, Int32, String

SCRAM_CREDENTIAL_DELETION = Schema(
    "ScramCredentialDeletion",
    Field("name", String, "0+"),
    Field("mechanism", Int8, "0+"),
)

SCRAM_CREDENTIAL_UPSERTION = Schema(
    "ScramCredentialUpsertion",
    Field("name", String, "0+"),
    Field("mechanism", Int8, "0+"),
    Field("iterations", Int32, "0+"),
    Field("salt", Bytes, "0+"),
    Field("salted_password", Bytes, "0+"),
)

ALTER_USER_SCRAM_CREDENTIALS_REQUEST = Schema(
    "AlterUserScramCredentialsRequest",
    Field("deletions", Array(SCRAM_CREDENTIAL_DELETION), "0+", default=[]),
    Field("upsertions", Array(SCRAM_CREDENTIAL_UPSERTION), "0+", default=[]),
)

ALTER_USER_SCRAM_CREDENTIALS_RESULT = Schema(
    "AlterUserScramCredentialsResult",
    Field("user", String, "0+"),
    Field("error_code", Int16, "0+", default=0),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

ALTER_USER_SCRAM_CREDENTIALS_RESPONSE = Schema(
    "AlterUserScramCredentialsResponse",
    Field("throttle_time_ms", Int32, "0+", default=0),
    Field("results", Array(ALTER_USER_SCRAM_CREDENTIALS_RESULT), "0+", default=[]),
)

ALTER_USER_SCRAM_CREDENTIALS = register(
    Api(ApiKey.ALTER_USER_SCRAM_CREDENTIALS, "AlterUserScramCredentials", 0, 0, 0,
        ALTER_USER_SCRAM_CREDENTIALS_REQUEST, ALTER_USER_SCRAM_CREDENTIALS_RESPONSE)
)
