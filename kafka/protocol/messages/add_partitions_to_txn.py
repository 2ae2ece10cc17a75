"""AddPartitionsToTxn (key 24): "these partitions are part of my transaction" (KIP-98).

Mirrors ``common/message/AddPartitionsToTxnRequest.json`` and ``...Response.json`` (flexible from 3).
Before a transactional producer first writes to a partition in a transaction, it tells its
transaction coordinator, which records the partition in the transaction's state (so that EndTxn knows
where to write the COMMIT or ABORT markers). Versions 4+ (KIP-890) batch several transactions for
brokers; clients use 0-3, which is what we advertise.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String

ADD_PARTITIONS_TO_TXN_TOPIC = Schema(
    "AddPartitionsToTxnTopic",
    Field("name", String, "0+"),
    Field("partitions", Array(Int32), "0+"),
)

ADD_PARTITIONS_TO_TXN_REQUEST = Schema(
    "AddPartitionsToTxnRequest",
    Field("transactional_id", String, "0+"),
    Field("producer_id", Int64, "0+"),
    Field("producer_epoch", Int16, "0+"),
    Field("topics", Array(ADD_PARTITIONS_TO_TXN_TOPIC), "0+"),
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

ADD_PARTITIONS_TO_TXN_RESPONSE = Schema(
    "AddPartitionsToTxnResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("results_by_topic", Array(ADD_PARTITIONS_TO_TXN_TOPIC_RESULT), "0+"),
)

ADD_PARTITIONS_TO_TXN = register(
    Api(ApiKey.ADD_PARTITIONS_TO_TXN, "AddPartitionsToTxn", 0, 3, 3,
        ADD_PARTITIONS_TO_TXN_REQUEST, ADD_PARTITIONS_TO_TXN_RESPONSE)
)
