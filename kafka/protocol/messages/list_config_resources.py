"""ListConfigResources (key 74): the config resources that exist (KIP-1142; version 0 was KIP-714's
ListClientMetricsResources and lists client-metrics subscriptions only).

Mirrors ``common/message/ListConfigResourcesRequest.json`` and ``...Response.json`` (versions 0-1,
flexible). v1 asks for some resource types (none: every type the broker lists) and answers each
resource with its type; v0's answers are client-metrics resources (type 16).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int8, Int16, Int32, String

LIST_CONFIG_RESOURCES_REQUEST = Schema(
    "ListConfigResourcesRequest",
    Field("resource_types", Array(Int8), "1+", default=[]),
)

CONFIG_RESOURCE = Schema(
    "ConfigResource",
    Field("resource_name", String, "0+"),
    Field("resource_type", Int8, "1+", default=16, ignorable=True),
)

LIST_CONFIG_RESOURCES_RESPONSE = Schema(
    "ListConfigResourcesResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("config_resources", Array(CONFIG_RESOURCE), "0+"),
)

LIST_CONFIG_RESOURCES = register(
    Api(ApiKey.LIST_CONFIG_RESOURCES, "ListConfigResources", 0, 1, 0, LIST_CONFIG_RESOURCES_REQUEST,
        LIST_CONFIG_RESOURCES_RESPONSE)
)
