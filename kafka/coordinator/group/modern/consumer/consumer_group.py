"""ConsumerGroup: a group of the KIP-848 consumer protocol (Kafka's
org.apache.kafka.coordinator.group.modern.consumer.ConsumerGroup, with its ConsumerGroupState).

Two epochs describe it. The *group epoch* moves whenever what the assignment depends on changes
(members, their subscriptions, the partitions of the topics they read); the *assignment epoch* is
the group epoch its target assignment was computed for. Each member then has its own epoch, which
reaches the assignment epoch once it holds its target. ``partition_epochs`` records, for every
partition some member holds or still has to give back, the epoch of that member: -1 means free,
which is what lets the coordinator give a partition to its new owner only after the old one let
go. The state follows from the epochs: Empty, Assigning (target not computed yet), Reconciling
(some member not at its target yet), Stable.

A ConsumerGroup in the GroupMetadataManager's timeline map is a value: nobody changes it in place.
A change works on ``copy()`` and puts the copy back, so a snapshot keeps the group as it was and a
failed append's revert brings that back (Kafka keeps the same fields in timeline collections).
"""

from __future__ import annotations

import uuid
from collections import Counter
from enum import Enum

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.group.group import ApiError, CommitPartitionValidator, GroupType
from kafka.coordinator.group.group_coordinator_records import (
    ClassicMemberMetadata,
    ConsumerGroupCurrentMemberAssignmentKey,
    ConsumerGroupMemberMetadataKey,
    ConsumerGroupMetadataKey,
    ConsumerGroupMetadataValue,
    ConsumerGroupTargetAssignmentMemberKey,
    ConsumerGroupTargetAssignmentMemberValue,
    ConsumerGroupTargetAssignmentMetadataKey,
    ConsumerGroupTargetAssignmentMetadataValue,
)
from kafka.coordinator.group.modern.consumer.consumer_group_member import (
    Assignment,
    ConsumerGroupMember,
    MemberState,
)
from kafka.coordinator.group.modern.consumer.target_assignment_builder import TopicMetadata
from kafka.coordinator.group.offset_expiration_condition import (
    COMMIT_TIMESTAMP_EXPIRATION,
    OffsetExpirationCondition,
)
from kafka.coordinator.group.utils import to_topic_partition_map
from kafka.protocol.consumer_protocol import deserialize_assignment, deserialize_subscription
from kafka.protocol.errors import Errors

CONSUMER_PROTOCOL_TYPE = "consumer"


class ConsumerGroupState(Enum):
    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"

    def __str__(self) -> str:
        return self.value


