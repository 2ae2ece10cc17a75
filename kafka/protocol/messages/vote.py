"""Vote (key 52): a candidate asks the other voters of the metadata quorum for their vote (KIP-595).

Mirrors ``common/message/VoteRequest.json`` and ``VoteResponse.json`` version 0 (flexible). A voter
grants its vote at most once per epoch, and only to a candidate whose log ends at least as far as
its own: (last_offset_epoch, last_offset) compared in that order, Raft's "up-to-date" rule.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, Int64, String

VOTE_PARTITION_REQUEST = Schema(
    "VotePartitionRequest",
    Field("partition_index", Int32, "0+"),
    Field("candidate_epoch", Int32, "0+"),
    Field("candidate_id", Int32, "0+"),
    Field("last_offset_epoch", Int32, "0+"),
    Field("last_offset", Int64, "0+"),
)

VOTE_TOPIC_REQUEST = Schema(
    "VoteTopicRequest",
    Field("topic_name", String, "0+"),
    Field("partitions", Array(VOTE_PARTITION_REQUEST), "0+"),
)

VOTE_REQUEST = Schema(
    "VoteRequest",
    Field("cluster_id", String, "0+", nullable_versions="0+", default=None),
    Field("topics", Array(VOTE_TOPIC_REQUEST), "0+"),
)

VOTE_PARTITION_RESPONSE = Schema(
    "VotePartitionResponse",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("leader_id", Int32, "0+", default=-1),
    Field("leader_epoch", Int32, "0+", default=-1),
    Field("vote_granted", Boolean, "0+", default=False),
)

VOTE_TOPIC_RESPONSE = Schema(
    "VoteTopicResponse",
    Field("topic_name", String, "0+"),
    Field("partitions", Array(VOTE_PARTITION_RESPONSE), "0+"),
)

VOTE_RESPONSE = Schema(
    "VoteResponse",
    Field("error_code", Int16, "0+"),
    Field("topics", Array(VOTE_TOPIC_RESPONSE), "0+", default=[]),
)

VOTE = register(Api(ApiKey.VOTE, "Vote", 0, 0, 0, VOTE_REQUEST, VOTE_RESPONSE))
