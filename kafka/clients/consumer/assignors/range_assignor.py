"""RangeAssignor: each topic's partitions cut into contiguous ranges, one per member (Kafka's RangeAssignor).

For every topic on its own: sort the members subscribed to it, give each ``n // m`` partitions
and the first ``n % m`` members one extra. Members with the same position in the sort get the
same partition numbers of every topic -- handy for joining co-partitioned topics.
"""

from __future__ import annotations

from kafka.clients.consumer.assignors.abstract_partition_assignor import (
    AbstractPartitionAssignor,
    Subscription,
    partitions_of,
)
from kafka.utils.topic_partition import TopicPartition


class RangeAssignor(AbstractPartitionAssignor):
    name = "range"

    def assign(self, partitions_per_topic: dict[str, int],
               subscriptions: dict[str, Subscription]) -> dict[str, list[TopicPartition]]:
        assignment: dict[str, list[TopicPartition]] = {m: [] for m in subscriptions}
        for topic, count in sorted(partitions_per_topic.items()):
            members = sorted(m for m, s in subscriptions.items() if topic in s.topics)
            if not members:
                continue
            per_member, extra = divmod(count, len(members))
            partitions = partitions_of(topic, count)
            start = 0
            for i, member in enumerate(members):
                length = per_member + (1 if i < extra else 0)
                assignment[member].extend(partitions[start : start + length])
                start += length
        return assignment
