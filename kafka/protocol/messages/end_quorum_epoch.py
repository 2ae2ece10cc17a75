"""EndQuorumEpoch (key 54): a leader that is shutting down resigns (KIP-595).

Mirrors ``common/message/EndQuorumEpochRequest.json`` and ``EndQuorumEpochResponse.json`` version 0
(not flexible). The resigning leader lists its preferred successors, the voters whose logs are most
up to date first; each voter stands for election after a delay that grows with its place in that
list, so the best placed one usually wins, and nobody waits a whole election timeout.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.messages.begin_quorum_epoch import QUORUM_EPOCH_TOPIC_RESPONSE
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String

END_QUORUM_EPOCH_PARTITION_REQUEST = Schema(
    "EndQuorumEpochPartitionRequest",
    Field("partition_index", Int32, "0+"),
    Field("leader_id", Int32, "0+"),
    Field("leader_epoch", Int32, "0+"),
    Field("preferred_successors", Array(Int32), "0+", default=[]),
)

END_QUORUM_EPOCH_TOPIC_REQUEST = Schema(
    "EndQuorumEpochTopicRequest",
    Field("topic_name", String, "0+"),
    Field("partitions", Array(END_QUORUM_EPOCH_PARTITION_REQUEST), "0+"),
)

END_QUORUM_EPOCH_REQUEST = Schema(
    "EndQuorumEpochRequest",
    Field("cluster_id", String, "0+", nullable_versions="0+", default=None),
    Field("topics", Array(END_QUORUM_EPOCH_TOPIC_REQUEST), "0+"),
)

END_QUORUM_EPOCH_RESPONSE = Schema(
    "EndQuorumEpochResponse",
    Field("error_code", Int16, "0+"),
    Field("topics", Array(QUORUM_EPOCH_TOPIC_RESPONSE), "0+", default=[]),
)

END_QUORUM_EPOCH = register(Api(ApiKey.END_QUORUM_EPOCH, "EndQuorumEpoch", 0, 0, None,
                                END_QUORUM_EPOCH_REQUEST, END_QUORUM_EPOCH_RESPONSE))
