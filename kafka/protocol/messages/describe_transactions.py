"""DescribeTransactions (key 65): the state of transactional ids, from their coordinator (KIP-664).

Mirrors ``common/message/DescribeTransactionsRequest.json`` and ``...Response.json`` (version 0,
flexible). What ``kafka-transactions.sh describe --transactional-id`` asks: the state (Empty,
Ongoing, PrepareCommit, ...), the producer id and epoch, the timeout, when the transaction started,
and the partitions in it.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String

DESCRIBE_TRANSACTIONS_REQUEST = Schema(
    "DescribeTransactionsRequest",
    Field("transactional_ids", Array(String), "0+"),
)

TOPIC_DATA = Schema(
    "TopicData",
    Field("topic", String, "0+"),
    Field("partitions", Array(Int32), "0+"),
)

TRANSACTION_STATE = Schema(
    "TransactionState",
    Field("error_code", Int16, "0+"),
    Field("transactional_id", String, "0+"),
    Field("transaction_state", String, "0+"),
    Field("transaction_timeout_ms", Int32, "0+"),
    Field("transaction_start_time_ms", Int64, "0+"),
    Field("producer_id", Int64, "0+"),
    Field("producer_epoch", Int16, "0+"),
    Field("topics", Array(TOPIC_DATA), "0+"),
)

DESCRIBE_TRANSACTIONS_RESPONSE = Schema(
    "DescribeTransactionsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("transaction_states", Array(TRANSACTION_STATE), "0+"),
)

DESCRIBE_TRANSACTIONS = register(
    Api(ApiKey.DESCRIBE_TRANSACTIONS, "DescribeTransactions", 0, 0, 0,
        DESCRIBE_TRANSACTIONS_REQUEST, DESCRIBE_TRANSACTIONS_RESPONSE)
)
