"""IncrementalAlterConfigs (key 44): set, delete, append to or subtract from single config keys.

Mirrors ``common/message/IncrementalAlterConfigsRequest.json`` and ``...Response.json`` (versions
0-1, flexible from 1), KIP-339: unlike the older AlterConfigs, keys not named keep their values.
config_operation: 0 SET, 1 DELETE (back to the default), 2 APPEND and 3 SUBTRACT (list configs).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int8, Int16, Int32, String

ALTERABLE_CONFIG = Schema(
    "AlterableConfig",
    Field("name", String, "0+"),
    Field("config_operation", Int8, "0+"),
    Field("value", String, "0+", nullable_versions="0+"),
)

ALTER_CONFIGS_RESOURCE = Schema(
    "AlterConfigsResource",
    Field("resource_type", Int8, "0+"),
    Field("resource_name", String, "0+"),
    Field("configs", Array(ALTERABLE_CONFIG), "0+"),
)

INCREMENTAL_ALTER_CONFIGS_REQUEST = Schema(
    "IncrementalAlterConfigsRequest",
    Field("resources", Array(ALTER_CONFIGS_RESOURCE), "0+"),
    Field("validate_only", Boolean, "0+"),
)

ALTER_CONFIGS_RESOURCE_RESPONSE = Schema(
    "AlterConfigsResourceResponse",
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("resource_type", Int8, "0+"),
    Field("resource_name", String, "0+"),
)

INCREMENTAL_ALTER_CONFIGS_RESPONSE = Schema(
    "IncrementalAlterConfigsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("responses", Array(ALTER_CONFIGS_RESOURCE_RESPONSE), "0+"),
)

INCREMENTAL_ALTER_CONFIGS = register(
    Api(ApiKey.INCREMENTAL_ALTER_CONFIGS, "IncrementalAlterConfigs", 0, 1, 1,
        INCREMENTAL_ALTER_CONFIGS_REQUEST, INCREMENTAL_ALTER_CONFIGS_RESPONSE)
)
