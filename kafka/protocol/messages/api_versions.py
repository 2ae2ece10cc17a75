"""ApiVersions (key 18): the first request of every connection -- "which versions do you speak?".

Mirrors ``common/message/ApiVersionsRequest.json`` and ``ApiVersionsResponse.json``.
Versions 0-2 are identical; v3 is flexible and adds the client's software name and version (KIP-511);
v4 is v3 for a client that accepts a supported feature range starting at 0 (KIP-1022: a v3 answer leaves
those out). v5 lets a client name the cluster and node it means to reach (KIP-1242): a broker that is not
that node of that cluster (the address now belongs to another) answers REBOOTSTRAP_REQUIRED.
The response header is always v0 (see ``Api.response_header_version``).
"""

import re

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, Int64, String

API_VERSIONS_REQUEST = Schema(
    "ApiVersionsRequest",
    Field("client_software_name", String, "3+", ignorable=True),
    Field("client_software_version", String, "3+", ignorable=True),
    Field("cluster_id", String, "5+", nullable_versions="5+", default=None, ignorable=True),
    Field("node_id", Int32, "5+", default=-1, ignorable=True),
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

_SOFTWARE_NAME_VERSION = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")


def is_valid(request, version: int) -> bool:
    """Kafka's ApiVersionsRequest.isValid: from v5 a cluster id and a node id come both or neither; from
    v3 the client's software name and version are made of letters, digits, '-' and '.' (KIP-511)."""
    if version >= 5 and (request.cluster_id is None) != (request.node_id == -1):
        return False
    return version < 3 or all(_SOFTWARE_NAME_VERSION.fullmatch(v or "") for v in (
        request.client_software_name, request.client_software_version))


API_VERSIONS = register(
    Api(ApiKey.API_VERSIONS, "ApiVersions", 0, 5, 3, API_VERSIONS_REQUEST, API_VERSIONS_RESPONSE)
)