class ConsumerGroup:
    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self.group_epoch = 0
        self.assignment_epoch = 0
        self.members: dict[str, ConsumerGroupMember] = {}
        self.target_assignment: dict[str, Assignment] = {}
        self.partition_epochs: dict[tuple[uuid.UUID, int], int] = {}
        # Not in the records: what the members' subscriptions resolve to in the current topics (regexes
        # matched), and those topics' ids and partition counts, whose change bumps the group epoch.
        self.resolved_subscriptions: dict[str, frozenset[str]] = {}
        self.subscription_metadata: dict[str, TopicMetadata] = {}

    def copy(self) -> ConsumerGroup:
        """What an event changes and puts back (the members themselves are immutable)."""
        other = ConsumerGroup(self.group_id)
        other.group_epoch, other.assignment_epoch = self.group_epoch, self.assignment_epoch
        other.members = dict(self.members)
        other.target_assignment = dict(self.target_assignment)
        other.partition_epochs = dict(self.partition_epochs)
        other.resolved_subscriptions = dict(self.resolved_subscriptions)
        other.subscription_metadata = dict(self.subscription_metadata)
        return other

    @classmethod
    def from_classic_group(cls, classic, topics: dict) -> ConsumerGroup:
        """Kafka's ConsumerGroup.fromClassicGroup, for an online upgrade: the classic group's last
        generation becomes the group and assignment epoch; every member keeps what its last SyncGroup
        gave it, as its current and target assignment, Stable at that epoch, and remembers its classic
        protocols and session timeout. A member that has no assignment yet (the group was rebalancing)
        holds nothing. ValueError when a member's ConsumerProtocol bytes do not parse."""
        group = cls(classic.group_id)
        group.group_epoch = group.assignment_epoch = classic.generation_id
        for m in classic.members.values():
            protocol = classic.protocol_name or m.supported_protocols[0][0]
            subscription = deserialize_subscription(m.metadata(protocol))
            assigned = (to_topic_partition_map(deserialize_assignment(m.assignment).assigned_partitions,
                                               topics)
                        if m.assignment else {})
            member = ConsumerGroupMember(
                m.member_id, member_epoch=classic.generation_id, previous_member_epoch=classic.generation_id,
                state=MemberState.STABLE, instance_id=m.group_instance_id, rack_id=subscription.rack_id,
                rebalance_timeout_ms=m.rebalance_timeout_ms, client_id=m.client_id, client_host=m.client_host,
                subscribed_topic_names=tuple(sorted(subscription.topics)), assigned_partitions=assigned,
                classic_member_metadata=ClassicMemberMetadata(m.session_timeout_ms,
                                                              tuple(m.supported_protocols)),
                assignment_epochs={(t, p): classic.generation_id for t, ps in assigned.items() for p in ps})
            group.target_assignment[m.member_id] = dict(assigned)
            group.update_member(member)
        return group

    # ------------------------------------------------------------------ Group
    def type(self) -> GroupType:
        return GroupType.CONSUMER

    def protocol_type(self) -> str:
        return CONSUMER_PROTOCOL_TYPE

    @property
    def state(self) -> ConsumerGroupState:
        """Kafka's maybeUpdateGroupState, computed from the epochs whenever asked."""
        if not self.members:
            return ConsumerGroupState.EMPTY
        if self.group_epoch > self.assignment_epoch:
            return ConsumerGroupState.ASSIGNING
        if any(not m.is_reconciled_to(self.assignment_epoch) for m in self.members.values()):
            return ConsumerGroupState.RECONCILING
        return ConsumerGroupState.STABLE

    def state_as_string(self) -> str:
        return str(self.state)

    def is_empty(self) -> bool:
        return not self.members

    def is_subscribed_to_topic(self, topic: str) -> bool:
        return topic in self.subscribed_topic_names()

    def validate_offset_commit(self, member_id: str, group_instance_id: str | None,
                               generation_id_or_member_epoch: int, is_transactional: bool,
                               api_version: int) -> CommitPartitionValidator | None:
        """Kafka 4.4's ConsumerGroup.validateOffsetCommit: -1 and no member from outside the group only
        while it is empty; a member of the new protocol commits with OffsetCommit v9+; its current epoch
        is always accepted and a newer one never (STALE_MEMBER_EPOCH). An *older* epoch is checked
        against each partition (KIP-1251, the validator returned): every partition must be one the
        member holds or still revokes, assigned at that epoch or before, or the whole commit is
        STALE_MEMBER_EPOCH. A zombie's commit for a partition since given to someone else is refused; a
        member whose epoch moved on while its commit was in flight is not.

        Transactional (TxnOffsetCommit): a request that names no member at all (member id "", epoch
        -1, no instance id: a producer given only the group id) is accepted even while the group has
        members, as the classic groups accept it.

        A classic member of the group commits with its generation id, its member epoch, and any
        OffsetCommit version; where a member of the new protocol hears STALE_MEMBER_EPOCH it hears
        ILLEGAL_GENERATION, as in a classic group."""
        member_epoch = generation_id_or_member_epoch
        if member_epoch < 0 and not self.members:
            return
        if is_transactional and member_epoch == -1 and member_id == "" and group_instance_id is None:
            return
        member = self.members.get(member_id)
        if member is None:
            raise ApiError(Errors.UNKNOWN_MEMBER_ID)
        stale = Errors.ILLEGAL_GENERATION if member.use_classic_protocol() else Errors.STALE_MEMBER_EPOCH
        if not is_transactional and not member.use_classic_protocol() and api_version < 9:
            raise ApiError(Errors.UNSUPPORTED_VERSION,
                           "OffsetCommit version 9 or above must be used by members "
                           "using the consumer group protocol")
        if member_epoch == member.member_epoch:
            return None
        if member_epoch > member.member_epoch:
            raise ApiError(stale, f"Received member epoch {member_epoch} is newer than current member epoch "
                                  f"{member.member_epoch}.")
        return self.assignment_epoch_validator(member, member_epoch, stale)

    def assignment_epoch_validator(self, member: ConsumerGroupMember, member_epoch: int,
                                   stale: Errors) -> CommitPartitionValidator:
        """Kafka's createAssignmentEpochValidator: assignment epoch <= the epoch sent <= the member's."""
        topic_ids = {name: metadata.topic_id for name, metadata in self.subscription_metadata.items()}

        def validate(topic: str, partition: int) -> None:
            topic_id = topic_ids.get(topic)
            epoch = None if topic_id is None else member.assignment_epoch(topic_id, partition)
            if epoch is None:
                raise ApiError(stale, f"Partition {topic}-{partition} is not assigned or pending revocation "
                                      "for member.")
            if member_epoch < epoch:
                raise ApiError(stale, f"Received member epoch {member_epoch} is older than assignment epoch "
                                      f"{epoch} for partition {topic}-{partition}.")
        return validate

    def validate_offset_fetch(self, member_id: str | None, member_epoch: int) -> None:
        """Kafka's ConsumerGroup.validateOffsetFetch: anyone may read without naming a member (a null
        member id and no epoch: the admin client, an assign()-ing consumer); a member naming itself,
        even as "", must be one, at its current epoch."""
        if member_epoch < 0 and member_id is None:
            return
        member = self.members.get(member_id or "")
        if member is None:
            raise ApiError(Errors.UNKNOWN_MEMBER_ID)
        if member_epoch != member.member_epoch:
            raise ApiError(Errors.STALE_MEMBER_EPOCH)

    def validate_offset_delete(self) -> None:
        """Any time: the topics its members read are refused one by one (GROUP_SUBSCRIBED_TO_TOPIC)."""

    def validate_delete_group(self) -> None:
        if self.members:
            raise ApiError(Errors.NON_EMPTY_GROUP)

    def offset_expiration_condition(self) -> OffsetExpirationCondition | None:
        """A consumer group's offsets expire from their commit time, whatever its state (the topics it
        reads are kept by the caller through is_subscribed_to_topic)."""
        return COMMIT_TIMESTAMP_EXPIRATION

    # ------------------------------------------------------------------ members
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
        self.resolved_subscriptions.pop(member_id, None)

    def remove_partition_epochs(self, member: ConsumerGroupMember) -> None:
        for topic_id, partitions in member.owned_partitions().items():
            for p in partitions:
                if self.partition_epochs.get((topic_id, p)) == member.member_epoch:
                    del self.partition_epochs[(topic_id, p)]

    def current_partition_epoch(self, topic_id: uuid.UUID, partition: int) -> int:
        """The epoch of the member holding the partition, or -1 when nobody does."""
        return self.partition_epochs.get((topic_id, partition), -1)

    def all_members_use_classic_protocol_except(self, member_id: str) -> bool:
        """Kafka's allMembersUseClassicProtocolExcept: the member is of the new protocol, the rest classic."""
        member = self.members.get(member_id)
        return (member is not None and not member.use_classic_protocol()
                and all(m.use_classic_protocol() for m in self.members.values() if m is not member))

    def supports_classic_protocols(self, protocol_type: str, protocols: set[str]) -> bool:
        """Kafka's supportsClassicProtocols: a classic member may join if it speaks the consumer
        embedded protocol and one of its assignors is one every classic member here listed too."""
        if protocol_type != CONSUMER_PROTOCOL_TYPE:
            return False
        classic = [m for m in self.members.values() if m.use_classic_protocol()]
        if not self.members:
            return bool(protocols)
        return any(all(name in {n for n, _ in m.classic_member_metadata.supported_protocols} for m in classic)
                   for name in protocols)

    def waiting_on_unreleased_partition(self, member: ConsumerGroupMember) -> bool:
        """Kafka's waitingOnUnreleasedPartition: a partition of its target is still held by someone."""
        if member.state is not MemberState.UNRELEASED_PARTITIONS:
            return False
        for topic_id, partitions in self.target_assignment.get(member.member_id, {}).items():
            held = member.assigned_partitions.get(topic_id, frozenset())
            if any(p not in held and self.current_partition_epoch(topic_id, p) != -1 for p in partitions):
                return True
        return False

    def subscribed_topic_names(self) -> set[str]:
        return set().union(*self.resolved_subscriptions.values()) if self.resolved_subscriptions else set()

    def preferred_server_assignor(self, default: str) -> str:
        """Kafka's computePreferredServerAssignor: the assignor most members ask for, else the default."""
        asked = Counter(m.server_assignor_name for m in self.members.values() if m.server_assignor_name)
        return min(asked, key=lambda name: (-asked[name], name)) if asked else default

    # ------------------------------------------------------------------ records
    def to_records(self) -> list[CoordinatorRecord]:
        """Every record that describes the group now, in the order a replay wants them: members'
        subscriptions before the group epoch (whose replay refreshes the subscribed topics), the
        target before the members' current assignments."""
        gid = self.group_id
        out = [CoordinatorRecord(ConsumerGroupMemberMetadataKey(gid, m), member.to_member_metadata_value())
               for m, member in self.members.items()]
        out.append(CoordinatorRecord(ConsumerGroupMetadataKey(gid),
                                     ConsumerGroupMetadataValue(self.group_epoch)))
        out += [CoordinatorRecord(ConsumerGroupTargetAssignmentMemberKey(gid, m),
                                  ConsumerGroupTargetAssignmentMemberValue(dict(target)))
                for m, target in self.target_assignment.items()]
        out.append(CoordinatorRecord(ConsumerGroupTargetAssignmentMetadataKey(gid),
                                     ConsumerGroupTargetAssignmentMetadataValue(self.assignment_epoch)))
        out += [CoordinatorRecord(ConsumerGroupCurrentMemberAssignmentKey(gid, m),
                                  member.to_current_assignment_value())
                for m, member in self.members.items()]
        return out

    def create_group_tombstone_records(self) -> list[CoordinatorRecord]:
        """Kafka's ConsumerGroup.createGroupTombstoneRecords: each member's records, the target, and the
        group epoch last, whose replay removes the group."""
        gid = self.group_id
        out = []
        for m in self.members:
            out += [CoordinatorRecord(ConsumerGroupCurrentMemberAssignmentKey(gid, m), None),
                    CoordinatorRecord(ConsumerGroupMemberMetadataKey(gid, m), None)]
        out += [CoordinatorRecord(ConsumerGroupTargetAssignmentMemberKey(gid, m), None)
                for m in self.target_assignment]
        out += [CoordinatorRecord(ConsumerGroupTargetAssignmentMetadataKey(gid), None),
                CoordinatorRecord(ConsumerGroupMetadataKey(gid), None)]
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConsumerGroup) and vars(self) == vars(other)

    __hash__ = None  # a value that compares by its fields, like a dict

    def __repr__(self) -> str:
        return (f"ConsumerGroup(group_id={self.group_id}, group_epoch={self.group_epoch}, "
                f"assignment_epoch={self.assignment_epoch}, state={self.state}, "
                f"members={list(self.members)})")


def records_between(before: ConsumerGroup | None, after: ConsumerGroup) -> list[CoordinatorRecord]:
    """What to write so the log goes from describing ``before`` to describing ``after``: tombstones
    for the parts that went (first, so the group epoch's replay sees the members as they are), then
    the records that changed, in ``to_records`` order."""
    old = {} if before is None else {r.key: r.value for r in before.to_records()}
    new = after.to_records()
    new_keys = {r.key for r in new}
    gone = [CoordinatorRecord(k, None) for k in old if k not in new_keys]
    return gone + [r for r in new if old.get(r.key, _ABSENT) != r.value]


_ABSENT = object()
