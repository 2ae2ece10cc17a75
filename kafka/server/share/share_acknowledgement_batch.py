"""ShareAcknowledgementBatch and AcknowledgeType: what a member says about records it acquired
(Kafka's org.apache.kafka.server.share.acknowledge.ShareAcknowledgementBatch and the client's
AcknowledgeType).

A batch covers first_offset..last_offset with one acknowledge type for all of them, or one per offset.
ACCEPT: processed (ACKNOWLEDGED). RELEASE: give it to someone else (AVAILABLE again). REJECT: unprocessable
(ARCHIVED). GAP (0, the protocol's): no record at that offset, as a compacted or transactional log has
(ARCHIVED). RENEW (KIP-1222): keep the lock, restart its clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class AcknowledgeType(IntEnum):
    GAP = 0
    ACCEPT = 1
    RELEASE = 2
    REJECT = 3
    RENEW = 4


@dataclass(frozen=True)
class ShareAcknowledgementBatch:
    first_offset: int
    last_offset: int
    acknowledge_types: tuple[int, ...]
