"""StreamsGroupDescribe (key 89): KIP-1071's DescribeGroups for streams groups.

Mirrors ``common/message/StreamsGroupDescribeRequest.json`` and ``StreamsGroupDescribeResponse.json`` as
Apache Kafka 4.4 serves them: versions 0-1, flexible from 0. Version 1 may ask for the full topology
description a broker-side plugin keeps (KIP-1331, answered by a status: none is kept here) and shows the
task assignor the next assignment will use (KIP-1357).

Beside the group and assignment epochs it shows the topology as the group coordinator configured it
(partition counts decided, internal topics named), and for each member its process, its endpoint, its
changelog offsets, and its current tasks next to its target.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.messages.streams_group_heartbeat import (
    ENDPOINT,
    KEY_VALUE,
    TASK_IDS,
    TASK_OFFSET,
    TOPIC_INFO,
)
from kafka.protocol.messages.streams_group_topology_description_update import TOPOLOGY_DESCRIPTION
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int8, Int16, Int32, String

STREAMS_GROUP_DESCRIBE_REQUEST = Schema(
    "StreamsGroupDescribeRequest",
    Field("group_ids", Array(String), "0+"),
    Field("include_authorized_operations", Boolean, "0+"),
    Field("include_topology_description", Boolean, "1+", default=False),
)

SUBTOPOLOGY = Schema(
    "Subtopology",
    Field("subtopology_id", String, "0+"),
    Field("source_topics", Array(String), "0+"),
    Field("repartition_sink_topics", Array(String), "0+"),
    Field("state_changelog_topics", Array(TOPIC_INFO), "0+"),
    Field("repartition_source_topics", Array(TOPIC_INFO), "0+"),
)

TOPOLOGY = Schema(
    "Topology",
    Field("epoch", Int32, "0+"),
    # null while the group is not ready (a source topic missing, ...), then with the counts decided
    Field("subtopologies", Array(SUBTOPOLOGY), "0+", nullable_versions="0+", default=None),
)

ASSIGNMENT = Schema(
    "Assignment",
    Field("active_tasks", Array(TASK_IDS), "0+"),
    Field("standby_tasks", Array(TASK_IDS), "0+"),
    Field("warmup_tasks", Array(TASK_IDS), "0+"),
)

MEMBER = Schema(
    "Member",
    Field("member_id", String, "0+"),
    Field("member_epoch", Int32, "0+"),
    Field("instance_id", String, "0+", nullable_versions="0+", default=None),
    Field("rack_id", String, "0+", nullable_versions="0+", default=None),
    Field("client_id", String, "0+"),
    Field("client_host", String, "0+"),
    Field("topology_epoch", Int32, "0+"),
    Field("process_id", String, "0+"),
    Field("user_endpoint", ENDPOINT, "0+", nullable_versions="0+", default=None),
    Field("client_tags", Array(KEY_VALUE), "0+"),
    Field("task_offsets", Array(TASK_OFFSET), "0+"),
    Field("task_end_offsets", Array(TASK_OFFSET), "0+"),
    Field("assignment", ASSIGNMENT, "0+"),
    Field("target_assignment", ASSIGNMENT, "0+"),
    Field("is_classic", Boolean, "0+"),
)

DESCRIBED_GROUP = Schema(
    "DescribedGroup",
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("group_id", String, "0+"),
    Field("group_state", String, "0+"),
    Field("group_epoch", Int32, "0+"),
    Field("assignment_epoch", Int32, "0+"),
    Field("topology", TOPOLOGY, "0+", nullable_versions="0+", default=None),
    Field("members", Array(MEMBER), "0+"),
    Field("authorized_operations", Int32, "0+", default=-2147483648),
    Field("topology_description", TOPOLOGY_DESCRIPTION, "1+", nullable_versions="1+", default=None),
    # 0 NOT_REQUESTED, 1 NOT_STORED, 2 ERROR, 3 AVAILABLE
    Field("topology_description_status", Int8, "1+", default=0),
    Field("assignor_name", String, "1+", nullable_versions="1+", default=None, ignorable=True),
)

STREAMS_GROUP_DESCRIBE_RESPONSE = Schema(
    "StreamsGroupDescribeResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("groups", Array(DESCRIBED_GROUP), "0+"),
)

STREAMS_GROUP_DESCRIBE = register(Api(
    ApiKey.STREAMS_GROUP_DESCRIBE, "StreamsGroupDescribe", 0, 1, 0,
    STREAMS_GROUP_DESCRIBE_REQUEST, STREAMS_GROUP_DESCRIBE_RESPONSE))
