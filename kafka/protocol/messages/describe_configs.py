"""DescribeConfigs (key 32): the configuration of topics (resource type 2) and brokers (4).

Mirrors ``common/message/DescribeConfigsRequest.json`` and ``DescribeConfigsResponse.json``
(versions 0-4, flexible from 4). v1 adds synonyms and each value's ConfigSource, v3 the config type
and documentation. A null configuration_keys list asks for every key. v0 is not advertised: Kafka 4
dropped it (KIP-896).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int8, Int16, Int32, String

DESCRIBE_CONFIGS_RESOURCE = Schema(
    "DescribeConfigsResource",
    Field("resource_type", Int8, "0+"),
    Field("resource_name", String, "0+"),
    Field("configuration_keys", Array(String), "0+", nullable_versions="0+"),
)

DESCRIBE_CONFIGS_REQUEST = Schema(
    "DescribeConfigsRequest",
    Field("resources", Array(DESCRIBE_CONFIGS_RESOURCE), "0+"),
    Field("include_synonyms", Boolean, "1+", default=False),
    Field("include_documentation", Boolean, "3+", default=False),
)

DESCRIBE_CONFIGS_SYNONYM = Schema(
    "DescribeConfigsSynonym",
    Field("name", String, "1+"),
    Field("value", String, "1+", nullable_versions="0+"),
    Field("source", Int8, "1+"),
)

DESCRIBE_CONFIGS_RESOURCE_RESULT = Schema(
    "DescribeConfigsResourceResult",
    Field("name", String, "0+"),
    Field("value", String, "0+", nullable_versions="0+"),
    Field("read_only", Boolean, "0+"),
    Field("is_default", Boolean, "0", default=False),
    Field("config_source", Int8, "1+", default=-1, ignorable=True),
    Field("is_sensitive", Boolean, "0+"),
    Field("synonyms", Array(DESCRIBE_CONFIGS_SYNONYM), "1+", default=[], ignorable=True),
    Field("config_type", Int8, "3+", default=0, ignorable=True),
    Field("documentation", String, "3+", nullable_versions="0+", default=None, ignorable=True),
)

DESCRIBE_CONFIGS_RESULT = Schema(
    "DescribeConfigsResult",
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("resource_type", Int8, "0+"),
    Field("resource_name", String, "0+"),
    Field("configs", Array(DESCRIBE_CONFIGS_RESOURCE_RESULT), "0+"),
)

DESCRIBE_CONFIGS_RESPONSE = Schema(
    "DescribeConfigsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("results", Array(DESCRIBE_CONFIGS_RESULT), "0+"),
)

DESCRIBE_CONFIGS = register(
    Api(ApiKey.DESCRIBE_CONFIGS, "DescribeConfigs", 1, 4, 4, DESCRIBE_CONFIGS_REQUEST,
        DESCRIBE_CONFIGS_RESPONSE)
)
