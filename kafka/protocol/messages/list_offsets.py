"""ListOffsets (key 2): "which offset is at this timestamp?" -- earliest (-2), latest (-1), or by time.

Mirrors ``common/message/ListOffsetsRequest.json`` and ``ListOffsetsResponse.json`` (versions 0-11,
flexible from 6). v0 returned a list of offsets; from v1 exactly one offset and its timestamp.
We advertise 1-11, as Kafka 4.4 does: v7 asks for the largest timestamp (-3); tiered storage's specs
come with v8, the earliest local offset (-4, KIP-405), v9, the highest offset copied to remote storage
(-5, KIP-1005), and v11, the first offset not copied yet (-6, KIP-1023); v10 adds TimeoutMs, how long a
lookup in remote storage may take (KIP-1075). An older version asking for a newer spec gets
UNSUPPORTED_VERSION.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int8, Int16, Int32, Int64, String

LIST_OFFSETS_PARTITION = Schema(
    "ListOffsetsPartition",
    Field("partition_index", Int32, "0+"),
    Field("current_leader_epoch", Int32, "4+", default=-1, ignorable=True),
    Field("timestamp", Int64, "0+"),
    Field("max_num_offsets", Int32, "0", default=1),
)

LIST_OFFSETS_TOPIC = Schema(
    "ListOffsetsTopic",
    Field("name", String, "0+"),
    Field("partitions", Array(LIST_OFFSETS_PARTITION), "0+"),
)

LIST_OFFSETS_REQUEST = Schema(
    "ListOffsetsRequest",
    Field("replica_id", Int32, "0+"),
    Field("isolation_level", Int8, "2+"),
    Field("topics", Array(LIST_OFFSETS_TOPIC), "0+"),
    Field("timeout_ms", Int32, "10+", ignorable=True),
)

LIST_OFFSETS_PARTITION_RESPONSE = Schema(
    "ListOffsetsPartitionResponse",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("old_style_offsets", Array(Int64), "0"),
    Field("timestamp", Int64, "1+", default=-1),
    Field("offset", Int64, "1+", default=-1),
    Field("leader_epoch", Int32, "4+", default=-1),
)

LIST_OFFSETS_TOPIC_RESPONSE = Schema(
    "ListOffsetsTopicResponse",
    Field("name", String, "0+"),
    Field("partitions", Array(LIST_OFFSETS_PARTITION_RESPONSE), "0+"),
)

LIST_OFFSETS_RESPONSE = Schema(
    "ListOffsetsResponse",
    Field("throttle_time_ms", Int32, "2+", ignorable=True),
    Field("topics", Array(LIST_OFFSETS_TOPIC_RESPONSE), "0+"),
)

LIST_OFFSETS = register(
    Api(ApiKey.LIST_OFFSETS, "ListOffsets", 1, 11, 6, LIST_OFFSETS_REQUEST, LIST_OFFSETS_RESPONSE)
)
