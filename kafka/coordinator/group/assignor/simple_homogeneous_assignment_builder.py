"""SimpleHomogeneousAssignmentBuilder: SimpleAssignor's assignment when every member reads the same
topics (Kafka's org.apache.kafka.coordinator.group.assignor.SimpleHomogeneousAssignmentBuilder).

With N members and P assignable partitions of those topics, each partition should be read by
``desired_sharing = ceil(N / P)`` members and member i by ``desired_assignment_count[i]`` partitions
(desired_sharing * P spread evenly over the members). Starting from the current target:

1. revoke_unassignable_partitions: a member loses the topics nobody reads any more, and is noted as
   short of partitions (unfilled) or with too many (overfilled);
2. revoke_overfilled_members: an overfilled member gives partitions up until it has its count;
3. revoke_overshared_partitions: a partition read by more than desired_sharing members loses some;
4. assign_remaining_partitions: each partition read by fewer than desired_sharing members is given to
   members still short of partitions, in member order, pass after pass while passes give something.

A member's assignment is copied before its first change (``new``); one never changed keeps its old
one. Kafka walks its HashMaps in hash order; this walks partitions in topic-id then partition order
and members in the order of the GroupSpec, so which member gets which partition may differ from
Kafka's, how many each gets does not.
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

TopicIdPartition = tuple[uuid.UUID, int]


class SimpleHomogeneousAssignmentBuilder:
    def __init__(self, group_spec: GroupSpec, partitions_per_topic: dict[uuid.UUID, int]) -> None:
        self.member_ids = list(group_spec.members)
        self.subscribed_topic_ids = group_spec.members[self.member_ids[0]].subscribed_topic_ids
        self.target_partitions: list[TopicIdPartition] = [
            (topic_id, p) for topic_id in sorted(self.subscribed_topic_ids, key=str)
            for p in assignable_partitions(group_spec, topic_id, partitions_per_topic)]
        num_members, num_partitions = len(self.member_ids), len(self.target_partitions)
        self.desired_sharing = desired_sharing(num_members, num_partitions)
        self.desired_assignment_count = desired_assignment_counts(self.desired_sharing, num_partitions,
                                                                  num_members)
        self.old: dict[int, Assignment] = {i: group_spec.members[m].current_assignment
                                           for i, m in enumerate(self.member_ids)}
        self.new: dict[int, MutableAssignment] = {}
        self.final_by_partition: dict[TopicIdPartition, set[int]] = {}
        self.final_by_member: dict[int, set[TopicIdPartition]] = {}
        self.unfilled: set[int] = set()
        self.overfilled: set[int] = set()

    def build(self) -> dict[str, Assignment]:
        if not self.subscribed_topic_ids:
            return {}
        self.revoke_unassignable_partitions()
        self.revoke_overfilled_members()
        self.revoke_overshared_partitions()
        for tp in self.target_partitions:
            self.final_by_partition.setdefault(tp, set())
        self.assign_remaining_partitions()
        return {m: frozen(self.new[i]) if i in self.new else self.old[i]
                for i, m in enumerate(self.member_ids)}

    def writable(self, member: int) -> MutableAssignment:
        if member not in self.new:
            self.new[member] = deep_copy(self.old[member])
        return self.new[member]

    def revoke_unassignable_partitions(self) -> None:
        for member, assignment in self.old.items():
            assigned, desired, changed = 0, self.desired_assignment_count[member], False
            for topic_id in sorted(assignment, key=str):
                if topic_id not in self.subscribed_topic_ids:
                    self.writable(member).pop(topic_id, None)
                    continue
                for p in sorted(assignment[topic_id]):
                    assigned += 1
                    self.final_by_partition.setdefault((topic_id, p), set()).add(member)
                    self.final_by_member.setdefault(member, set()).add((topic_id, p))
                    if assigned >= desired and not changed:
                        self.writable(member)  # Kafka copies here: it may have to give some up
                        changed = True
            if assigned < desired:
                self.unfilled.add(member)
            elif assigned > desired:
                self.overfilled.add(member)

    def revoke_overfilled_members(self) -> None:
        for member in sorted(self.overfilled):
            desired = self.desired_assignment_count[member]
            held = self.final_by_member.get(member, set())
            for topic_id, p in sorted(held, key=_order):
                if len(held) <= desired:
                    break
                self.writable(member).get(topic_id, set()).discard(p)
                self.final_by_partition[(topic_id, p)].discard(member)
                held.discard((topic_id, p))

    def revoke_overshared_partitions(self) -> None:
        for tp in sorted(self.final_by_partition, key=_order):
            readers = self.final_by_partition[tp]
            count = len(readers)
            if count <= self.desired_sharing:
                continue
            for member in sorted(readers):
                partitions = self.writable(member).get(tp[0])
                if partitions is not None and tp[1] in partitions:
                    partitions.discard(tp[1])
                    count -= 1
                    readers.discard(member)
                    self.final_by_member[member].discard(tp)
                    self.unfilled.add(member)
                if count <= self.desired_sharing:
                    break

    def assign_remaining_partitions(self) -> None:
        if not self.unfilled:
            return
        members = UnfilledMembers(self.unfilled)
        assigned_something = False
        for tp in sorted(self.final_by_partition, key=_order):
            readers = self.final_by_partition[tp]
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
                # As Kafka, the partition's reader set is not updated here: a later pass may pick
                # the same member again, which changes nothing but what is still needed.
                self.writable(member).setdefault(tp[0], set()).add(tp[1])
                self.final_by_member.setdefault(member, set()).add(tp)
                needed -= 1
                assigned_something = True
                if len(self.final_by_member[member]) >= self.desired_assignment_count[member]:
                    members.remove()
            if not self.unfilled:
                break


def _order(tp: TopicIdPartition) -> tuple[str, int]:
    return str(tp[0]), tp[1]
