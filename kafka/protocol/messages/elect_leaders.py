"""ElectLeaders (key 43): ask the controller to elect leaders for partitions (KIP-183, KIP-460).

Mirrors ``common/message/ElectLeadersRequest.json`` and ``ElectLeadersResponse.json`` (versions
0-2, flexible from 2). Election type 0 is PREFERRED (move leadership back to the first replica, if
it is in the ISR), 1 is UNCLEAN (a partition without a leader takes any live replica, even one
outside the ISR). A null topic_partitions means every partition. Brokers forward it to the active
controller; `kafka-leader-election` sends it.
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int8, Int16, Int32, String

PREFERRED = 0
UNCLEAN = 1

TOPIC_PARTITIONS = Schema(
    "TopicPartitions",
    Field("topic", String, "0+"),
    Field("partitions", Array(Int32), "0+"),
)

ELECT_LEADERS_REQUEST = Schema(
    "ElectLeadersRequest",
    Field("election_type", Int8, "1+", default=PREFERRED),
    Field("topic_partitions", Array(TOPIC_PARTITIONS), "0+", nullable_versions="0+"),
    Field("timeout_ms", Int32, "0+", default=60000),
)

PARTITION_RESULT = Schema(
    "PartitionResult",
    Field("partition_id", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+"),
)

REPLICA_ELECTION_RESULT = Schema(
    "ReplicaElectionResult",
    Field("topic", String, "0+"),
    Field("partition_result", Array(PARTITION_RESULT), "0+"),
)

ELECT_LEADERS_RESPONSE = Schema(
    "ElectLeadersResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "1+", default=0, ignorable=True),
    Field("replica_election_results", Array(REPLICA_ELECTION_RESULT), "0+"),
)

ELECT_LEADERS = register(
    Api(ApiKey.ELECT_LEADERS, "ElectLeaders", 0, 2, 2, ELECT_LEADERS_REQUEST, ELECT_LEADERS_RESPONSE)
)
