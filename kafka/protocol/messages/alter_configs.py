"""AlterConfigs (key 33): replace the whole set of a resource's dynamic configs (the legacy API).

Mirrors ``common/message/AlterConfigsRequest.json`` and ``...Response.json`` (versions 0-2,
flexible from 2). Unlike IncrementalAlterConfigs (KIP-339), the configs sent become the resource's
only overrides: a key left out goes back to its default. Kafka deprecated it in favour of
IncrementalAlterConfigs, but clients and tools still send it (librdkafka's ``AlterConfigs``).
"""

from kafka.protocol.api_keys import Api, ApiKey, register

# The per-resource answer is the same as IncrementalAlterConfigs' (as in Kafka's two JSON files).
from kafka.protocol.messages.incremental_alter_configs import ALTER_CONFIGS_RESOURCE_RESPONSE
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int8, Int32, String

ALTERABLE_CONFIG = Schema(
    "AlterableConfig",
    Field("name", String, "0+"),
    Field("value", String, "0+", nullable_versions="0+"),
)

ALTER_CONFIGS_RESOURCE = Schema(
    "AlterConfigsResource",
    Field("resource_type", Int8, "0+"),
    Field("resource_name", String, "0+"),
    Field("configs", Array(ALTERABLE_CONFIG), "0+"),
)

ALTER_CONFIGS_REQUEST = Schema(
    "AlterConfigsRequest",
    Field("resources", Array(ALTER_CONFIGS_RESOURCE), "0+"),
    Field("validate_only", Boolean, "0+"),
)

ALTER_CONFIGS_RESPONSE = Schema(
    "AlterConfigsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("responses", Array(ALTER_CONFIGS_RESOURCE_RESPONSE), "0+"),
)

ALTER_CONFIGS = register(
    Api(ApiKey.ALTER_CONFIGS, "AlterConfigs", 0, 2, 2, ALTER_CONFIGS_REQUEST, ALTER_CONFIGS_RESPONSE)
)
