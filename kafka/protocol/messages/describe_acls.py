"""DescribeAcls (key 29): the access control entries a filter matches (KIP-140; KIP-290).

Mirrors ``common/message/DescribeAclsRequest.json`` and ``...Response.json`` (versions 1-3, v0 dropped in
Kafka 4 (KIP-896); flexible from 2). The filter's null strings and ANY (1) codes match anything; pattern type
MATCH (2) matches the LITERAL, wildcard and PREFIXED patterns that would apply to the named resource. The
answer is grouped by resource pattern.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int8, Int16, Int32, String

DESCRIBE_ACLS_REQUEST = Schema(
    "DescribeAclsRequest",
    Field("resource_type_filter", Int8, "0+"),
    Field("resource_name_filter", String, "0+", nullable_versions="0+", default=None),
    Field("pattern_type_filter", Int8, "1+", default=3),
    Field("principal_filter", String, "0+", nullable_versions="0+", default=None),
    Field("host_filter", String, "0+", nullable_versions="0+", default=None),
    Field("operation", Int8, "0+"),
    Field("permission_type", Int8, "0+"),
)

ACL_DESCRIPTION = Schema(
    "AclDescription",
    Field("principal", String, "0+"),
    Field("host", String, "0+"),
    Field("operation", Int8, "0+"),
    Field("permission_type", Int8, "0+"),
)

DESCRIBE_ACLS_RESOURCE = Schema(
    "DescribeAclsResource",
    Field("resource_type", Int8, "0+"),
    Field("resource_name", String, "0+"),
    Field("pattern_type", Int8, "1+", default=3),
    Field("acls", Array(ACL_DESCRIPTION), "0+"),
)

DESCRIBE_ACLS_RESPONSE = Schema(
    "DescribeAclsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("resources", Array(DESCRIBE_ACLS_RESOURCE), "0+"),
)

DESCRIBE_ACLS = register(
    Api(ApiKey.DESCRIBE_ACLS, "DescribeAcls", 1, 3, 2, DESCRIBE_ACLS_REQUEST, DESCRIBE_ACLS_RESPONSE))
