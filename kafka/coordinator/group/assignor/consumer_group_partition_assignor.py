"""ConsumerGroupPartitionAssignor: what a broker-side assignor is given and returns (Kafka's
org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor, GroupSpec and
SubscribedTopicDescriber, folded into two plain arguments).

KIP-848 moves the assignment from the group's leader client to the coordinator: the assignor sees
every member's subscription (as topic ids) and its current target, and the partition count of each
subscribed topic, and returns each member's new target. It must be deterministic: the same input,
the same answer, on whichever broker coordinates the group.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from kafka.coordinator.group.modern.consumer.consumer_group_member import Assignment


@dataclass(frozen=True)
class MemberSubscription:
    """Kafka's MemberSubscriptionAndAssignmentSpec: what one member reads, and what it has now."""

    subscribed_topic_ids: frozenset[uuid.UUID]
    current_assignment: Assignment = field(default_factory=dict)
    rack_id: str | None = None


class ConsumerGroupPartitionAssignor:
    name = ""

    def assign(self, members: dict[str, MemberSubscription],
               partitions_per_topic: dict[uuid.UUID, int]) -> dict[str, Assignment]:
        raise NotImplementedError


def freeze(assignment: dict[uuid.UUID, set[int]]) -> Assignment:
    return {topic_id: frozenset(partitions) for topic_id, partitions in assignment.items() if partitions}
