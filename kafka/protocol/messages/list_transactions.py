"""ListTransactions (key 66): the transactional ids a broker coordinates (KIP-664).

Mirrors ``common/message/ListTransactionsRequest.json`` and ``...Response.json`` (flexible from 0).
What ``kafka-transactions.sh list`` sends to every broker: filtered by state, by producer id, and
(v1, KIP-994) by how long the transaction has been running, and (v2, KIP-1152) by a regular
expression the whole transactional id must match (RE2/J's syntax; INVALID_REGULAR_EXPRESSION if it is
not one).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String

LIST_TRANSACTIONS_REQUEST = Schema(
    "ListTransactionsRequest",
    Field("state_filters", Array(String), "0+"),
    Field("producer_id_filters", Array(Int64), "0+"),
    Field("duration_filter", Int64, "1+", default=-1),
    Field("transactional_id_pattern", String, "2+", nullable_versions="2+", default=None),
)

TRANSACTION_STATE = Schema(
    "TransactionState",
    Field("transactional_id", String, "0+"),
    Field("producer_id", Int64, "0+"),
    Field("transaction_state", String, "0+"),
)

LIST_TRANSACTIONS_RESPONSE = Schema(
    "ListTransactionsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("unknown_state_filters", Array(String), "0+"),
    Field("transaction_states", Array(TRANSACTION_STATE), "0+"),
)

LIST_TRANSACTIONS = register(
    Api(ApiKey.LIST_TRANSACTIONS, "ListTransactions", 0, 2, 0,
        LIST_TRANSACTIONS_REQUEST, LIST_TRANSACTIONS_RESPONSE)
)
