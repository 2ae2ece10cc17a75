"""OffsetExpirationCondition: when a group's committed offset has outlived offsets.retention.minutes
(Kafka's org.apache.kafka.coordinator.group.OffsetExpirationCondition and its Impl).

Each group type says from which moment an offset's retention counts (the commit time, or the moment a
classic group became Empty), or that its offsets do not expire now (a classic group still rebalancing).
A commit that carried an expiry of its own (OffsetCommit v1-4) expires then, whatever the group says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kafka.coordinator.group.offset_and_metadata import OffsetAndMetadata


@dataclass(frozen=True)
class OffsetExpirationCondition:
    base_timestamp: Callable[[OffsetAndMetadata], int]

    def is_offset_expired(self, offset: OffsetAndMetadata, current_timestamp_ms: int,
                          offsets_retention_ms: int) -> bool:
        if offset.expire_timestamp_ms >= 0:  # older clients' explicit expiry: the old semantics
            return current_timestamp_ms >= offset.expire_timestamp_ms
        return current_timestamp_ms - self.base_timestamp(offset) >= offsets_retention_ms


# Retention counted from each offset's last commit: a consumer group's, and a simple group's rule.
COMMIT_TIMESTAMP_EXPIRATION = OffsetExpirationCondition(lambda offset: offset.commit_timestamp_ms)
