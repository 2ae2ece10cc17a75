"""RangeAssignor: the broker-side "range" assignor (Kafka's
org.apache.kafka.coordinator.group.assignor.RangeAssignor).

Topic by topic, the members that subscribe to it, in member id order, each get a contiguous range
of its partitions; the first ``partitions % members`` get one more. Members subscribed to
co-partitioned topics so get the same partition numbers of each, which is what joins need.
"""

from __future__ import annotations

import uuid

from kafka.coordinator.group.assignor.consumer_group_partition_assignor import (
    ConsumerGroupPartitionAssignor,
    MemberSubscription,
    freeze,
)
from kafka.coordinator.group.modern.consumer.consumer_group_member import Assignment


class RangeAssignor(ConsumerGroupPartitionAssignor):
    name = "range"

    def assign(self, members: dict[str, MemberSubscription],
               partitions_per_topic: dict[uuid.UUID, int]) -> dict[str, Assignment]:
        result: dict[str, dict[uuid.UUID, set[int]]] = {m: {} for m in members}
        for topic_id, count in partitions_per_topic.items():
            readers = sorted(m for m, spec in members.items() if topic_id in spec.subscribed_topic_ids)
            if not readers:
                continue
            quota, extra = divmod(count, len(readers))
            start = 0
            for i, member_id in enumerate(readers):
                size = quota + (1 if i < extra else 0)
                if size:
                    result[member_id][topic_id] = set(range(start, start + size))
                start += size
        return {m: freeze(a) for m, a in result.items()}
