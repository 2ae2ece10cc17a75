"""FetchSnapshot (key 59): a follower too far behind copies the leader's latest snapshot (KIP-630).

Mirrors ``common/message/FetchSnapshotRequest.json`` and ``FetchSnapshotResponse.json`` version 0
(flexible). When a Fetch asks for an offset the leader no longer has (its log now starts at a
snapshot), the answer names the snapshot instead of sending records; the follower then fetches the
snapshot file in chunks, by position, installs it and goes on fetching the log after it.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.messages.fetch import SNAPSHOT_ID
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, Int64, Records, String

LEADER_ID_AND_EPOCH = Schema(
    "LeaderIdAndEpoch",
    Field("leader_id", Int32, "0+", default=-1),
    Field("leader_epoch", Int32, "0+", default=-1),
)

SNAPSHOT_PARTITION = Schema(
    "PartitionSnapshot",
    Field("partition", Int32, "0+"),
    Field("current_leader_epoch", Int32, "0+"),
    Field("snapshot_id", SNAPSHOT_ID, "0+"),
    Field("position", Int64, "0+"),
)

TOPIC_SNAPSHOT = Schema(
    "TopicSnapshot",
    Field("name", String, "0+"),
    Field("partitions", Array(SNAPSHOT_PARTITION), "0+"),
)

FETCH_SNAPSHOT_REQUEST = Schema(
    "FetchSnapshotRequest",
    Field("cluster_id", String, "0+", nullable_versions="0+", default=None, tag=0, tagged_versions="0+"),
    Field("replica_id", Int32, "0+", default=-1),
    Field("max_bytes", Int32, "0+", default=0x7FFFFFFF),
    Field("topics", Array(TOPIC_SNAPSHOT), "0+"),
)

PARTITION_SNAPSHOT_RESPONSE = Schema(
    "PartitionSnapshotResponse",
    Field("index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("snapshot_id", SNAPSHOT_ID, "0+"),
    Field("current_leader", LEADER_ID_AND_EPOCH, "0+", tag=0, tagged_versions="0+"),
    Field("size", Int64, "0+", default=0),
    Field("position", Int64, "0+", default=0),
    Field("unaligned_records", Records, "0+"),
)

TOPIC_SNAPSHOT_RESPONSE = Schema(
    "TopicSnapshotResponse",
    Field("name", String, "0+"),
    Field("partitions", Array(PARTITION_SNAPSHOT_RESPONSE), "0+"),
)

FETCH_SNAPSHOT_RESPONSE = Schema(
    "FetchSnapshotResponse",
    Field("throttle_time_ms", Int32, "0+", default=0),
    Field("error_code", Int16, "0+"),
    Field("topics", Array(TOPIC_SNAPSHOT_RESPONSE), "0+", default=[]),
)

FETCH_SNAPSHOT = register(Api(ApiKey.FETCH_SNAPSHOT, "FetchSnapshot", 0, 0, 0,
                              FETCH_SNAPSHOT_REQUEST, FETCH_SNAPSHOT_RESPONSE))
