"""ShareGroupAssignmentBuilder: a share member's next current assignment (Kafka's
org.apache.kafka.coordinator.group.modern.share.ShareGroupAssignmentBuilder).

A consumer member crawls towards its target (CurrentAssignmentBuilder: revoke first, wait for the
partitions' old owners, then take them). A share member jumps: when the group's assignment epoch is
not its epoch it takes its whole target at once, at that epoch. Nobody has to let a partition go
first, since a share partition is read by several members anyway. When only its subscription changed
it takes its target again at its own epoch. Either way it keeps only the topics it reads: a target
may still hold a topic the member just stopped reading (the SimpleAssignor leaves a topic nobody reads
in the target), and the member must not fetch it.
"""

from __future__ import annotations

import dataclasses
import uuid

from kafka.coordinator.group.group_coordinator_records import Assignment
from kafka.coordinator.group.modern.consumer.consumer_group_member import MemberState
from kafka.coordinator.group.modern.share.share_group_member import ShareGroupMember


class ShareGroupAssignmentBuilder:
    def __init__(self, member: ShareGroupMember) -> None:
        self.member = member
        self.topics: dict[str, tuple[uuid.UUID, int]] = {}
        self.target_assignment_epoch = 0
        self.target_assignment: Assignment = {}
        self.has_subscription_changed = False

    def with_topics(self, topics: dict[str, tuple[uuid.UUID, int]]) -> ShareGroupAssignmentBuilder:
        """Kafka's withMetadataImage: topic name -> (id, partitions), to resolve what the member reads."""
        self.topics = topics
        return self

    def with_target_assignment(self, epoch: int, assignment: Assignment) -> ShareGroupAssignmentBuilder:
        self.target_assignment_epoch, self.target_assignment = epoch, assignment
        return self

    def with_has_subscription_changed(self, changed: bool) -> ShareGroupAssignmentBuilder:
        self.has_subscription_changed = changed
        return self

    def build(self) -> ShareGroupMember:
        member = self.member
        if self.target_assignment_epoch != member.member_epoch:
            return dataclasses.replace(member.update_member_epoch(self.target_assignment_epoch),
                                       state=MemberState.STABLE,
                                       assigned_partitions=self.filter_assigned_partitions())
        if self.has_subscription_changed:
            return dataclasses.replace(member, assigned_partitions=self.filter_assigned_partitions())
        return member

    def filter_assigned_partitions(self) -> Assignment:
        """The target's topics the member reads (by id, as the topics are now)."""
        read = {self.topics[name][0] for name in self.member.subscribed_topic_names if name in self.topics}
        return {topic_id: partitions for topic_id, partitions in self.target_assignment.items()
                if topic_id in read}
