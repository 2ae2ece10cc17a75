"""SimpleAssignor: the share groups' broker-side assignor, "simple" (Kafka's
org.apache.kafka.coordinator.group.assignor.SimpleAssignor).

A share partition may be read by several members at once, so this assignor does not deal partitions
out as a consumer group's does. It shares them: every partition of a subscribed topic is given to
ceil(members / partitions) of its readers (its *desired sharing*), and every member to about the same
number of partitions. With at least as many partitions as members that is an ordinary balanced
split, each partition read by one member; with more members than partitions each partition is read
by several, e.g. 5 members on 2 partitions: partition 0 by three members and partition 1 by three,
one member reading both. It is sticky: a member keeps what it has unless it now has too much, or a
partition is shared by more members than it should be.

When every member reads the same topics (HOMOGENEOUS) the partitions of all of them are shared in one
go (SimpleHomogeneousAssignmentBuilder); otherwise topic by topic, among that topic's readers
(SimpleHeterogeneousAssignmentBuilder). Only partitions the GroupSpec says are assignable (those
whose share state the share coordinator has initialized) are given out.
"""

from __future__ import annotations

import uuid

from kafka.coordinator.group.assignor.share_group_partition_assignor import (
    GroupSpec,
    ShareGroupPartitionAssignor,
    SubscriptionType,
)
from kafka.coordinator.group.assignor.simple_heterogeneous_assignment_builder import (
    SimpleHeterogeneousAssignmentBuilder,
)
from kafka.coordinator.group.assignor.simple_homogeneous_assignment_builder import (
    SimpleHomogeneousAssignmentBuilder,
)
from kafka.coordinator.group.group_coordinator_records import Assignment


class SimpleAssignor(ShareGroupPartitionAssignor):
    name = "simple"

    def assign(self, group_spec: GroupSpec,
               partitions_per_topic: dict[uuid.UUID, int]) -> dict[str, Assignment]:
        if not group_spec.members:
            return {}
        if group_spec.subscription_type is SubscriptionType.HOMOGENEOUS:
            return SimpleHomogeneousAssignmentBuilder(group_spec, partitions_per_topic).build()
        return SimpleHeterogeneousAssignmentBuilder(group_spec, partitions_per_topic).build()

