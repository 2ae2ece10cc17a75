"""WriteTxnMarkers (key 27): the transaction coordinator tells partition leaders to end a transaction
(KIP-98).

Mirrors ``common/message/WriteTxnMarkersRequest.json`` and ``...Response.json`` (flexible from 1).
Sent broker to broker, never by clients: for each producer, the leader of each listed partition
appends a control batch holding one EndTransactionMarker (COMMIT when ``transaction_result`` is
true, ABORT when false) with the coordinator's epoch. The marker is what moves the partition's last
stable offset past the transaction, and what read_committed consumers use to drop aborted records.
v0 is not advertised: Kafka 4 dropped it (KIP-896). v2 says for each marker which transaction version
the transaction ran at (KIP-1228): a TV_2 marker carries the epoch the coordinator bumped at the end.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int8, Int16, Int32, Int64, String

WRITABLE_TXN_MARKER_TOPIC = Schema(
    "WritableTxnMarkerTopic",
    Field("name", String, "0+"),
    Field("partition_indexes", Array(Int32), "0+"),
)

WRITABLE_TXN_MARKER = Schema(
    "WritableTxnMarker",
    Field("producer_id", Int64, "0+"),
    Field("producer_epoch", Int16, "0+"),
    Field("transaction_result", Boolean, "0+"),
    Field("topics", Array(WRITABLE_TXN_MARKER_TOPIC), "0+"),
    Field("coordinator_epoch", Int32, "0+"),
    Field("transaction_version", Int8, "2+", default=0, ignorable=True),
)

WRITE_TXN_MARKERS_REQUEST = Schema(
    "WriteTxnMarkersRequest",
    Field("markers", Array(WRITABLE_TXN_MARKER), "0+"),
)

WRITABLE_TXN_MARKER_PARTITION_RESULT = Schema(
    "WritableTxnMarkerPartitionResult",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
)

WRITABLE_TXN_MARKER_TOPIC_RESULT = Schema(
    "WritableTxnMarkerTopicResult",
    Field("name", String, "0+"),
    Field("partitions", Array(WRITABLE_TXN_MARKER_PARTITION_RESULT), "0+"),
)

WRITABLE_TXN_MARKER_RESULT = Schema(
    "WritableTxnMarkerResult",
    Field("producer_id", Int64, "0+"),
    Field("topics", Array(WRITABLE_TXN_MARKER_TOPIC_RESULT), "0+"),
)

WRITE_TXN_MARKERS_RESPONSE = Schema(
    "WriteTxnMarkersResponse",
    Field("markers", Array(WRITABLE_TXN_MARKER_RESULT), "0+"),
)

WRITE_TXN_MARKERS = register(
    Api(ApiKey.WRITE_TXN_MARKERS, "WriteTxnMarkers", 1, 2, 1,
        WRITE_TXN_MARKERS_REQUEST, WRITE_TXN_MARKERS_RESPONSE)
)
