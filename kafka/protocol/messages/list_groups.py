"""ListGroups (key 16): every group this coordinator knows, optionally filtered by state or type.

Mirrors ``common/message/ListGroupsRequest.json`` and ``ListGroupsResponse.json`` (versions 0-5,
flexible from 3). v4 (KIP-518) filters by state; v5 (KIP-848) by type ("classic" here: the only
group type this broker has).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String

LIST_GROUPS_REQUEST = Schema(
    "ListGroupsRequest",
    Field("states_filter", Array(String), "4+"),
    Field("types_filter", Array(String), "5+"),
)

LISTED_GROUP = Schema(
    "ListedGroup",
    Field("group_id", String, "0+"),
    Field("protocol_type", String, "0+"),
    Field("group_state", String, "4+", ignorable=True),
    Field("group_type", String, "5+", ignorable=True),
)

LIST_GROUPS_RESPONSE = Schema(
    "ListGroupsResponse",
    Field("throttle_time_ms", Int32, "1+", ignorable=True),
    Field("error_code", Int16, "0+"),
    Field("groups", Array(LISTED_GROUP), "0+"),
)

LIST_GROUPS = register(Api(ApiKey.LIST_GROUPS, "ListGroups", 0, 5, 3, LIST_GROUPS_REQUEST,
                           LIST_GROUPS_RESPONSE))
