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

from kafka.coordinator.group.group_coordinator_records import (
    Assignment,
    ClassicMemberMetadata,
    ConsumerGroupCurrentMemberAssignmentValue,
    ConsumerGroupMemberMetadataValue,
)


class MemberState(Enum):
    """Kafka's MemberState: where the member is in its reconciliation."""

    STABLE = "stable"  # it has its target assignment (or all of it that is free yet)
    UNREVOKED_PARTITIONS = "unrevoked_partitions"  # asked to give partitions back; waits for its ack
    UNRELEASED_PARTITIONS = "unreleased_partitions"  # waits for partitions another member still holds
    UNKNOWN = "unknown"

    def to_byte(self) -> int:
        """As ConsumerGroupCurrentMemberAssignmentValue stores it (Kafka's MemberState.value())."""
        return _STATE_BYTES[self]

    @staticmethod
    def from_byte(value: int) -> MemberState:
        return _STATES.get(value, MemberState.UNKNOWN)


# Kafka 4.4's bytes, so that __consumer_offsets reads the same to its tools (kafka-dump-log's
# --offsets-decoder) and to ours.
_STATE_BYTES = {MemberState.STABLE: 0, MemberState.UNREVOKED_PARTITIONS: 1,
                MemberState.UNRELEASED_PARTITIONS: 2, MemberState.UNKNOWN: 127}
_STATES = {b: s for s, b in _STATE_BYTES.items()}


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
    # set for a member that speaks the classic protocol (JoinGroup/SyncGroup/Heartbeat) in this group
    classic_member_metadata: ClassicMemberMetadata | None = None
    # KIP-1251: (topic id, partition) -> the member epoch it was assigned at, for every partition it
    # holds or must still revoke; an offset commit with an older epoch is accepted for a partition
    # assigned at that epoch or before
    assignment_epochs: dict[tuple[uuid.UUID, int], int] = field(default_factory=dict)

    def with_(self, **changes) -> ConsumerGroupMember:
        """Kafka's ConsumerGroupMember.Builder: a copy with some fields changed (members are immutable,
        so the group can compare the old member with the new one)."""
        if "member_epoch" in changes and changes["member_epoch"] != self.member_epoch:
            changes.setdefault("previous_member_epoch", self.member_epoch)  # Builder.updateMemberEpoch
        return dataclasses.replace(self, **changes)

    def is_reconciled_to(self, target_assignment_epoch: int) -> bool:
        return self.state is MemberState.STABLE and self.member_epoch == target_assignment_epoch

    def use_classic_protocol(self) -> bool:
        return self.classic_member_metadata is not None

    def classic_protocol_session_timeout_ms(self) -> int | None:
        metadata = self.classic_member_metadata
        return None if metadata is None else metadata.session_timeout_ms

    def classic_protocol_name(self) -> str:
        """The protocol its JoinGroup answer named: the first the member listed (Kafka's choice)."""
        return self.classic_member_metadata.supported_protocols[0][0]

    def assignment_epoch(self, topic_id: uuid.UUID, partition: int) -> int | None:
        """Kafka's assignmentEpoch / pendingRevocationEpoch: None if it neither holds nor revokes it."""
        return self.assignment_epochs.get((topic_id, partition))

    def owned_partitions(self) -> Assignment:
        """What counts as this member's for the group's partition epochs: assigned and not yet revoked."""
        owned = dict(self.assigned_partitions)
        for topic_id, partitions in self.partitions_pending_revocation.items():
            owned[topic_id] = owned.get(topic_id, frozenset()) | partitions
        return owned


    # ------------------------------------------------------------------ as records
    # (the records Kafka's GroupCoordinatorRecordHelpers builds from a member)
    def to_member_metadata_value(self) -> ConsumerGroupMemberMetadataValue:
        return ConsumerGroupMemberMetadataValue(
            instance_id=self.instance_id, rack_id=self.rack_id, client_id=self.client_id,
            client_host=self.client_host, subscribed_topic_names=tuple(self.subscribed_topic_names),
            subscribed_topic_regex=self.subscribed_topic_regex,
            rebalance_timeout_ms=self.rebalance_timeout_ms,
            server_assignor=self.server_assignor_name, classic_member_metadata=self.classic_member_metadata)

    def to_current_assignment_value(self) -> ConsumerGroupCurrentMemberAssignmentValue:
        return ConsumerGroupCurrentMemberAssignmentValue(
            member_epoch=self.member_epoch, previous_member_epoch=self.previous_member_epoch,
            state=self.state.to_byte(), assigned_partitions=dict(self.assigned_partitions),
            partitions_pending_revocation=dict(self.partitions_pending_revocation),
            assignment_epochs={(t, p): self.assignment_epochs.get((t, p), self.member_epoch)
                               for a in (self.assigned_partitions, self.partitions_pending_revocation)
                               for t, ps in a.items() for p in ps})

    def with_member_metadata(self, value: ConsumerGroupMemberMetadataValue) -> ConsumerGroupMember:
        """Replay of a ConsumerGroupMemberMetadata record (Kafka's Builder.updateWith)."""
        return dataclasses.replace(
            self, instance_id=value.instance_id, rack_id=value.rack_id, client_id=value.client_id,
            client_host=value.client_host, subscribed_topic_names=tuple(value.subscribed_topic_names),
            subscribed_topic_regex=value.subscribed_topic_regex,
            rebalance_timeout_ms=value.rebalance_timeout_ms,
            server_assignor_name=value.server_assignor, classic_member_metadata=value.classic_member_metadata)

    def with_current_assignment(self,
                                value: ConsumerGroupCurrentMemberAssignmentValue) -> ConsumerGroupMember:
        """Replay of a ConsumerGroupCurrentMemberAssignment record. One written before KIP-1251 has no
        assignment epochs: each partition counts as assigned at the member's epoch."""
        epochs = value.assignment_epochs
        if epochs is None:
            epochs = {(t, p): value.member_epoch
                      for a in (value.assigned_partitions, value.partitions_pending_revocation)
                      for t, ps in a.items() for p in ps}
        return dataclasses.replace(
            self, member_epoch=value.member_epoch, previous_member_epoch=value.previous_member_epoch,
            state=MemberState.from_byte(value.state), assigned_partitions=dict(value.assigned_partitions),
            partitions_pending_revocation=dict(value.partitions_pending_revocation),
            assignment_epochs=dict(epochs))


def count_partitions(assignment: Assignment) -> int:
    return sum(len(p) for p in assignment.values())
