"""FindCoordinator (key 10): "which broker coordinates this group (or transactional id)?"

Mirrors ``common/message/FindCoordinatorRequest.json`` and ``FindCoordinatorResponse.json``
(versions 0-6, flexible from 3). v4 (KIP-699) batches keys: ``coordinator_keys`` in, one
``coordinators`` entry per key out. ``key_type`` 0 = group, 1 = transaction, 2 = share (KIP-932: the
share coordinator of a share partition, key ``group:topicId:partition``, from v6). v5 (KIP-890) lets
the answer carry TRANSACTION_ABORTABLE; the bytes of v4 to v6 are the same. We advertise 0-6, as Kafka 4.4.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int8, Int16, Int32, String

FIND_COORDINATOR_REQUEST = Schema(
    "FindCoordinatorRequest",
    Field("key", String, "0-3"),
    Field("key_type", Int8, "1+", default=0),
    Field("coordinator_keys", Array(String), "4+"),
)

COORDINATOR = Schema(
    "Coordinator",
    Field("key", String, "4+"),
    Field("node_id", Int32, "4+"),
    Field("host", String, "4+"),
    Field("port", Int32, "4+"),
    Field("error_code", Int16, "4+"),
    Field("error_message", String, "4+", nullable_versions="4+", default=None, ignorable=True),
)

FIND_COORDINATOR_RESPONSE = Schema(
    "FindCoordinatorResponse",
    Field("throttle_time_ms", Int32, "1+", ignorable=True),
    Field("error_code", Int16, "0-3"),
    Field("error_message", String, "1-3", nullable_versions="1-3", default=None, ignorable=True),
    Field("node_id", Int32, "0-3", default=-1),
    Field("host", String, "0-3"),
    Field("port", Int32, "0-3", default=-1),
    Field("coordinators", Array(COORDINATOR), "4+"),
)

FIND_COORDINATOR = register(
    Api(
        ApiKey.FIND_COORDINATOR,
        "FindCoordinator",
        0,
        6,
        3,
        FIND_COORDINATOR_REQUEST,
        FIND_COORDINATOR_RESPONSE,
    )
)
