"""RemoveRaftVoter (key 81): drop one voter from the metadata quorum (KIP-853).

Mirrors ``common/message/RemoveRaftVoterRequest.json`` and ``RemoveRaftVoterResponse.json`` version 0
(flexible). `kafka-metadata-quorum remove-controller --controller-id N --controller-directory-id D`
sends it; the leader answers once the VotersRecord without that voter is committed (RemoveVoterHandler).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Field, Schema
from kafka.protocol.types import Int16, Int32, String, Uuid

REMOVE_RAFT_VOTER_REQUEST = Schema(
    "RemoveRaftVoterRequest",
    Field("cluster_id", String, "0+", nullable_versions="0+", default=None),
    Field("voter_id", Int32, "0+"),
    Field("voter_directory_id", Uuid, "0+"),
)

REMOVE_RAFT_VOTER_RESPONSE = Schema(
    "RemoveRaftVoterResponse",
    Field("throttle_time_ms", Int32, "0+", default=0),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None, ignorable=True),
)

REMOVE_RAFT_VOTER = register(Api(ApiKey.REMOVE_RAFT_VOTER, "RemoveRaftVoter", 0, 0, 0,
                                 REMOVE_RAFT_VOTER_REQUEST, REMOVE_RAFT_VOTER_RESPONSE))
