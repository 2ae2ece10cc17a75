"""CurrentAssignmentBuilder: one step of a member's reconciliation towards its target assignment
(Kafka's org.apache.kafka.coordinator.group.modern.consumer.CurrentAssignmentBuilder).

KIP-848's rule, "revoke before assign": a member first gives back what its target no longer holds
(UNREVOKED_PARTITIONS, keeping its epoch), and only when its heartbeat no longer lists them does it
move to the target epoch. A partition of its target that another member still owns (its partition
epoch is not -1) is withheld (UNRELEASED_PARTITIONS) until that owner lets it go. No member ever
stops for another: each one converges on its own heartbeats.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from kafka.coordinator.group.modern.consumer.consumer_group_member import (
    Assignment,
    ConsumerGroupMember,
    MemberState,
)


class FencedMemberEpoch(Exception):
    """Kafka's FencedMemberEpochException: the member must drop its partitions and rejoin."""


class CurrentAssignmentBuilder:
    def __init__(self, member: ConsumerGroupMember) -> None:
        self.member = member
        self.target_assignment_epoch = 0
        self.target_assignment: Assignment = {}
        self.current_partition_epoch: Callable[[uuid.UUID, int], int] = lambda topic_id, partition: -1
        self.owned_topic_partitions: Assignment | None = None  # None: the heartbeat did not say

    def with_target_assignment(self, epoch: int, target: Assignment) -> CurrentAssignmentBuilder:
        self.target_assignment_epoch, self.target_assignment = epoch, target
        return self

    def with_current_partition_epoch(self, fn: Callable[[uuid.UUID, int], int]) -> CurrentAssignmentBuilder:
        self.current_partition_epoch = fn
        return self

    def with_owned_topic_partitions(self, owned: Assignment | None) -> CurrentAssignmentBuilder:
        self.owned_topic_partitions = owned
        return self

    def build(self) -> ConsumerGroupMember:
        member = self.member
        if member.state is MemberState.STABLE:
            if member.member_epoch != self.target_assignment_epoch:  # a newer target is out
                return self.compute_next_assignment(member.member_epoch, member.assigned_partitions)
            return member
        if member.state is MemberState.UNREVOKED_PARTITIONS:
            if self.owns_revoked_partitions(member.partitions_pending_revocation):
                return member  # still holds what it must give back: wait for its next heartbeat
            return self.compute_next_assignment(member.member_epoch + 1, member.assigned_partitions)
        if member.state is MemberState.UNRELEASED_PARTITIONS:
            return self.compute_next_assignment(member.member_epoch, member.assigned_partitions)
        if self.owned_topic_partitions is None or any(self.owned_topic_partitions.values()):
            raise FencedMemberEpoch("The consumer group member is in a unknown state.")
        return self.compute_next_assignment(self.target_assignment_epoch, member.assigned_partitions)

    def owns_revoked_partitions(self, revoked: Assignment) -> bool:
        if self.owned_topic_partitions is None:
            return True  # not told otherwise: it still has them
        return any(revoked.get(topic_id, frozenset()) & partitions
                   for topic_id, partitions in self.owned_topic_partitions.items())

    def compute_next_assignment(self, member_epoch: int, assigned: Assignment) -> ConsumerGroupMember:
        has_unreleased = False
        new_assigned: dict[uuid.UUID, frozenset[int]] = {}
        pending_revocation: dict[uuid.UUID, frozenset[int]] = {}
        pending_assignment: dict[uuid.UUID, frozenset[int]] = {}
        for topic_id in set(self.target_assignment) | set(assigned):
            target = self.target_assignment.get(topic_id, frozenset())
            current = assigned.get(topic_id, frozenset())
            kept = current & target
            revoke = current - kept
            free = {p for p in target - kept if self.current_partition_epoch(topic_id, p) == -1}
            has_unreleased = has_unreleased or len(free) < len(target - kept)
            for into, partitions in ((new_assigned, kept), (pending_revocation, revoke),
                                     (pending_assignment, frozenset(free))):
                if partitions:
                    into[topic_id] = frozenset(partitions)
        member = self.member
        if pending_revocation and self.owns_revoked_partitions(pending_revocation):
            # Revoke first: the member keeps its epoch and only what it keeps; nothing new yet.
            return member.with_(state=MemberState.UNREVOKED_PARTITIONS, member_epoch=member_epoch,
                                assigned_partitions=new_assigned,
                                partitions_pending_revocation=pending_revocation,
                                assignment_epochs=self.assignment_epochs(new_assigned, pending_revocation))
        for topic_id, partitions in pending_assignment.items():
            new_assigned[topic_id] = new_assigned.get(topic_id, frozenset()) | partitions
        state = MemberState.UNRELEASED_PARTITIONS if has_unreleased else MemberState.STABLE
        return member.with_(state=state, member_epoch=self.target_assignment_epoch,
                            assigned_partitions=new_assigned, partitions_pending_revocation={},
                            assignment_epochs=self.assignment_epochs(new_assigned, {}))

    def assignment_epochs(self, assigned: Assignment, pending_revocation: Assignment) -> dict:
        """KIP-1251: a partition the member already had keeps the epoch it was assigned at; a new one
        is assigned at the target's epoch."""
        old = self.member.assignment_epochs
        return {(t, p): old.get((t, p), self.target_assignment_epoch)
                for a in (assigned, pending_revocation) for t, ps in a.items() for p in ps}
