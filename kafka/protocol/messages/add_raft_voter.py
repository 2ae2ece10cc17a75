"""AddRaftVoter (key 80): make an observer a voter of the metadata quorum (KIP-853).

Mirrors ``common/message/AddRaftVoterRequest.json`` and ``AddRaftVoterResponse.json`` versions 0-1
(flexible). `kafka-metadata-quorum add-controller` sends it with the new controller's id, the
directory id of its metadata log directory (meta.properties directory.id) and its controller
listeners; the leader answers once the VotersRecord that adds it is committed (AddVoterHandler), or,
from v1 with AckWhenCommitted false (KIP-1186), once it has written it.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int16, Int32, String, UInt16, Uuid

LISTENER = Schema(
    "Listener",
    Field("name", String, "0+"),
    Field("host", String, "0+"),
    Field("port", UInt16, "0+"),
)

ADD_RAFT_VOTER_REQUEST = Schema(
    "AddRaftVoterRequest",
    Field("cluster_id", String, "0+", nullable_versions="0+", default=None),
    Field("timeout_ms", Int32, "0+"),
    Field("voter_id", Int32, "0+"),
    Field("voter_directory_id", Uuid, "0+"),
    Field("listeners", Array(LISTENER), "0+"),
    Field("ack_when_committed", Boolean, "1+", default=True),
)

ADD_RAFT_VOTER_RESPONSE = Schema(
    "AddRaftVoterResponse",
    Field("throttle_time_ms", Int32, "0+", default=0),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None, ignorable=True),
)

ADD_RAFT_VOTER = register(Api(ApiKey.ADD_RAFT_VOTER, "AddRaftVoter", 0, 1, 0,
                              ADD_RAFT_VOTER_REQUEST, ADD_RAFT_VOTER_RESPONSE))
