"""RoundRobinAssignor: all partitions of all subscribed topics dealt out in turn (Kafka's RoundRobinAssignor).

Partitions are sorted by topic and number and dealt to the sorted members like cards, skipping
a member that is not subscribed to the partition's topic. With equal subscriptions, member
counts differ by at most one.
"""

from __future__ import annotations

from kafka.clients.consumer.assignors.abstract_partition_assignor import (
    AbstractPartitionAssignor,
    Subscription,
    partitions_of,
)
from kafka.utils.topic_partition import TopicPartition


class RoundRobinAssignor(AbstractPartitionAssignor):
    name = "roundrobin"

    def assign(self, partitions_per_topic: dict[str, int],
               subscriptions: dict[str, Subscription]) -> dict[str, list[TopicPartition]]:
        assignment: dict[str, list[TopicPartition]] = {m: [] for m in subscriptions}
        members = sorted(subscriptions)
        if not members:
            return assignment
        turn = 0
        for topic, count in sorted(partitions_per_topic.items()):
            for tp in partitions_of(topic, count):
                for _ in range(len(members)):  # at most one full lap to find a subscriber
                    member = members[turn % len(members)]
                    turn += 1
                    if topic in subscriptions[member].topics:
                        assignment[member].append(tp)
                        break
        return assignment
