"""DeleteAcls (key 31): remove every access control entry each filter matches (KIP-140; KIP-290).

Mirrors ``common/message/DeleteAclsRequest.json`` and ``...Response.json`` (versions 1-3, v0 dropped in Kafka
4 (KIP-896); flexible from 2). Filters as DescribeAcls's; one result per filter, listing the entries it
removed.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int8, Int16, Int32, String

DELETE_ACLS_FILTER = Schema(
    "DeleteAclsFilter",
    Field("resource_type_filter", Int8, "0+"),
    Field("resource_name_filter", String, "0+", nullable_versions="0+", default=None),
    Field("pattern_type_filter", Int8, "1+", default=3),
    Field("principal_filter", String, "0+", nullable_versions="0+", default=None),
    Field("host_filter", String, "0+", nullable_versions="0+", default=None),
    Field("operation", Int8, "0+"),
    Field("permission_type", Int8, "0+"),
)

DELETE_ACLS_REQUEST = Schema(
    "DeleteAclsRequest",
    Field("filters", Array(DELETE_ACLS_FILTER), "0+"),
)

DELETE_ACLS_MATCHING_ACL = Schema(
    "DeleteAclsMatchingAcl",
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("resource_type", Int8, "0+"),
    Field("resource_name", String, "0+"),
    Field("pattern_type", Int8, "1+", default=3),
    Field("principal", String, "0+"),
    Field("host", String, "0+"),
    Field("operation", Int8, "0+"),
    Field("permission_type", Int8, "0+"),
)

DELETE_ACLS_FILTER_RESULT = Schema(
    "DeleteAclsFilterResult",
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("matching_acls", Array(DELETE_ACLS_MATCHING_ACL), "0+"),
)

DELETE_ACLS_RESPONSE = Schema(
    "DeleteAclsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("filter_results", Array(DELETE_ACLS_FILTER_RESULT), "0+"),
)

DELETE_ACLS = register(Api(ApiKey.DELETE_ACLS, "DeleteAcls", 1, 3, 2, DELETE_ACLS_REQUEST,
                           DELETE_ACLS_RESPONSE))
