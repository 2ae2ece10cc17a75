"""ShareGroup: a group of the KIP-932 share protocol (Kafka's
org.apache.kafka.coordinator.group.modern.share.ShareGroup, with its ShareGroupState).

A share group reads its topics together: the same partition may be given to several members, and
the broker leading it hands each record to one of them at a time (a SharePartition, on that broker).
So the group itself is simple. Its *group epoch* moves when a member joins or leaves, changes what it
reads, or when the subscribed topics change (their metadata hash); its *assignment epoch* is the group
epoch its target assignment was computed for (by the SimpleAssignor); a member's own epoch reaches the
assignment epoch at its next heartbeat, with its whole target. It is Empty without members and Stable
with them: nothing in between, since nobody waits for anybody to give a partition back.

It starts at group epoch 1 with an assignment at epoch 1, as Kafka 4.4's ModernGroup does, so its
first member is given epoch 2.

A ShareGroup in the GroupMetadataManager's timeline map is a value: a change works on ``copy()`` and
puts the copy back, so a snapshot keeps the group as it was and a failed append's revert brings that
back (Kafka keeps the same fields in timeline collections).
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.group.assignor.share_group_partition_assignor import SubscriptionType
from kafka.coordinator.group.group import ApiError, CommitPartitionValidator, GroupType
from kafka.coordinator.group.group_coordinator_records import (
    Assignment,
    ShareGroupCurrentMemberAssignmentKey,
    ShareGroupMemberMetadataKey,
    ShareGroupMetadataKey,
    ShareGroupStatePartitionMetadataKey,
    ShareGroupTargetAssignmentMemberKey,
    ShareGroupTargetAssignmentMetadataKey,
)
from kafka.coordinator.group.modern.share.share_group_member import ShareGroupMember
from kafka.protocol.errors import Errors

SHARE_PROTOCOL_TYPE = "share"  # Kafka's ShareGroup.PROTOCOL_TYPE, what ListGroups shows


class ShareGroupState(Enum):
    EMPTY = "Empty"
    STABLE = "Stable"
    DEAD = "Dead"
    UNKNOWN = "Unknown"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class InitMapValue:
    """Kafka's ShareGroup.InitMapValue: a topic's name, some of its partitions, and when they were
    asked for (ms; an initializing partition asked for longer ago than
    group.share.initialize.retry.interval.ms is asked for again)."""

    name: str
    partitions: frozenset[int]
    timestamp: int = -1


@dataclass(frozen=True)
class ShareGroupStatePartitionMetadataInfo:
    """Kafka's ShareGroup.ShareGroupStatePartitionMetadataInfo, what a ShareGroupStatePartitionMetadata
    record holds: the partitions whose share state the share coordinator is initializing, those it
    has initialized (the only ones the SimpleAssignor may hand out), and the topics being deleted."""

    initializing_topics: dict[uuid.UUID, InitMapValue] = field(default_factory=dict)
    initialized_topics: dict[uuid.UUID, InitMapValue] = field(default_factory=dict)
    deleting_topics: frozenset[uuid.UUID] = frozenset()


def combine_init_maps(first: dict[uuid.UUID, InitMapValue],
                      second: dict[uuid.UUID, InitMapValue]) -> dict[uuid.UUID, InitMapValue]:
    """Kafka's combineInitMaps: both maps' partitions, topic by topic; the name and time of ``second``
    where it has the topic."""
    out = {}
    for topic_id in first.keys() | second.keys():
        a, b = first.get(topic_id), second.get(topic_id)
        partitions = (a.partitions if a else frozenset()) | (b.partitions if b else frozenset())
        latest = b or a
        out[topic_id] = InitMapValue(latest.name, partitions, latest.timestamp)
    return out


class ShareGroup:
    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self.group_epoch = 1
        self.assignment_epoch = 1  # Kafka's TargetAssignmentMetadata.INITIAL
        self.assignment_timestamp = 0  # when the target was computed (ms); 0: never
        self.metadata_hash = 0
        self.members: dict[str, ShareGroupMember] = {}
        self.target_assignment: dict[str, Assignment] = {}
        self.subscribed_topic_names: Counter[str] = Counter()  # topic name -> how many members read it

    def copy(self) -> ShareGroup:
        """What an event changes and puts back (the members themselves are immutable)."""
        other = ShareGroup(self.group_id)
        other.group_epoch, other.assignment_epoch = self.group_epoch, self.assignment_epoch
        other.assignment_timestamp, other.metadata_hash = self.assignment_timestamp, self.metadata_hash
        other.members = dict(self.members)
        other.target_assignment = dict(self.target_assignment)
        other.subscribed_topic_names = Counter(self.subscribed_topic_names)
        return other

    # ------------------------------------------------------------------ Group
    def type(self) -> GroupType:
        return GroupType.SHARE

    def protocol_type(self) -> str:
        return SHARE_PROTOCOL_TYPE

    @property
    def state(self) -> ShareGroupState:
        """Kafka's maybeUpdateGroupState: Empty without members, else Stable."""
        return ShareGroupState.STABLE if self.members else ShareGroupState.EMPTY

    def state_as_string(self) -> str:
        return str(self.state)

    def is_empty(self) -> bool:
        return not self.members

    def is_subscribed_to_topic(self, topic: str) -> bool:
        return self.subscribed_topic_names[topic] > 0

    def validate_offset_commit(self, member_id: str, group_instance_id: str | None,
                               generation_id_or_member_epoch: int, is_transactional: bool,
                               api_version: int) -> CommitPartitionValidator | None:
        """A share group keeps no committed offsets (its share partitions keep their state in the share
        coordinator): OffsetCommit to it is GROUP_ID_NOT_FOUND, as Kafka answers."""
        raise self.not_a_consumer_group()

    def validate_offset_fetch(self, member_id: str | None, member_epoch: int) -> None:
        raise self.not_a_consumer_group()

    def validate_offset_delete(self) -> None:
        raise self.not_a_consumer_group()

    def not_a_consumer_group(self) -> ApiError:
        return ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {self.group_id} is not a consumer group.")

    def offset_expiration_condition(self) -> None:
        """None: nothing of a share group expires by offsets.retention.minutes (it has no offsets)."""
        return None

    def validate_delete_group(self) -> None:
        """Kafka's validateEmptyGroup: only an Empty share group may be deleted."""
        if self.members:
            raise ApiError(Errors.NON_EMPTY_GROUP)

    # ------------------------------------------------------------------ members
    def update_member(self, member: ShareGroupMember) -> None:
        old = self.members.get(member.member_id)
        self.members[member.member_id] = member
        self.subscribed_topic_names = self.compute_subscribed_topic_names(old, member)

    def remove_member(self, member_id: str) -> None:
        old = self.members.pop(member_id, None)
        if old is not None:
            self.subscribed_topic_names = self.compute_subscribed_topic_names(old, None)

    def compute_subscribed_topic_names(self, old: ShareGroupMember | None,
                                       new: ShareGroupMember | None) -> Counter[str]:
        """Kafka's computeSubscribedTopicNames: the group's topic counts as they would be with ``old``
        replaced by ``new`` (either may be None), the group itself unchanged."""
        counts = Counter(self.subscribed_topic_names)
        if old is not None:
            counts.subtract(old.subscribed_topic_names)
        if new is not None:
            counts.update(new.subscribed_topic_names)
        return +counts  # drops the topics nobody reads any more

    def subscription_type(self) -> SubscriptionType:
        return subscription_type(self.subscribed_topic_names, len(self.members))

    # ------------------------------------------------------------------ records
    def create_group_tombstone_records(self) -> list[CoordinatorRecord]:
        """Kafka's ShareGroup.createGroupTombstoneRecords, in its order: the members' current
        assignments, their targets, the target's epoch, their subscriptions, the share state's
        partitions, and the group epoch last, whose replay removes the group."""
        gid = self.group_id
        out = [CoordinatorRecord(ShareGroupCurrentMemberAssignmentKey(gid, m), None) for m in self.members]
        out += [CoordinatorRecord(ShareGroupTargetAssignmentMemberKey(gid, m), None) for m in self.members]
        out.append(CoordinatorRecord(ShareGroupTargetAssignmentMetadataKey(gid), None))
        out += [CoordinatorRecord(ShareGroupMemberMetadataKey(gid, m), None) for m in self.members]
        out += [CoordinatorRecord(ShareGroupStatePartitionMetadataKey(gid), None),
                CoordinatorRecord(ShareGroupMetadataKey(gid), None)]
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShareGroup) and vars(self) == vars(other)

    __hash__ = None  # a value that compares by its fields, like a dict

    def __repr__(self) -> str:
        return (f"ShareGroup(group_id={self.group_id}, group_epoch={self.group_epoch}, "
                f"assignment_epoch={self.assignment_epoch}, state={self.state}, "
                f"members={list(self.members)})")


def subscription_type(subscribed_topic_names: Counter[str], num_members: int) -> SubscriptionType:
    """Kafka's ModernGroup.subscriptionType: HOMOGENEOUS when every member reads every topic read."""
    if all(count == num_members for count in subscribed_topic_names.values()):
        return SubscriptionType.HOMOGENEOUS
    return SubscriptionType.HETEROGENEOUS


def topic_ids_of(names, topics: dict[str, tuple[uuid.UUID, int]]) -> frozenset[uuid.UUID]:
    """Kafka's TopicIds: the ids of the named topics that exist now."""
    return frozenset(topics[name][0] for name in names if name in topics)
