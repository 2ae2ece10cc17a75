"""RoundRobinAssignor: all partitions of all subscribed topics dealt out in turn (Kafka's RoundRobinAssignor).

Partitions are sorted by topic and number and dealt to the sorted members like cards, skipping
a member that is not subscribed to the partition's topic. With equal subscriptions, member
counts differ by at most one.

Seed 004: "The Group Coordinator elects a leader from one of the consumers. The group leader assigns
partitions to the consumers." This is the leader's side: ConsumerCoordinator.perform_assignment runs
it in the leader's client only, when the group chose ``roundrobin`` (partition.assignment.strategy);
the broker relays the result in SyncGroup. (Lab 06's exercise, docs/labs/06-consumer-groups.md.)
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
        # BEGIN LAB 06 SOLUTION: deal the partitions (by topic, then number) to the sorted members in turn,
        # skipping a member not subscribed to the topic
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
        # END LAB 06 SOLUTION
