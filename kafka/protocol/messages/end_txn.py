"""EndTxn (key 26): "commit (or abort) my transaction" (KIP-98).

Mirrors ``common/message/EndTxnRequest.json`` and ``...Response.json`` (flexible from 3). The
transaction coordinator writes PrepareCommit or PrepareAbort to ``__transaction_state``, answers,
and then writes a COMMIT or ABORT marker into every partition of the transaction (WriteTxnMarkers).
v5 (KIP-890 part 2, transaction.version 2): the coordinator bumps the producer epoch at every commit and
abort and the response carries the producer id and epoch the producer goes on with.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, Int64, String

END_TXN_REQUEST = Schema(
    "EndTxnRequest",
    Field("transactional_id", String, "0+"),
    Field("producer_id", Int64, "0+"),
    Field("producer_epoch", Int16, "0+"),
    Field("committed", Boolean, "0+"),
)

END_TXN_RESPONSE = Schema(
    "EndTxnResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("producer_id", Int64, "5+", default=-1, ignorable=True),
    Field("producer_epoch", Int16, "5+", default=-1, ignorable=True),
)

END_TXN = register(Api(ApiKey.END_TXN, "EndTxn", 0, 5, 3, END_TXN_REQUEST, END_TXN_RESPONSE))
