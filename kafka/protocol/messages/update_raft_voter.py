"""UpdateRaftVoter (key 82): a voter tells the leader its current endpoints and kraft.version range (KIP-853).

Mirrors ``common/message/UpdateRaftVoterRequest.json`` and ``UpdateRaftVoterResponse.json`` version 0
(flexible). Only controllers send it, to the leader, on the controller listener.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.messages.add_raft_voter import LISTENER
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String, Uuid

KRAFT_VERSION_FEATURE = Schema(
    "KRaftVersionFeature",
    Field("min_supported_version", Int16, "0+"),
    Field("max_supported_version", Int16, "0+"),
)

UPDATE_RAFT_VOTER_REQUEST = Schema(
    "UpdateRaftVoterRequest",
    Field("cluster_id", String, "0+", nullable_versions="0+", default=None),
    Field("current_leader_epoch", Int32, "0+"),
    Field("voter_id", Int32, "0+"),
    Field("voter_directory_id", Uuid, "0+"),
    Field("listeners", Array(LISTENER), "0+"),
    Field("k_raft_version_feature", KRAFT_VERSION_FEATURE, "0+"),
)

CURRENT_LEADER = Schema(
    "CurrentLeader",
    Field("leader_id", Int32, "0+", default=-1),
    Field("leader_epoch", Int32, "0+", default=-1),
    Field("host", String, "0+", default=""),
    Field("port", Int32, "0+", default=0),
)

UPDATE_RAFT_VOTER_RESPONSE = Schema(
    "UpdateRaftVoterResponse",
    Field("throttle_time_ms", Int32, "0+", default=0),
    Field("error_code", Int16, "0+"),
    Field("current_leader", CURRENT_LEADER, "0+", tag=0, tagged_versions="0+"),
)

UPDATE_RAFT_VOTER = register(Api(ApiKey.UPDATE_RAFT_VOTER, "UpdateRaftVoter", 0, 0, 0,
                                 UPDATE_RAFT_VOTER_REQUEST, UPDATE_RAFT_VOTER_RESPONSE))
