"""Produce (key 0): append record batches to partition logs.

Mirrors ``common/message/ProduceRequest.json`` and ``ProduceResponse.json`` (flexible from 9). ``records``
is a RecordBatch blob the codec never parses: it is handed to the log as a zero-copy memoryview. We
advertise 3-12: v3 is the first with message format v2 (RecordBatch); v10-12 are v9's shape (KIP-951's
tagged leader hints, KIP-890): from v12 a transactional batch's partition is added to the transaction by
the broker itself (transaction.version 2), so the producer sends no AddPartitionsToTxn.
`validate_records` is ProduceRequest.validateRecords: the one look at those bytes before the log's.
"""

import struct

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.errors import Errors
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

PRODUCE = register(Api(ApiKey.PRODUCE, "Produce", 3, 12, 9, PRODUCE_REQUEST, PRODUCE_RESPONSE))


_LOG_OVERHEAD = 12  # baseOffset int64 + batchLength int32
_MIN_RECORD_OVERHEAD = 14  # the smallest record of the oldest format, Kafka's lower bound for batchLength
_MAGIC_AT = 16


def validate_records(records) -> tuple[Errors, str | None] | None:
    """Kafka's ProduceRequest.validateRecords for v3+: one partition's records must be exactly one whole
    batch, of magic 2. None if so, else the error and the message Kafka answers with: a length too
    small or a magic it does not know is CORRUPT_MESSAGE with why; anything else INVALID_RECORD alone."""
    if len(records) < _LOG_OVERHEAD:
        return Errors.INVALID_RECORD, None
    (batch_length,) = struct.unpack_from(">i", records, 8)
    if batch_length < _MIN_RECORD_OVERHEAD:
        return (Errors.CORRUPT_MESSAGE,
                f"Record size {batch_length} is less than the minimum record overhead "
                f"({_MIN_RECORD_OVERHEAD})")
    if len(records) < _LOG_OVERHEAD + batch_length:  # no whole batch
        return Errors.INVALID_RECORD, None
    magic = struct.unpack_from(">b", records, _MAGIC_AT)[0]
    if magic < 0 or magic > 2:
        return Errors.CORRUPT_MESSAGE, f"Invalid magic found in record: {magic}"
    if magic != 2 or len(records) > _LOG_OVERHEAD + batch_length:  # an old format, or more than one batch
        return Errors.INVALID_RECORD, None
    return None
