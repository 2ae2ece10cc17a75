"""Fetch (key 1): read record batches from partition logs -- consumers and follower replicas alike.

Mirrors ``common/message/FetchRequest.json`` and ``FetchResponse.json`` (versions 4-18, flexible
from 12), all of which we advertise, as Kafka 4.4 does. v7 adds fetch sessions (KIP-227), v12 epoch
validation, v13 swaps topic names for topic ids (KIP-516: UNKNOWN_TOPIC_ID for an id the broker does
not know), v14 only adds OFFSET_MOVED_TO_TIERED_STORAGE to the errors a follower may see (KIP-405),
v15 moves ReplicaId into a tagged ReplicaState with the follower's broker epoch (KIP-903), v16 adds
NodeEndpoints beside CurrentLeader for a fetch sent to the wrong broker (KIP-951), v17 the raft
follower's ReplicaDirectoryId (KIP-853) and v18 the HighWatermark the fetcher knows (KIP-1166).
The response's ``records`` are written as-is: bytes read from a segment file go out unparsed.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int8, Int16, Int32, Int64, Records, String, Uuid

CONSUMER_REPLICA_ID = -1  # a Fetch or ListOffsets from a consumer
# Kafka's DEBUGGING_CONSUMER_ID: may read any replica, below its HW (kafka-replica-verification)
DEBUGGING_REPLICA_ID = -2
NO_HIGH_WATERMARK = 2**63 - 1  # FetchPartition.HighWatermark's default: the fetcher does not say (KIP-1166)

REPLICA_STATE = Schema(
    "ReplicaState",
    Field("replica_id", Int32, "15+", default=-1),
    Field("replica_epoch", Int64, "15+", default=-1),
)

FETCH_PARTITION = Schema(
    "FetchPartition",
    Field("partition", Int32, "0+"),
    Field("current_leader_epoch", Int32, "9+", default=-1, ignorable=True),
    Field("fetch_offset", Int64, "0+"),
    Field("last_fetched_epoch", Int32, "12+", default=-1),
    Field("log_start_offset", Int64, "5+", default=-1, ignorable=True),
    Field("partition_max_bytes", Int32, "0+"),
    Field("replica_directory_id", Uuid, "17+", tag=0, tagged_versions="17+", ignorable=True),
    # KIP-1166: the fetcher's HW; Long.MAX_VALUE when it does not say, -1 when it does not know one
    Field("high_watermark", Int64, "18+", default=NO_HIGH_WATERMARK, tag=1, tagged_versions="18+",
          ignorable=True),
)

FETCH_TOPIC = Schema(
    "FetchTopic",
    Field("topic", String, "0-12", ignorable=True),
    Field("topic_id", Uuid, "13+", ignorable=True),
    Field("partitions", Array(FETCH_PARTITION), "0+"),
)

FORGOTTEN_TOPIC = Schema(
    "ForgottenTopic",
    Field("topic", String, "7-12", ignorable=True),
    Field("topic_id", Uuid, "13+", ignorable=True),
    Field("partitions", Array(Int32), "7+"),
)

FETCH_REQUEST = Schema(
    "FetchRequest",
    Field(
        "cluster_id",
        String,
        "12+",
        nullable_versions="12+",
        default=None,
        tag=0,
        tagged_versions="12+",
        ignorable=True,
    ),
    Field("replica_id", Int32, "0-14", default=-1),  # -1: a consumer; otherwise the follower's broker id
    Field("replica_state", REPLICA_STATE, "15+", tag=1, tagged_versions="15+"),
    Field("max_wait_ms", Int32, "0+"),
    Field("min_bytes", Int32, "0+"),
    Field("max_bytes", Int32, "3+", default=0x7FFFFFFF, ignorable=True),
    Field("isolation_level", Int8, "4+", default=0, ignorable=True),  # 0 read_uncommitted, 1 read_committed
    Field("session_id", Int32, "7+", default=0, ignorable=True),
    Field("session_epoch", Int32, "7+", default=-1, ignorable=True),
    Field("topics", Array(FETCH_TOPIC), "0+"),
    Field("forgotten_topics_data", Array(FORGOTTEN_TOPIC), "7+"),
    Field("rack_id", String, "11+", default="", ignorable=True),
)

EPOCH_END_OFFSET = Schema(
    "EpochEndOffset",
    Field("epoch", Int32, "12+", default=-1),
    Field("end_offset", Int64, "12+", default=-1),
)

LEADER_ID_AND_EPOCH = Schema(
    "LeaderIdAndEpoch",
    Field("leader_id", Int32, "12+", default=-1),
    Field("leader_epoch", Int32, "12+", default=-1),
)

SNAPSHOT_ID = Schema(
    "SnapshotId",
    Field("end_offset", Int64, "0+", default=-1),
    Field("epoch", Int32, "0+", default=-1),
)

ABORTED_TRANSACTION = Schema(
    "AbortedTransaction",
    Field("producer_id", Int64, "4+"),
    Field("first_offset", Int64, "4+"),
)

PARTITION_DATA = Schema(
    "PartitionData",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("high_watermark", Int64, "0+"),
    Field("last_stable_offset", Int64, "4+", default=-1, ignorable=True),
    Field("log_start_offset", Int64, "5+", default=-1, ignorable=True),
    Field("diverging_epoch", EPOCH_END_OFFSET, "12+", tag=0, tagged_versions="12+"),
    Field("current_leader", LEADER_ID_AND_EPOCH, "12+", tag=1, tagged_versions="12+"),
    Field("snapshot_id", SNAPSHOT_ID, "12+", tag=2, tagged_versions="12+"),
    Field("aborted_transactions", Array(ABORTED_TRANSACTION), "4+", nullable_versions="4+", ignorable=True),
    Field("preferred_read_replica", Int32, "11+", default=-1),
    Field("records", Records, "0+", nullable_versions="0+"),
)

FETCHABLE_TOPIC_RESPONSE = Schema(
    "FetchableTopicResponse",
    Field("topic", String, "0-12", ignorable=True),
    Field("topic_id", Uuid, "13+", ignorable=True),
    Field("partitions", Array(PARTITION_DATA), "0+"),
)

NODE_ENDPOINT = Schema(
    "NodeEndpoint",
    Field("node_id", Int32, "16+"),
    Field("host", String, "16+"),
    Field("port", Int32, "16+"),
    Field("rack", String, "16+", nullable_versions="16+", default=None),
)

FETCH_RESPONSE = Schema(
    "FetchResponse",
    Field("throttle_time_ms", Int32, "1+", ignorable=True),
    Field("error_code", Int16, "7+", ignorable=True),
    Field("session_id", Int32, "7+", default=0),
    Field("responses", Array(FETCHABLE_TOPIC_RESPONSE), "0+"),
    Field("node_endpoints", Array(NODE_ENDPOINT), "16+", tag=0, tagged_versions="16+"),
)

FETCH = register(Api(ApiKey.FETCH, "Fetch", 4, 18, 12, FETCH_REQUEST, FETCH_RESPONSE))


def fetch_request_for_version(body: dict, version: int) -> dict:
    """Kafka's FetchRequest.Builder.build(version): a follower names itself in ReplicaId before v15 and in
    the tagged ReplicaState from v15 (KIP-903), so the body written at `version` keeps only the one that
    version has. `body` carries both (replica_id, and replica_state with its replica_epoch)."""
    body = dict(body)
    state = body.get("replica_state") or dict(replica_id=body.get("replica_id", -1), replica_epoch=-1)
    if version >= 15:
        body["replica_id"], body["replica_state"] = CONSUMER_REPLICA_ID, state
    else:
        body["replica_id"] = state["replica_id"]
        body.pop("replica_state", None)
    return body


def replica_id_and_epoch(body, version: int) -> tuple[int, int]:
    """Who sent a FetchRequest and its broker epoch (Kafka's FetchRequest.replicaId / replicaEpoch): from
    v15 the tagged ReplicaState, before that ReplicaId, with no epoch (-1)."""
    if version >= 15:
        state = body.replica_state
        return state.replica_id, state.replica_epoch
    return body.replica_id, -1
