"""ConsumerGroup: a group of the KIP-848 consumer protocol, held by its coordinator (Kafka's
org.apache.kafka.coordinator.group.modern.consumer.ConsumerGroup).

Two epochs describe it. The *group epoch* moves whenever what the assignment depends on changes
(members, their subscriptions, the partitions of the topics they read); the *assignment epoch* is
the group epoch its target assignment was computed for. Each member then has its own epoch, which
reaches the assignment epoch once it holds its target. ``partition_epochs`` records, for every
partition some member holds or still has to give back, the epoch of that member: -1 means free,
which is what lets the coordinator give a partition to its new owner only after the old one let
go. The state follows from the epochs (Kafka's ConsumerGroupState): Empty, Assigning (target not
computed yet), Reconciling (some member not at its target yet), Stable.

Offsets stay where the classic protocol keeps them: a classic GroupMetadata with no members
holds this group's committed offsets in the GroupMetadataManager (``__consumer_offsets``).
"""

from __future__ import annotations

import uuid
from collections import Counter
from enum import Enum

from kafka.coordinator.consumer_group_member import Assignment, ConsumerGroupMember
from kafka.coordinator.target_assignment_builder import TopicMetadata
from kafka.protocol.errors import Errors


class ConsumerGroupState(Enum):
    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"

    def __str__(self) -> str:
        return self.value


class ConsumerGroup:
    group_type = "consumer"
    protocol_type = "consumer"

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self.group_epoch = 0
        self.assignment_epoch = 0
        self.state = ConsumerGroupState.EMPTY
        self.members: dict[str, ConsumerGroupMember] = {}
        self.target_assignment: dict[str, Assignment] = {}
        self.partition_epochs: dict[tuple[uuid.UUID, int], int] = {}
        self.subscription_metadata: dict[str, TopicMetadata] = {}
        self.resolved_subscriptions: dict[str, set[str]] = {}  # member id -> topic names, regex resolved
        self.assignor_name = ""
        self.session_deadlines: dict[str, int] = {}  # member id -> when its session ends (ms)
        self.revocation_deadlines: dict[str, int] = {}  # member id -> when it must have revoked (ms)
        self.written: dict = {}  # the records __consumer_offsets holds for it (consumer_group_records.py)

    # ------------------------------------------------------------------ members
    def is_empty(self) -> bool:
        return not self.members

    def update_member(self, member: ConsumerGroupMember) -> None:
        """Kafka's updateMember: the new member replaces the old, and so do its partition epochs."""
        old = self.members.get(member.member_id)
        if old is not None:
            self.remove_partition_epochs(old)
        self.members[member.member_id] = member
        for topic_id, partitions in member.owned_partitions().items():
            for p in partitions:
                self.partition_epochs[(topic_id, p)] = member.member_epoch

    def remove_member(self, member_id: str) -> None:
        old = self.members.pop(member_id, None)
        if old is not None:
            self.remove_partition_epochs(old)
        self.target_assignment.pop(member_id, None)
        self.resolved_subscriptions.pop(member_id, None)
        self.session_deadlines.pop(member_id, None)
        self.revocation_deadlines.pop(member_id, None)

    def remove_partition_epochs(self, member: ConsumerGroupMember) -> None:
        for topic_id, partitions in member.owned_partitions().items():
            for p in partitions:
                if self.partition_epochs.get((topic_id, p)) == member.member_epoch:
                    del self.partition_epochs[(topic_id, p)]

    def current_partition_epoch(self, topic_id: uuid.UUID, partition: int) -> int:
        """The epoch of the member holding the partition, or -1 when nobody does."""
        return self.partition_epochs.get((topic_id, partition), -1)

    def subscribed_topic_names(self) -> set[str]:
        return set().union(*self.resolved_subscriptions.values()) if self.resolved_subscriptions else set()

    def preferred_server_assignor(self, default: str) -> str:
        """Kafka's computePreferredServerAssignor: the assignor most members ask for, else the default."""
        asked = Counter(m.server_assignor_name for m in self.members.values() if m.server_assignor_name)
        return min(asked, key=lambda name: (-asked[name], name)) if asked else default

    # ------------------------------------------------------------------ state
    def update_state(self) -> None:
        """Kafka's maybeUpdateGroupState."""
        if not self.members:
            self.state = ConsumerGroupState.EMPTY
        elif self.group_epoch > self.assignment_epoch:
            self.state = ConsumerGroupState.ASSIGNING
        elif any(not m.is_reconciled_to(self.assignment_epoch) for m in self.members.values()):
            self.state = ConsumerGroupState.RECONCILING
        else:
            self.state = ConsumerGroupState.STABLE

    # ------------------------------------------------------------------ offsets
    def validate_offset_commit(self, member_id: str, member_epoch: int, is_transactional: bool,
                               api_version: int, group_instance_id: str | None = None) -> Errors | None:
        """Kafka's ConsumerGroup.validateOffsetCommit: -1 and no member from outside the group only
        while it is empty; a member must commit with its current epoch (STALE_MEMBER_EPOCH when
        older, FENCED_MEMBER_EPOCH... is what Kafka answers a newer one) and OffsetCommit v9+.

        Transactional (TxnOffsetCommit): a request that names no member at all (member id "", epoch
        -1, no instance id: a producer given only the group id) is accepted even while the group has
        members, as the classic groups accept it; and any epoch but the member's is stale. Kafka 4.4
        accepts an older epoch for a partition the member was assigned at that epoch or before and
        still holds; this broker does not keep the epoch each partition was assigned at, so it counts
        every partition as assigned at the member's current epoch, and an older epoch is stale too."""
        if member_epoch < 0 and not self.members:
            return None
        if is_transactional and member_epoch == -1 and member_id == "" and group_instance_id is None:
            return None
        member = self.members.get(member_id)
        if member is None:
            return Errors.UNKNOWN_MEMBER_ID
        if not is_transactional and api_version < 9:
            return Errors.UNSUPPORTED_VERSION  # members of the consumer protocol commit with v9+
        if member_epoch == member.member_epoch:
            return None
        if member_epoch > member.member_epoch and not is_transactional:
            return Errors.FENCED_MEMBER_EPOCH
        return Errors.STALE_MEMBER_EPOCH

    def validate_offset_fetch(self, member_id: str | None, member_epoch: int) -> Errors | None:
        """Kafka's ConsumerGroup.validateOffsetFetch: anyone may read without naming a member; a
        member naming itself must be current."""
        if member_epoch < 0 and not member_id:
            return None
        member = self.members.get(member_id or "")
        if member is None:
            return Errors.UNKNOWN_MEMBER_ID
        if member_epoch != member.member_epoch:
            return Errors.STALE_MEMBER_EPOCH
        return None
