"""ShareGroupPartitionAssignor: what a share group's broker-side assignor is given and returns (Kafka's
org.apache.kafka.coordinator.group.api.assignor.ShareGroupPartitionAssignor, with the GroupSpec,
SubscriptionType and SubscribedTopicDescriber it is called with).

Like a consumer group's assignor it sees every member's subscription (topic ids) and current target,
and the partition count of each subscribed topic, and returns every member's next target. Two things
are its own: the GroupSpec says whether every member reads the same topics (HOMOGENEOUS, the easy
case) or not, and which partitions may be assigned at all. A share group may only be given a
partition once the share coordinator holds state for it (the group's initialized partitions, see
ShareGroupManager), so a partition not yet initialized is skipped until it is.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from enum import Enum

from kafka.coordinator.group.assignor.consumer_group_partition_assignor import MemberSubscription
from kafka.coordinator.group.group_coordinator_records import Assignment


class SubscriptionType(Enum):
    HOMOGENEOUS = "homogeneous"  # every member reads the same topics
    HETEROGENEOUS = "heterogeneous"


class PartitionAssignorError(Exception):
    """Kafka's PartitionAssignorException: the assignor cannot compute an assignment."""


@dataclass(frozen=True)
class GroupSpec:
    """Kafka's GroupSpecImpl: the members (in the order the assignor should walk them), how they
    subscribe, and the partitions that may be assigned (None: every partition)."""

    members: dict[str, MemberSubscription]
    subscription_type: SubscriptionType
    assignable_partitions: dict[uuid.UUID, frozenset[int]] | None = None

    def is_partition_assignable(self, topic_id: uuid.UUID, partition: int) -> bool:
        if self.assignable_partitions is None:
            return True
        return partition in self.assignable_partitions.get(topic_id, frozenset())


class ShareGroupPartitionAssignor:
    name = ""

    def assign(self, group_spec: GroupSpec,
               partitions_per_topic: dict[uuid.UUID, int]) -> dict[str, Assignment]:
        """Every member's next target. ``partitions_per_topic`` is Kafka's SubscribedTopicDescriber:
        a subscribed topic missing from it is a PartitionAssignorError."""
        raise NotImplementedError
