"""TargetAssignmentBuilder: the group's next target assignment, computed on the coordinator (Kafka's
org.apache.kafka.coordinator.group.modern.TargetAssignmentBuilder).

Whenever the group epoch moves past the assignment epoch (a member joined, left or changed its
subscription, or a subscribed topic gained partitions), the coordinator asks the group's assignor
for a new target for every member and stamps it with the group epoch. Members then reconcile
towards it one heartbeat at a time (CurrentAssignmentBuilder). This is the step the classic
protocol leaves to a client, the group's leader, between JoinGroup and SyncGroup.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from kafka.coordinator.group.assignor.consumer_group_partition_assignor import (
    ConsumerGroupPartitionAssignor,
    MemberSubscription,
)
from kafka.coordinator.group.modern.consumer.consumer_group_member import Assignment, ConsumerGroupMember


@dataclass(frozen=True)
class TopicMetadata:
    """Kafka's modern.TopicMetadata: what the assignor needs to know of one subscribed topic."""

    topic_id: uuid.UUID
    name: str
    num_partitions: int


class TargetAssignmentBuilder:
    def __init__(self, group_id: str, group_epoch: int, assignor: ConsumerGroupPartitionAssignor) -> None:
        self.group_id = group_id
        self.group_epoch = group_epoch
        self.assignor = assignor
        self.members: dict[str, ConsumerGroupMember] = {}
        self.subscriptions: dict[str, set[str]] = {}  # member id -> topic names it reads (regex resolved)
        self.subscription_metadata: dict[str, TopicMetadata] = {}
        self.target_assignment: dict[str, Assignment] = {}

    def with_members(self, members: dict[str, ConsumerGroupMember],
                     subscriptions: dict[str, set[str]]) -> TargetAssignmentBuilder:
        self.members, self.subscriptions = members, subscriptions
        return self

    def with_subscription_metadata(self, metadata: dict[str, TopicMetadata]) -> TargetAssignmentBuilder:
        self.subscription_metadata = metadata
        return self

    def with_target_assignment(self, target: dict[str, Assignment]) -> TargetAssignmentBuilder:
        self.target_assignment = target
        return self

    def build(self) -> dict[str, Assignment]:
        specs = {}
        for member_id, member in self.members.items():
            topic_ids = frozenset(self.subscription_metadata[name].topic_id
                                  for name in self.subscriptions.get(member_id, ())
                                  if name in self.subscription_metadata)
            specs[member_id] = MemberSubscription(topic_ids, self.target_assignment.get(member_id, {}),
                                                  member.rack_id)
        partitions = {t.topic_id: t.num_partitions for t in self.subscription_metadata.values()}
        return self.assignor.assign(specs, partitions) if specs else {}
