"""StreamsGroupHeartbeat (key 88): KIP-1071's one request of the streams group protocol.

Mirrors ``common/message/StreamsGroupHeartbeatRequest.json`` and ``StreamsGroupHeartbeatResponse.json`` as
Apache Kafka 4.4 serves them: versions 0-1, flexible from 0. Version 1 changes only the answer: it may say
TopologyDescriptionRequired (KIP-1331), carries the acceptable recovery lag as an int64 (v0's int32 is left
at 0) and may carry the MISSING_CLIENT_TAGS status.

A Kafka Streams member (one stream thread) joins with epoch 0 and its application's *topology*: the
subtopologies, and for each the topics it reads (source and repartition source topics), writes to
internally (repartition sinks) and logs its state to (changelog topics). Later heartbeats carry what
changed: the tasks it owns (a task is a subtopology and a partition number), its process id, the
endpoint it serves interactive queries on, its client tags and its changelog offsets. The answer carries
its member epoch, and when they changed the active, standby and warm-up tasks it should run, with the
statuses of the group (internal topics missing, an application asked to shut down, ...).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int8, Int16, Int32, Int64, String, UInt16

KEY_VALUE = Schema("KeyValue", Field("key", String, "0+"), Field("value", String, "0+"))

TOPIC_INFO = Schema(
    "TopicInfo",
    Field("name", String, "0+"),
    Field("partitions", Int32, "0+"),  # 0: no count enforced (always 0 for a changelog topic)
    Field("replication_factor", Int16, "0+"),  # 0: the broker's default
    Field("topic_configs", Array(KEY_VALUE), "0+"),
)

ENDPOINT = Schema("Endpoint", Field("host", String, "0+"), Field("port", UInt16, "0+"))

TASK_OFFSET = Schema(
    "TaskOffset",
    Field("subtopology_id", String, "0+"),
    Field("partition", Int32, "0+"),
    Field("offset", Int64, "0+"),
)

TASK_IDS = Schema("TaskIds", Field("subtopology_id", String, "0+"), Field("partitions", Array(Int32), "0+"))

COPARTITION_GROUP = Schema(
    "CopartitionGroup",  # indexes into the subtopology's lists of topics
    Field("source_topics", Array(Int16), "0+"),
    Field("source_topic_regex", Array(Int16), "0+"),
    Field("repartition_source_topics", Array(Int16), "0+"),
)

SUBTOPOLOGY = Schema(
    "Subtopology",
    Field("subtopology_id", String, "0+"),
    Field("source_topics", Array(String), "0+"),
    Field("source_topic_regex", Array(String), "0+"),
    Field("state_changelog_topics", Array(TOPIC_INFO), "0+"),
    Field("repartition_sink_topics", Array(String), "0+"),
    Field("repartition_source_topics", Array(TOPIC_INFO), "0+"),
    Field("copartition_groups", Array(COPARTITION_GROUP), "0+"),
)

TOPOLOGY = Schema("Topology", Field("epoch", Int32, "0+"), Field("subtopologies", Array(SUBTOPOLOGY), "0+"))

STREAMS_GROUP_HEARTBEAT_REQUEST = Schema(
    "StreamsGroupHeartbeatRequest",
    Field("group_id", String, "0+"),
    Field("member_id", String, "0+"),  # the member names itself
    Field("member_epoch", Int32, "0+"),  # 0: join; -1: leave; -2: a static member leaving to come back
    Field("endpoint_information_epoch", Int32, "0+"),
    Field("instance_id", String, "0+", nullable_versions="0+", default=None),
    Field("rack_id", String, "0+", nullable_versions="0+", default=None),
    Field("rebalance_timeout_ms", Int32, "0+", default=-1),
    Field("topology", TOPOLOGY, "0+", nullable_versions="0+", default=None),  # only when joining
    Field("active_tasks", Array(TASK_IDS), "0+", nullable_versions="0+", default=None),  # null: unchanged
    Field("standby_tasks", Array(TASK_IDS), "0+", nullable_versions="0+", default=None),
    Field("warmup_tasks", Array(TASK_IDS), "0+", nullable_versions="0+", default=None),
    Field("process_id", String, "0+", nullable_versions="0+", default=None),
    Field("user_endpoint", ENDPOINT, "0+", nullable_versions="0+", default=None),
    Field("client_tags", Array(KEY_VALUE), "0+", nullable_versions="0+", default=None),
    Field("task_offsets", Array(TASK_OFFSET), "0+", nullable_versions="0+", default=None),
    Field("task_end_offsets", Array(TASK_OFFSET), "0+", nullable_versions="0+", default=None),
    Field("shutdown_application", Boolean, "0+", default=False),
)

STATUS = Schema("Status", Field("status_code", Int8, "0+"), Field("status_detail", String, "0+"))

TOPIC_PARTITION = Schema("TopicPartition", Field("topic", String, "0+"),
                         Field("partitions", Array(Int32), "0+"))

ENDPOINT_TO_PARTITIONS = Schema(
    "EndpointToPartitions",
    Field("user_endpoint", ENDPOINT, "0+"),
    Field("active_partitions", Array(TOPIC_PARTITION), "0+"),
    Field("standby_partitions", Array(TOPIC_PARTITION), "0+"),
)

STREAMS_GROUP_HEARTBEAT_RESPONSE = Schema(
    "StreamsGroupHeartbeatResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("member_id", String, "0+"),
    Field("member_epoch", Int32, "0+"),
    Field("heartbeat_interval_ms", Int32, "0+"),
    Field("acceptable_recovery_lag_legacy", Int32, "0"),  # never set by Kafka 4.4: 0
    Field("task_offset_interval_ms", Int32, "0+"),
    Field("acceptable_recovery_lag", Int64, "1+", default=-1, ignorable=True),
    Field("status", Array(STATUS), "0+", nullable_versions="0+", default=[]),
    Field("active_tasks", Array(TASK_IDS), "0+", nullable_versions="0+", default=None),  # null: unchanged
    Field("standby_tasks", Array(TASK_IDS), "0+", nullable_versions="0+", default=None),
    Field("warmup_tasks", Array(TASK_IDS), "0+", nullable_versions="0+", default=None),
    Field("topology_description_required", Boolean, "1+", default=False),
    Field("endpoint_information_epoch", Int32, "0+"),
    Field("partitions_by_user_endpoint", Array(ENDPOINT_TO_PARTITIONS), "0+", nullable_versions="0+",
          default=None),
)

STREAMS_GROUP_HEARTBEAT = register(Api(
    ApiKey.STREAMS_GROUP_HEARTBEAT, "StreamsGroupHeartbeat", 0, 1, 0,
    STREAMS_GROUP_HEARTBEAT_REQUEST, STREAMS_GROUP_HEARTBEAT_RESPONSE))
