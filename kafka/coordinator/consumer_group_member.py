"""ConsumerGroupMember: one member of a KIP-848 consumer group (Kafka's
org.apache.kafka.coordinator.group.modern.consumer.ConsumerGroupMember and modern.MemberState).

KIP-848: each member carries its own *member epoch*. It reaches the group's target epoch only once
it holds what the target gives it, and it may only be given a partition after the partition's
previous owner said it let go. So besides the partitions it may use now (``assigned_partitions``)
a member can hold partitions it was asked to give back (``partitions_pending_revocation``); its
``state`` says which step of that reconciliation it is at. Assignments map topic ids to sets of
partition indexes, as Kafka's do.
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass, field
from enum import Enum

Assignment = dict[uuid.UUID, frozenset[int]]


class MemberState(Enum):
    """Kafka's MemberState: where the member is in its reconciliation."""

    STABLE = "stable"  # it has its target assignment (or all of it that is free yet)
    UNREVOKED_PARTITIONS = "unrevoked_partitions"  # asked to give partitions back; waits for its ack
    UNRELEASED_PARTITIONS = "unreleased_partitions"  # waits for partitions another member still holds
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class ConsumerGroupMember:
    member_id: str
    member_epoch: int = 0
    previous_member_epoch: int = -1
    state: MemberState = MemberState.STABLE
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: tuple[str, ...] = ()
    subscribed_topic_regex: str | None = None
    server_assignor_name: str | None = None
    assigned_partitions: Assignment = field(default_factory=dict)
    partitions_pending_revocation: Assignment = field(default_factory=dict)

    def with_(self, **changes) -> ConsumerGroupMember:
        """Kafka's ConsumerGroupMember.Builder: a copy with some fields changed (members are immutable,
        so the group can compare the old member with the new one)."""
        if "member_epoch" in changes and changes["member_epoch"] != self.member_epoch:
            changes.setdefault("previous_member_epoch", self.member_epoch)  # Builder.updateMemberEpoch
        return dataclasses.replace(self, **changes)

    def is_reconciled_to(self, target_assignment_epoch: int) -> bool:
        return self.state is MemberState.STABLE and self.member_epoch == target_assignment_epoch

    def owned_partitions(self) -> Assignment:
        """What counts as this member's for the group's partition epochs: assigned and not yet revoked."""
        owned = dict(self.assigned_partitions)
        for topic_id, partitions in self.partitions_pending_revocation.items():
            owned[topic_id] = owned.get(topic_id, frozenset()) | partitions
        return owned


def count_partitions(assignment: Assignment) -> int:
    return sum(len(p) for p in assignment.values())
