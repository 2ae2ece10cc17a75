"""DescribeClientQuotas (key 48): the quotas set for users, client ids and IPs (KIP-546).

Mirrors ``common/message/DescribeClientQuotasRequest.json`` and ``...Response.json`` (versions 0-1,
flexible from 1). Each filter component names an entity type and how to match its name:
match_type 0 EXACT (the name in ``match``), 1 DEFAULT (the default entity), 2 SPECIFIED (any name,
the default included). ``strict`` keeps only entities with no other entity types than the filter's.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Float64, Int8, Int16, Int32, String

MATCH_TYPE_EXACT, MATCH_TYPE_DEFAULT, MATCH_TYPE_SPECIFIED = 0, 1, 2

COMPONENT_DATA = Schema(
    "ComponentData",
    Field("entity_type", String, "0+"),
    Field("match_type", Int8, "0+"),
    Field("match", String, "0+", nullable_versions="0+", default=None),
)

DESCRIBE_CLIENT_QUOTAS_REQUEST = Schema(
    "DescribeClientQuotasRequest",
    Field("components", Array(COMPONENT_DATA), "0+"),
    Field("strict", Boolean, "0+", default=False),
)

ENTITY_DATA = Schema(
    "EntityData",
    Field("entity_type", String, "0+"),
    Field("entity_name", String, "0+", nullable_versions="0+", default=None),
)

VALUE_DATA = Schema(
    "ValueData",
    Field("key", String, "0+"),
    Field("value", Float64, "0+"),
)

ENTRY_DATA = Schema(
    "EntryData",
    Field("entity", Array(ENTITY_DATA), "0+"),
    Field("values", Array(VALUE_DATA), "0+"),
)

DESCRIBE_CLIENT_QUOTAS_RESPONSE = Schema(
    "DescribeClientQuotasResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("entries", Array(ENTRY_DATA), "0+", nullable_versions="0+", default=None),
)

DESCRIBE_CLIENT_QUOTAS = register(
    Api(ApiKey.DESCRIBE_CLIENT_QUOTAS, "DescribeClientQuotas", 0, 1, 1,
        DESCRIBE_CLIENT_QUOTAS_REQUEST, DESCRIBE_CLIENT_QUOTAS_RESPONSE)
)
