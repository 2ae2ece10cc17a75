"""DeleteGroups (key 42): remove empty groups and all their committed offsets.

Mirrors ``common/message/DeleteGroupsRequest.json`` and ``DeleteGroupsResponse.json`` (versions
0-3, flexible from 2). A group with members gets NON_EMPTY_GROUP; one the coordinator never heard
of gets GROUP_ID_NOT_FOUND. Deletion writes tombstones to ``__consumer_offsets``. v3 adds a
per-group ``error_message``; Kafka 4.4 fills it only when a streams group's topology description
plugin fails to delete (KIP-1331's optional store), so it is null here, as on a Kafka without one.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String

DELETE_GROUPS_REQUEST = Schema(
    "DeleteGroupsRequest",
    Field("groups_names", Array(String), "0+"),
)

DELETABLE_GROUP_RESULT = Schema(
    "DeletableGroupResult",
    Field("group_id", String, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "3+", nullable_versions="3+", default=None, ignorable=True),
)

DELETE_GROUPS_RESPONSE = Schema(
    "DeleteGroupsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("results", Array(DELETABLE_GROUP_RESULT), "0+"),
)

DELETE_GROUPS = register(
    Api(ApiKey.DELETE_GROUPS, "DeleteGroups", 0, 3, 2, DELETE_GROUPS_REQUEST, DELETE_GROUPS_RESPONSE)
)
