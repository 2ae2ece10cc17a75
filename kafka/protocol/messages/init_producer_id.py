"""InitProducerId (key 22): "give me a producer id and epoch" (KIP-98).

Mirrors ``common/message/InitProducerIdRequest.json`` and ``InitProducerIdResponse.json`` (flexible
from 2). Seed 004: "Duplicate data can be written if replication is done but the Produce Response
does not reach the producer (which retries)". An idempotent producer asks for an id once, then numbers
every batch it sends to a partition (producer id, epoch, sequence), so a broker can recognise a
retried batch it already has.

``transactional_id`` is null for a producer that is idempotent only: any broker answers it with a
fresh id. v3 (KIP-360) lets a producer that already has an id and epoch ask for the epoch to be
bumped instead of starting over. v4 lets it hear PRODUCER_FENCED (before, INVALID_PRODUCER_EPOCH). v5
(KIP-890) says the client understands TRANSACTION_ABORTABLE; Kafka 4.4's TransactionCoordinator never
answers InitProducerId with it (it comes from verifying a transaction's partitions), so v5 is v4's
bytes and v4's answers. v6 (KIP-939, two-phase commit) is not advertised, as Kafka 4.4 does not.
We advertise 0-5.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, String

INIT_PRODUCER_ID_REQUEST = Schema(
    "InitProducerIdRequest",
    Field("transactional_id", String, "0+", nullable_versions="0+", default=None),
    Field("transaction_timeout_ms", Int32, "0+"),
    Field("producer_id", Int64, "3+", default=-1),
    Field("producer_epoch", Int16, "3+", default=-1),
)

INIT_PRODUCER_ID_RESPONSE = Schema(
    "InitProducerIdResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("producer_id", Int64, "0+", default=-1),
    Field("producer_epoch", Int16, "0+"),
)

INIT_PRODUCER_ID = register(
    Api(ApiKey.INIT_PRODUCER_ID, "InitProducerId", 0, 5, 2,
        INIT_PRODUCER_ID_REQUEST, INIT_PRODUCER_ID_RESPONSE)
)
