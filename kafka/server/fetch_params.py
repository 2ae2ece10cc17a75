"""FetchParams: what a whole fetch asks for, whoever sends it (Kafka's
org.apache.kafka.server.storage.log.FetchParams): which replica (a follower, a consumer at -1, a debugging
reader at -2), how long it may wait and for how many bytes, and so how far it may read (FetchIsolation).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.log.fetch_isolation import FetchIsolation
from kafka.protocol.messages.fetch import DEBUGGING_REPLICA_ID


@dataclass(frozen=True)
class FetchParams:
    """What a whole fetch asks for (Kafka's FetchParams). Consumers have replica_id -1."""

    replica_id: int
    max_wait_ms: int
    min_bytes: int
    max_bytes: int
    isolation_level: int = 0
    to_log_end: bool = False  # a coordinator loading its partition reads as a follower does
    replica_epoch: int = -1  # a follower's broker epoch (Fetch v15+, KIP-903); -1: not given

    @property
    def fetch_only_committed(self) -> bool:
        return self.replica_id < 0  # consumers read below the HW; followers read to the log end

    @property
    def isolation(self) -> FetchIsolation:
        """How far this fetch reads: the log end (followers, coordinator loads), the HW, or the LSO
        (read_committed)."""
        return FetchIsolation.LOG_END if self.to_log_end else FetchIsolation.of(self.replica_id,
                                                                                self.isolation_level)

    @property
    def fetch_only_from_leader(self) -> bool:
        """Everyone reads from the leader, except a debugging reader (replica id -2, what
        kafka-replica-verification sends), which may read any replica below its HW."""
        return self.replica_id != DEBUGGING_REPLICA_ID


    @property
    def is_from_follower(self) -> bool:
        """A replica's fetch (Kafka's isFromFollower): it copies the log, never read from remote storage."""
        return self.replica_id >= 0
