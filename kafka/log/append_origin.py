"""AppendOrigin: who is appending to a log, which decides how much of it is checked (Kafka's
org.apache.kafka.storage.internals.log.AppendOrigin).

An idempotent producer's batches are validated in full on the leader (CLIENT: epochs and sequences).
A follower copying its leader's batches (REPLICATION), and the loader replaying a log after a restart,
only record what the leader already accepted: checking again could only refuse what is already there.
A coordinator's own appends (COORDINATOR: the transaction markers of WriteTxnMarkers, the group
coordinator's offsets) have their epochs checked but not their sequences, and only they may write a
transaction marker; the raft leader (RAFT_LEADER) writes its own control batches (LeaderChangeMessage).
"""

from __future__ import annotations

from enum import Enum


class AppendOrigin(Enum):
    CLIENT = "client"  # a ProduceRequest on the partition leader
    REPLICATION = "replication"  # a follower's copy, or the log replayed at load
    COORDINATOR = "coordinator"  # a coordinator's own writes (Kafka checks epochs, not sequences)
    RAFT_LEADER = "raft_leader"  # the metadata quorum's leader appending to __cluster_metadata
