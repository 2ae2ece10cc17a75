"""AddPartitionsToTxn (key 24): "these partitions are part of my transaction" (KIP-98).

Mirrors ``common/message/AddPartitionsToTxnRequest.json`` and ``...Response.json`` (flexible from 3).
Before a transactional producer first writes to a partition in a transaction, it tells its
transaction coordinator, which records the partition in the transaction's state (so that EndTxn knows
where to write the COMMIT or ABORT markers). Versions 0-3 are the clients'. Versions 4+ (KIP-890) are
brokers': a partition leader asks about several transactions at once, each either verify-only (part 1:
is the partition already in the transaction?) or, at v5 with transaction.version 2, add it (part 2:
the produce path adds the partition itself), and the response gains a top-level error code.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, Int64, String

ADD_PARTITIONS_TO_TXN_TOPIC = Schema(
    "AddPartitionsToTxnTopic",
    Field("name", String, "0+"),
    Field("partitions", Array(Int32), "0+"),
)

ADD_PARTITIONS_TO_TXN_TRANSACTION = Schema(
    "AddPartitionsToTxnTransaction",
    Field("transactional_id", String, "4+"),
    Field("producer_id", Int64, "4+"),
    Field("producer_epoch", Int16, "4+"),
    Field("verify_only", Boolean, "4+", default=False),
    Field("topics", Array(ADD_PARTITIONS_TO_TXN_TOPIC), "4+"),
)

# Kafka names the v0-3 fields V3AndBelow*; ours keep the short names the client handlers use.
ADD_PARTITIONS_TO_TXN_REQUEST = Schema(
    "AddPartitionsToTxnRequest",
    Field("transactions", Array(ADD_PARTITIONS_TO_TXN_TRANSACTION), "4+"),
    Field("transactional_id", String, "0-3"),
    Field("producer_id", Int64, "0-3"),
    Field("producer_epoch", Int16, "0-3"),
    Field("topics", Array(ADD_PARTITIONS_TO_TXN_TOPIC), "0-3"),
)

ADD_PARTITIONS_TO_TXN_PARTITION_RESULT = Schema(
    "AddPartitionsToTxnPartitionResult",
    Field("partition_index", Int32, "0+"),
    Field("partition_error_code", Int16, "0+"),
)

ADD_PARTITIONS_TO_TXN_TOPIC_RESULT = Schema(
    "AddPartitionsToTxnTopicResult",
    Field("name", String, "0+"),
    Field("results_by_partition", Array(ADD_PARTITIONS_TO_TXN_PARTITION_RESULT), "0+"),
)

ADD_PARTITIONS_TO_TXN_RESULT = Schema(
    "AddPartitionsToTxnResult",
    Field("transactional_id", String, "4+"),
    Field("topic_results", Array(ADD_PARTITIONS_TO_TXN_TOPIC_RESULT), "4+"),
)

ADD_PARTITIONS_TO_TXN_RESPONSE = Schema(
    "AddPartitionsToTxnResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "4+", default=0, ignorable=True),
    Field("results_by_transaction", Array(ADD_PARTITIONS_TO_TXN_RESULT), "4+"),
    Field("results_by_topic", Array(ADD_PARTITIONS_TO_TXN_TOPIC_RESULT), "0-3"),
)

ADD_PARTITIONS_TO_TXN = register(
    Api(ApiKey.ADD_PARTITIONS_TO_TXN, "AddPartitionsToTxn", 0, 5, 3,
        ADD_PARTITIONS_TO_TXN_REQUEST, ADD_PARTITIONS_TO_TXN_RESPONSE)
)
