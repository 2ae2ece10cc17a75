"""CreateAcls (key 30): add access control entries (KIP-140; prefixed patterns KIP-290).

Mirrors ``common/message/CreateAclsRequest.json`` and ``...Response.json`` (versions 1-3, v0 dropped in Kafka
4 (KIP-896); flexible from 2). Version 1 adds the resource pattern type (a v0 creation is LITERAL). One result
per creation, in the request's order.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int8, Int16, Int32, String

ACL_CREATION = Schema(
    "AclCreation",
    Field("resource_type", Int8, "0+"),
    Field("resource_name", String, "0+"),
    Field("resource_pattern_type", Int8, "1+", default=3),
    Field("principal", String, "0+"),
    Field("host", String, "0+"),
    Field("operation", Int8, "0+"),
    Field("permission_type", Int8, "0+"),
)

CREATE_ACLS_REQUEST = Schema(
    "CreateAclsRequest",
    Field("creations", Array(ACL_CREATION), "0+"),
)

ACL_CREATION_RESULT = Schema(
    "AclCreationResult",
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

CREATE_ACLS_RESPONSE = Schema(
    "CreateAclsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("results", Array(ACL_CREATION_RESULT), "0+"),
)

CREATE_ACLS = register(Api(ApiKey.CREATE_ACLS, "CreateAcls", 1, 3, 2, CREATE_ACLS_REQUEST,
                           CREATE_ACLS_RESPONSE))
