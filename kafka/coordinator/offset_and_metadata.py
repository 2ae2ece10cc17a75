"""OffsetAndMetadata: one committed offset, as the coordinator keeps it (Kafka's kafka.common.OffsetAndMetadata).

A consumer commits "the next offset I will read" plus a free-form metadata string; the coordinator
stamps the commit time, which offset retention counts from.
"""

from __future__ import annotations

from dataclasses import dataclass

NO_LEADER_EPOCH = -1


@dataclass(frozen=True)
class OffsetAndMetadata:
    offset: int
    leader_epoch: int = NO_LEADER_EPOCH
    metadata: str = ""
    commit_timestamp_ms: int = -1
    # Only OffsetCommit v1 and value schema v1 carried an explicit expiry; -1 means "use retention".
    expire_timestamp_ms: int = -1
