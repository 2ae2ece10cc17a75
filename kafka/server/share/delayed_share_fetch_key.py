"""DelayedShareFetchGroupKey: what a waiting share fetch is watched under, besides its partitions
(Kafka's org.apache.kafka.server.share.fetch.DelayedShareFetchGroupKey).

New records complete a DelayedShareFetch the way they complete a DelayedFetch, through the
partition's TopicPartitionOperationKey that every append checks. This key is for what only the share
group sees: records released or timed out, the start offset moved, the share partition loaded or
fenced. Such a change in one group's view wakes only that group's fetches.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DelayedShareFetchGroupKey:
    group_id: str
    topic_id: uuid.UUID
    partition: int

    @property
    def key_label(self) -> str:
        return f"{self.group_id}:{self.topic_id}:{self.partition}"
