"""Produce (key 0): append record batches to partition logs.

Mirrors ``common/message/ProduceRequest.json`` and ``ProduceResponse.json`` (versions 0-11, flexible
from 9). ``records`` is a RecordBatch blob the codec never parses: it is handed to the log as a
zero-copy memoryview. We advertise 3-9: v3 is the first with message format v2 (RecordBatch).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, Records, String

PARTITION_PRODUCE_DATA = Schema(
    "PartitionProduceData",
    Field("index", Int32, "0+"),
    Field("records", Records, "0+", nullable_versions="0+"),
)

TOPIC_PRODUCE_DATA = Schema(
    "TopicProduceData",
    Field("name", String, "0+"),
    Field("partition_data", Array(PARTITION_PRODUCE_DATA), "0+"),
)

PRODUCE_REQUEST = Schema(
    "ProduceRequest",
    Field("transactional_id", String, "3+", nullable_versions="3+", default=None),
    Field("acks", Int16, "0+"),
    Field("timeout_ms", Int32, "0+"),
    Field("topic_data", Array(TOPIC_PRODUCE_DATA), "0+"),
)

BATCH_INDEX_AND_ERROR_MESSAGE = Schema(
    "BatchIndexAndErrorMessage",
    Field("batch_index", Int32, "8+"),
    Field("batch_index_error_message", String, "8+", nullable_versions="8+", default=None),
)

LEADER_ID_AND_EPOCH = Schema(
    "LeaderIdAndEpoch",
    Field("leader_id", Int32, "10+", default=-1),
    Field("leader_epoch", Int32, "10+", default=-1),
)

PARTITION_PRODUCE_RESPONSE = Schema(
    "PartitionProduceResponse",
    Field("index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("base_offset", Int64, "0+"),
    Field("log_append_time_ms", Int64, "2+", default=-1, ignorable=True),
    Field("log_start_offset", Int64, "5+", default=-1, ignorable=True),
    Field("record_errors", Array(BATCH_INDEX_AND_ERROR_MESSAGE), "8+", ignorable=True),
    Field("error_message", String, "8+", nullable_versions="8+", default=None, ignorable=True),
    # KIP-951: on NOT_LEADER_OR_FOLLOWER, tell the client who the leader is now.
    Field("current_leader", LEADER_ID_AND_EPOCH, "10+", tag=0, tagged_versions="10+"),
)

TOPIC_PRODUCE_RESPONSE = Schema(
    "TopicProduceResponse",
    Field("name", String, "0+"),
    Field("partition_responses", Array(PARTITION_PRODUCE_RESPONSE), "0+"),
)

NODE_ENDPOINT = Schema(
    "NodeEndpoint",
    Field("node_id", Int32, "10+"),
    Field("host", String, "10+"),
    Field("port", Int32, "10+"),
    Field("rack", String, "10+", nullable_versions="10+", default=None),
)

PRODUCE_RESPONSE = Schema(
    "ProduceResponse",
    Field("responses", Array(TOPIC_PRODUCE_RESPONSE), "0+"),
    Field("throttle_time_ms", Int32, "1+", default=0, ignorable=True),
    Field("node_endpoints", Array(NODE_ENDPOINT), "10+", tag=0, tagged_versions="10+"),
)

PRODUCE = register(Api(ApiKey.PRODUCE, "Produce", 3, 9, 9, PRODUCE_REQUEST, PRODUCE_RESPONSE))
