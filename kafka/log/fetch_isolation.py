"""FetchIsolation: how far a read may go (Kafka's org.apache.kafka.storage.internals.log.FetchIsolation).

Seed 004: consumers read only what is committed, below the high watermark; a follower copies its
leader's log to the end. Transactions (KIP-98) add a third bound: a `read_committed` consumer
(isolation_level 1) stops at the last stable offset, below the first transaction still open, so it
never sees records whose transaction may yet abort.
"""

from __future__ import annotations

from enum import Enum

READ_UNCOMMITTED = 0  # the Fetch and ListOffsets requests' isolation_level
READ_COMMITTED = 1


class FetchIsolation(Enum):
    LOG_END = "log_end"  # a follower (replica id >= 0)
    HIGH_WATERMARK = "high_watermark"  # a read_uncommitted consumer
    TXN_COMMITTED = "txn_committed"  # a read_committed consumer

    @classmethod
    def of(cls, replica_id: int, isolation_level: int) -> FetchIsolation:
        """Kafka's FetchIsolation.of: followers read to the log end, consumers by their isolation level."""
        if replica_id >= 0:
            return cls.LOG_END
        return cls.TXN_COMMITTED if isolation_level == READ_COMMITTED else cls.HIGH_WATERMARK
