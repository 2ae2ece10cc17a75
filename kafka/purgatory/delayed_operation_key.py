"""Watch keys for delayed operations (Kafka's kafka.server.DelayedOperationKey and its case classes).

Seed 000 "Purgatories and Delayed Operations": an operation is watched under the keys whose change
could complete it; a produce to partition p calls check_and_complete(TopicPartitionOperationKey(p)).
Any hashable value works as a key; these frozen dataclasses just make the common ones explicit.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TopicPartitionOperationKey:
    """Operations waiting on one partition: DelayedProduce (HW moves) and DelayedFetch (new bytes)."""

    topic: str
    partition: int

    @property
    def key_label(self) -> str:
        # Kafka's keyLabel, used in log lines.
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True, slots=True)
class GroupKey:
    """Operations waiting on one consumer group: DelayedJoin and DelayedHeartbeat (coordinator)."""

    group_id: str

    @property
    def key_label(self) -> str:
        return self.group_id
