"""SimpleHeterogeneousAssignmentBuilder: SimpleAssignor's assignment when members read different
topics (Kafka's org.apache.kafka.coordinator.group.assignor.SimpleHeterogeneousAssignmentBuilder).

Topic by topic, the steps of the homogeneous case among that topic's readers only: each of its
assignable partitions should be read by ceil(readers / partitions) of them, and each reader given
its share of the topic's partitions; a member that stopped reading the topic has a share of zero,
so it gives the topic's partitions up. The members' new assignments are shared by all topics' steps
(a member's copy is made once, at its first change). A topic that nobody reads any more is left in
the targets it was in, as Kafka leaves it; each member's current assignment only ever keeps the
topics it reads (ShareGroupAssignmentBuilder).

Partitions are walked in order and members in GroupSpec order, where Kafka walks its HashMaps.
"""

from __future__ import annotations

import uuid

from kafka.coordinator.group.assignor.assignor_helpers import (
    MutableAssignment,
    UnfilledMembers,
    assignable_partitions,
    deep_copy,
    desired_assignment_counts,
    desired_sharing,
    frozen,
)
from kafka.coordinator.group.assignor.share_group_partition_assignor import GroupSpec
from kafka.coordinator.group.group_coordinator_records import Assignment


class SimpleHeterogeneousAssignmentBuilder:
    def __init__(self, group_spec: GroupSpec, partitions_per_topic: dict[uuid.UUID, int]) -> None:
        self.member_ids = list(group_spec.members)
        self.subscribed_topic_ids: set[uuid.UUID] = set().union(
            *(spec.subscribed_topic_ids for spec in group_spec.members.values()))
        self.target_partitions = {topic_id: assignable_partitions(group_spec, topic_id, partitions_per_topic)
                                  for topic_id in self.subscribed_topic_ids}
        self.subscribed_members: dict[uuid.UUID, list[int]] = {}
        for i, member_id in enumerate(self.member_ids):
            for topic_id in group_spec.members[member_id].subscribed_topic_ids:
                self.subscribed_members.setdefault(topic_id, []).append(i)
        self.old: dict[int, Assignment] = {i: group_spec.members[m].current_assignment
                                           for i, m in enumerate(self.member_ids)}
        self.new: dict[int, MutableAssignment] = {}

    def build(self) -> dict[str, Assignment]:
        if not self.subscribed_topic_ids:
            return {}
        for topic_id in sorted(self.subscribed_topic_ids, key=str):
            TopicAssignmentPartialBuilder(self, topic_id).build()
        return {m: frozen(self.new[i]) if i in self.new else self.old[i]
                for i, m in enumerate(self.member_ids)}

    def writable(self, member: int) -> MutableAssignment:
        if member not in self.new:
            self.new[member] = deep_copy(self.old[member])
        return self.new[member]


class TopicAssignmentPartialBuilder:
    """Kafka's SimpleHeterogeneousAssignmentBuilder.TopicAssignmentPartialBuilder: one topic's share."""

    def __init__(self, owner: SimpleHeterogeneousAssignmentBuilder, topic_id: uuid.UUID) -> None:
        self.owner = owner
        self.topic_id = topic_id
        self.target_partitions = owner.target_partitions[topic_id]
        self.subscribed_members = owner.subscribed_members[topic_id]
        num_partitions, num_readers = len(self.target_partitions), len(self.subscribed_members)
        self.desired_sharing = desired_sharing(num_readers, num_partitions)
        counts = desired_assignment_counts(self.desired_sharing, num_partitions, num_readers)
        self.desired_assignment_counts = [0] * len(owner.member_ids)  # a member not reading it: none
        for member, count in zip(self.subscribed_members, counts, strict=True):
            self.desired_assignment_counts[member] = count
        self.final_by_partition: dict[int, set[int]] = {}
        self.final_by_member: dict[int, set[int]] = {}

    def build(self) -> None:
        self.revoke_unassignable_partitions()
        self.revoke_overfilled_members()
        self.revoke_overshared_partitions()
        for p in self.target_partitions:
            self.final_by_partition.setdefault(p, set())
        self.assign_remaining_partitions()

    def revoke_unassignable_partitions(self) -> None:
        """What each member holds of this topic now (the topic is read by someone, or it would not be
        built: Kafka's revoke branch for an unread topic never runs here)."""
        for member, assignment in self.owner.old.items():
            for p in sorted(assignment.get(self.topic_id, ())):
                self.final_by_partition.setdefault(p, set()).add(member)
                self.final_by_member.setdefault(member, set()).add(p)

    def revoke_overfilled_members(self) -> None:
        for member in sorted(self.final_by_member):
            held, desired = self.final_by_member[member], self.desired_assignment_counts[member]
            for p in sorted(held):
                if len(held) <= desired:
                    break
                self.final_by_partition[p].discard(member)
                held.discard(p)
                self.owner.writable(member)[self.topic_id].discard(p)

    def revoke_overshared_partitions(self) -> None:
        for p in sorted(self.final_by_partition):
            readers = self.final_by_partition[p]
            count = len(readers)
            if count <= self.desired_sharing:
                continue
            for member in sorted(readers):
                partitions = self.owner.writable(member).get(self.topic_id)
                if partitions is not None and p in partitions:
                    partitions.discard(p)
                    count -= 1
                    readers.discard(member)
                    self.final_by_member[member].discard(p)
                if count <= self.desired_sharing:
                    break

    def assign_remaining_partitions(self) -> None:
        unfilled = {m for m in self.subscribed_members
                    if len(self.final_by_member.get(m, ())) < self.desired_assignment_counts[m]}
        members = UnfilledMembers(unfilled)
        assigned_something = False
        for p in sorted(self.final_by_partition):
            readers = self.final_by_partition[p]
            needed = self.desired_sharing - len(readers)
            while needed > 0:
                if not members.has_next():
                    if not assigned_something:
                        break
                    members.restart()
                    assigned_something = False
                    if not members.has_next():  # everyone is full (Java's iterator would throw here)
                        break
                member = members.next()
                if member in readers:
                    continue
                self.owner.writable(member).setdefault(self.topic_id, set()).add(p)
                self.final_by_member.setdefault(member, set()).add(p)
                needed -= 1
                assigned_something = True
                if len(self.final_by_member[member]) >= self.desired_assignment_counts[member]:
                    members.remove()
            if not unfilled:
                break
