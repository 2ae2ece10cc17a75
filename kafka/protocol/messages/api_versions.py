"""ApiVersions (key 18): the first request of every connection -- "which versions do you speak?".

Mirrors ``common/message/ApiVersionsRequest.json`` and ``ApiVersionsResponse.json``.
Versions 0-2 are identical; v3 is flexible and adds the client's software name and version (KIP-511);
v4 is v3 for a client that accepts a supported feature range starting at 0 (KIP-1022: a v3 answer leaves
those out).
The response header is always v0 (see ``Api.response_header_version``).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, Int64, String

API_VERSIONS_REQUEST = Schema(
    "ApiVersionsRequest",
    Field("client_software_name", String, "3+", ignorable=True),
    Field("client_software_version", String, "3+", ignorable=True),
)

API_VERSION = Schema(
    "ApiVersion",
    Field("api_key", Int16, "0+"),
    Field("min_version", Int16, "0+"),
    Field("max_version", Int16, "0+"),
)

SUPPORTED_FEATURE_KEY = Schema(
    "SupportedFeatureKey",
    Field("name", String, "3+"),
    Field("min_version", Int16, "3+"),
    Field("max_version", Int16, "3+"),
)

FINALIZED_FEATURE_KEY = Schema(
    "FinalizedFeatureKey",
    Field("name", String, "3+"),
    Field("max_version_level", Int16, "3+"),
    Field("min_version_level", Int16, "3+"),
)

API_VERSIONS_RESPONSE = Schema(
    "ApiVersionsResponse",
    Field("error_code", Int16, "0+"),
    Field("api_keys", Array(API_VERSION), "0+"),
    Field("throttle_time_ms", Int32, "1+", ignorable=True),
    Field(
        "supported_features", Array(SUPPORTED_FEATURE_KEY), "3+", tag=0, tagged_versions="3+", ignorable=True
    ),
    Field("finalized_features_epoch", Int64, "3+", tag=1, tagged_versions="3+", default=-1, ignorable=True),
    Field(
        "finalized_features", Array(FINALIZED_FEATURE_KEY), "3+", tag=2, tagged_versions="3+", ignorable=True
    ),
    Field("zk_migration_ready", Boolean, "3+", tag=3, tagged_versions="3+", default=False, ignorable=True),
)

API_VERSIONS = register(
    Api(ApiKey.API_VERSIONS, "ApiVersions", 0, 4, 3, API_VERSIONS_REQUEST, API_VERSIONS_RESPONSE)
)
