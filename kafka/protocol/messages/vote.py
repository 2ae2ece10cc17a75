"""Vote (key 52): a voter asks the others of the metadata quorum for their vote (KIP-595), or first
whether they would give it (a pre-vote, KIP-996).

Mirrors ``common/message/VoteRequest.json`` and ``VoteResponse.json`` versions 0-2 (all flexible):

    v0  KIP-595
    v1  KIP-853: the voter the request is for (VoterId, VoterDirectoryId), the sender's directory id,
        and the leader's endpoints in the response (a tagged NodeEndpoints)
    v2  KIP-996: PreVote, in the request and its answer; Kafka renamed CandidateEpoch/CandidateId to
        ReplicaEpoch/ReplicaId (same wire format), as a prospective voter is not yet a candidate

A voter grants its vote at most once per epoch, and only to a candidate whose log ends at least as
far as its own: (last_offset_epoch, last_offset) compared in that order, Raft's "up-to-date" rule. A
pre-vote changes nothing on the voter: no epoch is bumped and nothing is remembered.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, Int64, String, UInt16, Uuid

VOTE_PARTITION_REQUEST = Schema(
    "VotePartitionRequest",
    Field("partition_index", Int32, "0+"),
    Field("replica_epoch", Int32, "0+"),
    Field("replica_id", Int32, "0+"),
    Field("replica_directory_id", Uuid, "1+", ignorable=True),
    Field("voter_directory_id", Uuid, "1+", ignorable=True),
    Field("last_offset_epoch", Int32, "0+"),
    Field("last_offset", Int64, "0+"),
    Field("pre_vote", Boolean, "2+"),
)

VOTE_TOPIC_REQUEST = Schema(
    "VoteTopicRequest",
    Field("topic_name", String, "0+"),
    Field("partitions", Array(VOTE_PARTITION_REQUEST), "0+"),
)

VOTE_REQUEST = Schema(
    "VoteRequest",
    Field("cluster_id", String, "0+", nullable_versions="0+", default=None),
    Field("voter_id", Int32, "1+", default=-1, ignorable=True),
    Field("topics", Array(VOTE_TOPIC_REQUEST), "0+"),
)

VOTE_PARTITION_RESPONSE = Schema(
    "VotePartitionResponse",
    Field("partition_index", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("leader_id", Int32, "0+", default=-1),
    Field("leader_epoch", Int32, "0+", default=-1),
    Field("vote_granted", Boolean, "0+", default=False),
    Field("pre_vote", Boolean, "2+"),
)

VOTE_TOPIC_RESPONSE = Schema(
    "VoteTopicResponse",
    Field("topic_name", String, "0+"),
    Field("partitions", Array(VOTE_PARTITION_RESPONSE), "0+"),
)

VOTE_NODE_ENDPOINT = Schema(
    "VoteNodeEndpoint",
    Field("node_id", Int32, "1+"),
    Field("host", String, "1+"),
    Field("port", UInt16, "1+"),
)

VOTE_RESPONSE = Schema(
    "VoteResponse",
    Field("error_code", Int16, "0+"),
    Field("topics", Array(VOTE_TOPIC_RESPONSE), "0+", default=[]),
    Field("node_endpoints", Array(VOTE_NODE_ENDPOINT), "1+", tag=0, tagged_versions="1+", default=[]),
)

VOTE = register(Api(ApiKey.VOTE, "Vote", 0, 2, 0, VOTE_REQUEST, VOTE_RESPONSE))
