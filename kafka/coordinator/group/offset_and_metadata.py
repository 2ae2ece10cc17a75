"""OffsetAndMetadata: one committed offset as the group coordinator keeps it (Kafka's
org.apache.kafka.coordinator.group.OffsetAndMetadata).

A consumer commits "the next offset I will read" and a free-form metadata string; the coordinator
stamps the commit time, from which offsets.retention.minutes counts. ``record_offset`` is where in
``__consumer_offsets`` the commit was written: with transactions (KIP-98) a commit becomes visible
when its COMMIT marker arrives, perhaps after a plain commit written later, and the log order
decides which one stays (the old coordinator's CommitRecordMetadataAndOffset).
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass

from kafka.protocol.types import ZERO_UUID

NO_LEADER_EPOCH = -1
NO_EXPIRE_TIMESTAMP = -1
NO_RECORD_OFFSET = -1


@dataclass(frozen=True)
class OffsetAndMetadata:
    offset: int
    leader_epoch: int = NO_LEADER_EPOCH
    metadata: str = ""
    commit_timestamp_ms: int = -1
    # Only OffsetCommit v1-4 could ask for an expiry of their own (value schema v1); -1: retention.
    expire_timestamp_ms: int = NO_EXPIRE_TIMESTAMP
    # Not written: known when the record is replayed (Kafka's OffsetAndMetadata.recordOffset).
    record_offset: int = NO_RECORD_OFFSET
    # The topic's id when committed (zero: unknown, as in records before OffsetCommitValue v4). A fetch
    # by another id (the topic was recreated) does not get this offset (Kafka's isOffsetInvalid).
    topic_id: uuid.UUID = ZERO_UUID

    def topic_id_mismatch(self, topic_id: uuid.UUID) -> bool:
        """Kafka's isMismatchedTopicId: both ids known, and different."""
        return ZERO_UUID not in (self.topic_id, topic_id) and self.topic_id != topic_id

    def with_record_offset(self, record_offset: int) -> OffsetAndMetadata:
        """Kafka's OffsetAndMetadata.fromRecord: the value as replayed from the log at that offset."""
        return dataclasses.replace(self, record_offset=record_offset)
