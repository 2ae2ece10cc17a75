"""AlterClientQuotas (key 49): set or remove quotas of users, client ids and IPs (KIP-546).

Mirrors ``common/message/AlterClientQuotasRequest.json`` and ``...Response.json`` (versions 0-1,
flexible from 1). An entity is a list of (entity_type, entity_name) pairs: ``user``, ``client-id``
or ``ip``, a null name meaning the default entity of that type. Each op sets ``key`` to ``value``
(bytes per second, or a percentage) or, with ``remove``, removes it.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Float64, Int16, Int32, String

ENTITY_DATA = Schema(
    "EntityData",
    Field("entity_type", String, "0+"),
    Field("entity_name", String, "0+", nullable_versions="0+", default=None),
)

OP_DATA = Schema(
    "OpData",
    Field("key", String, "0+"),
    Field("value", Float64, "0+", default=0.0),
    Field("remove", Boolean, "0+", default=False),
)

ENTRY_DATA = Schema(
    "EntryData",
    Field("entity", Array(ENTITY_DATA), "0+"),
    Field("ops", Array(OP_DATA), "0+"),
)

ALTER_CLIENT_QUOTAS_REQUEST = Schema(
    "AlterClientQuotasRequest",
    Field("entries", Array(ENTRY_DATA), "0+"),
    Field("validate_only", Boolean, "0+", default=False),
)

ENTRY_RESPONSE = Schema(
    "EntryData",
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("entity", Array(ENTITY_DATA), "0+"),
)

ALTER_CLIENT_QUOTAS_RESPONSE = Schema(
    "AlterClientQuotasResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("entries", Array(ENTRY_RESPONSE), "0+"),
)

ALTER_CLIENT_QUOTAS = register(
    Api(ApiKey.ALTER_CLIENT_QUOTAS, "AlterClientQuotas", 0, 1, 1,
        ALTER_CLIENT_QUOTAS_REQUEST, ALTER_CLIENT_QUOTAS_RESPONSE)
)
