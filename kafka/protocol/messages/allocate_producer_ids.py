"""AllocateProducerIds (key 67): a broker asks the active controller for a block of producer ids (KIP-730).

Mirrors ``common/message/AllocateProducerIdsRequest.json`` and ``...Response.json`` (version 0,
flexible). Producer ids must be unique across the cluster, so the controller hands them out in
blocks (``producer_id_start``, ``producer_id_len``) and records each block in the metadata log as a
ProducerIdsRecord; a broker answers InitProducerId from its block and asks for the next one before
it runs out. Sent on the controller listener, never by clients.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Field, Schema
from kafka.protocol.types import Int16, Int32, Int64

ALLOCATE_PRODUCER_IDS_REQUEST = Schema(
    "AllocateProducerIdsRequest",
    Field("broker_id", Int32, "0+"),
    Field("broker_epoch", Int64, "0+", default=-1),
)

ALLOCATE_PRODUCER_IDS_RESPONSE = Schema(
    "AllocateProducerIdsResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("producer_id_start", Int64, "0+"),
    Field("producer_id_len", Int32, "0+"),
)

ALLOCATE_PRODUCER_IDS = register(
    Api(ApiKey.ALLOCATE_PRODUCER_IDS, "AllocateProducerIds", 0, 0, 0,
        ALLOCATE_PRODUCER_IDS_REQUEST, ALLOCATE_PRODUCER_IDS_RESPONSE)
)
