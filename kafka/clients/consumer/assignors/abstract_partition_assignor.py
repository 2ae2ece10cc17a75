"""ConsumerPartitionAssignor: how the group leader shares partitions out
(Kafka's consumer.ConsumerPartitionAssignor and internals.AbstractPartitionAssignor).

Seed 004: in a consumer group "the coordinator [...] the group leader assigns". The broker only
collects every member's subscription (JoinGroup) and hands the leader's decision back to each
member (SyncGroup); the decision itself is made here, in the leader's client, by the first
assignor that every member listed. An assignor sees topics' partition counts and each member's
subscription (and, for sticky assignors, what it owned) and returns partitions per member.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from kafka.utils.topic_partition import TopicPartition


class RebalanceProtocol(Enum):
    EAGER = "EAGER"  # everyone gives up everything before the rebalance
    COOPERATIVE = "COOPERATIVE"  # only partitions that move are given up (KIP-429)


@dataclass
class Subscription:
    topics: list[str]
    owned_partitions: list[TopicPartition] = field(default_factory=list)
    generation_id: int = -1
    user_data: bytes | None = None


class AbstractPartitionAssignor:
    name = ""
    rebalance_protocol = RebalanceProtocol.EAGER

    def assign(self, partitions_per_topic: dict[str, int],
               subscriptions: dict[str, Subscription]) -> dict[str, list[TopicPartition]]:
        raise NotImplementedError


def partitions_of(topic: str, count: int) -> list[TopicPartition]:
    return [TopicPartition(topic, p) for p in range(count)]
