"""AddOffsetsToTxn (key 25): "this transaction will also commit offsets of this group" (KIP-98).

Mirrors ``common/message/AddOffsetsToTxnRequest.json`` and ``...Response.json`` (flexible from 3).
A consume-transform-produce application calls ``send_offsets_to_transaction``: the producer first
tells its transaction coordinator, which adds the group's ``__consumer_offsets`` partition to the
transaction (the markers go there too), then sends TxnOffsetCommit to the group coordinator.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String

ADD_OFFSETS_TO_TXN_REQUEST = Schema(
    "AddOffsetsToTxnRequest",
    Field("transactional_id", String, "0+"),
    Field("producer_id", Int64, "0+"),
    Field("producer_epoch", Int16, "0+"),
    Field("group_id", String, "0+"),
)

ADD_OFFSETS_TO_TXN_RESPONSE = Schema(
    "AddOffsetsToTxnResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
)

ADD_OFFSETS_TO_TXN = register(
    Api(ApiKey.ADD_OFFSETS_TO_TXN, "AddOffsetsToTxn", 0, 4, 3,
        ADD_OFFSETS_TO_TXN_REQUEST, ADD_OFFSETS_TO_TXN_RESPONSE)
)
