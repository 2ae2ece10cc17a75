"""BeginQuorumEpoch (key 53): a newly elected leader tells the voters it leads this epoch (KIP-595).

Mirrors ``common/message/BeginQuorumEpochRequest.json`` and ``BeginQuorumEpochResponse.json``
version 0 (not flexible). Voters that did not vote for it learn of the new leader at once instead
of waiting for their election timeout; the leader retries until each voter has answered.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String

BEGIN_QUORUM_EPOCH_PARTITION_REQUEST = Schema(
    "BeginQuorumEpochPartitionRequest",
    Field("partition_index", Int32, "0+"),
    Field("leader_id", Int32, "0+"),
    Field("leader_epoch", Int32, "0+"),
)

BEGIN_QUORUM_EPOCH_TOPIC_REQUEST = Schema(
    "BeginQuorumEpochTopicRequest",
    Field("topic_name", String, "0+"),
    Field("partitions", Array(BEGIN_QUORUM_EPOCH_PARTITION_REQUEST), "0+"),
)

BEGIN_QUORUM_EPOCH_REQUEST = Schema(
    "BeginQuorumEpochRequest",
    Field("cluster_id", String, "0+", nullable_versions="0+", default=None),
    Field("topics", Array(BEGIN_QUORUM_EPOCH_TOPIC_REQUEST), "0+"),
)

QUORUM_EPOCH_PARTITION_RESPONSE = Schema(
    "QuorumEpochPartitionResponse",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("leader_id", Int32, "0+", default=-1),
    Field("leader_epoch", Int32, "0+", default=-1),
)

QUORUM_EPOCH_TOPIC_RESPONSE = Schema(
    "QuorumEpochTopicResponse",
    Field("topic_name", String, "0+"),
    Field("partitions", Array(QUORUM_EPOCH_PARTITION_RESPONSE), "0+"),
)

BEGIN_QUORUM_EPOCH_RESPONSE = Schema(
    "BeginQuorumEpochResponse",
    Field("error_code", Int16, "0+"),
    Field("topics", Array(QUORUM_EPOCH_TOPIC_RESPONSE), "0+", default=[]),
)

BEGIN_QUORUM_EPOCH = register(Api(ApiKey.BEGIN_QUORUM_EPOCH, "BeginQuorumEpoch", 0, 0, None,
                                  BEGIN_QUORUM_EPOCH_REQUEST, BEGIN_QUORUM_EPOCH_RESPONSE))
