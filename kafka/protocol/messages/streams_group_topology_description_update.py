"""StreamsGroupTopologyDescriptionUpdate (key 93): KIP-1331's push of a streams application's full topology
description (its processing nodes, stores and successors) to the broker, for a plugin to keep.

Mirrors ``common/message/StreamsGroupTopologyDescriptionUpdateRequest.json`` and its response as Apache
Kafka 4.4 serves them: version 0, flexible. A member sends it only when a heartbeat answered
TopologyDescriptionRequired, which a broker says only with group.streams.topology.description.plugin.class
set; none is built here, so the answer is always UNSUPPORTED_VERSION, as Kafka's without a plugin.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int8, Int16, Int32, String

NODE = Schema(
    "TopologyDescriptionNode",
    Field("name", String, "0+"),
    Field("node_type", Int8, "0+"),  # 1 SOURCE, 2 PROCESSOR, 3 SINK
    Field("source_topics", Array(String), "0+"),
    Field("sink_topic", String, "0+", nullable_versions="0+", default=None),
    Field("stores", Array(String), "0+"),
    Field("successors", Array(String), "0+"),
)

TOPOLOGY_DESCRIPTION = Schema(
    "TopologyDescription",
    Field("subtopologies", Array(Schema("TopologyDescriptionSubtopology",
                                        Field("subtopology_id", String, "0+"),
                                        Field("nodes", Array(NODE), "0+"))), "0+"),
    Field("global_stores", Array(Schema("TopologyDescriptionGlobalStore", Field("source", NODE, "0+"),
                                        Field("processor", NODE, "0+"))), "0+"),
)

STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE_REQUEST = Schema(
    "StreamsGroupTopologyDescriptionUpdateRequest",
    Field("group_id", String, "0+"),
    Field("member_id", String, "0+"),
    Field("topology_epoch", Int32, "0+"),
    Field("topology_description", TOPOLOGY_DESCRIPTION, "0+"),
)

STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE_RESPONSE = Schema(
    "StreamsGroupTopologyDescriptionUpdateResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
)

STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE = register(Api(
    ApiKey.STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE, "StreamsGroupTopologyDescriptionUpdate", 0, 0, 0,
    STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE_REQUEST, STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE_RESPONSE))
