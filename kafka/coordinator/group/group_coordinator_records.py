"""The records of ``__consumer_offsets``, typed (Kafka's group-coordinator/src/main/resources/common/
message/*Key.json and *Value.json, and GroupCoordinatorRecordHelpers, which builds them).

Every record's key starts with an int16 that says what the record is about, its *key type* (Kafka's
record type). Compaction keeps the latest record of each key, and a tombstone (no value) deletes it:

    0, 1  OffsetCommitKey(group, topic, partition)        -> OffsetAndMetadata (one committed offset)
    2     GroupMetadataKey(group)                         -> GroupMetadataValue (a classic group's generation)
    3     ConsumerGroupMetadataKey(group_id)              -> ConsumerGroupMetadataValue (the group epoch)
    5     ConsumerGroupMemberMetadataKey(group_id, member_id)  -> one member's subscription and client
    6     ConsumerGroupTargetAssignmentMetadataKey(group_id)   -> the assignment epoch
    7     ConsumerGroupTargetAssignmentMemberKey(group_id, member_id) -> one member's target partitions
    8     ConsumerGroupCurrentMemberAssignmentKey(group_id, member_id) -> a member's epoch, state, partitions
    10    ShareGroupMemberMetadataKey(group_id, member_id)     -> a share member's subscription and client
    11    ShareGroupMetadataKey(group_id)                      -> the share group's epoch and metadata hash
    12    ShareGroupTargetAssignmentMetadataKey(group_id)      -> the assignment epoch and its timestamp
    13    ShareGroupTargetAssignmentMemberKey(group_id, member_id) -> one share member's target partitions
    14    ShareGroupCurrentMemberAssignmentKey(group_id, member_id) -> one share member's epoch and partitions
    15    ShareGroupStatePartitionMetadataKey(group_id)        -> the partitions whose share state the share
                                                              coordinator has initialized, or is initializing

(Key type 9 was KIP-932's ShareGroupPartitionMetadata, gone by Kafka 4.4: a share group keeps a
metadata hash in its ShareGroupMetadata record instead.) The consumer groups' schemas are the old
coordinator's, byte for byte (``group_coordinator_record_serde.py`` writes and
reads them), so a log an older broker wrote loads here. A GroupMetadataValue is what the classic group
writes: a dict of its fields (ClassicGroup builds it), read back as a Record with the same fields.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Bytes, Int8, Int32, Int64, String, Uuid

GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"

Assignment = dict[uuid.UUID, frozenset[int]]  # topic id -> partition indexes

# ------------------------------------------------------------------ classic records (key types 0-2)
OFFSET_COMMIT_KEY = Schema(
    "OffsetCommitKey",
    Field("group", String, "0-1"),
    Field("topic", String, "0-1"),
    Field("partition", Int32, "0-1"),
)

OFFSET_COMMIT_VALUE = Schema(
    "OffsetCommitValue",
    Field("offset", Int64, "0+"),
    Field("leader_epoch", Int32, "3+", default=-1, ignorable=True),
    Field("metadata", String, "0+"),
    Field("commit_timestamp", Int64, "0+"),
    Field("expire_timestamp", Int64, "1", default=-1, ignorable=True),
    # the topic's id when committed (tagged, written only when known): a topic recreated under the same
    # name has another id, and its old offsets are not handed to a fetch by the new id
    Field("topic_id", Uuid, "4+", tag=0, tagged_versions="4+", ignorable=True),
)

GROUP_METADATA_KEY = Schema(
    "GroupMetadataKey",
    Field("group", String, "2"),
)

MEMBER_METADATA = Schema(
    "MemberMetadata",
    Field("member_id", String, "0+"),
    Field("group_instance_id", String, "3+", nullable_versions="3+", default=None, ignorable=True),
    Field("client_id", String, "0+"),
    Field("client_host", String, "0+"),
    Field("rebalance_timeout", Int32, "1+", default=-1, ignorable=True),
    Field("session_timeout", Int32, "0+"),
    Field("subscription", Bytes, "0+"),
    Field("assignment", Bytes, "0+"),
)

GROUP_METADATA_VALUE = Schema(
    "GroupMetadataValue",
    Field("protocol_type", String, "0+"),
    Field("generation", Int32, "0+"),
    Field("protocol", String, "0+", nullable_versions="0+"),
    Field("leader", String, "0+", nullable_versions="0+"),
    Field("current_state_timestamp", Int64, "2+", default=-1, ignorable=True),
    Field("members", Array(MEMBER_METADATA), "0+"),
)

# The versions written; OffsetCommitValue v4 (flexible, with the tagged topic id), as Kafka 4.4's
# GroupCoordinatorRecordHelpers writes it, and v1 only when the commit carries an expiry of its own, the
# one version with that field.
OFFSET_COMMIT_KEY_VERSION = 1
OFFSET_COMMIT_VALUE_VERSION = 4
OFFSET_COMMIT_VALUE_WITH_EXPIRY_VERSION = 1
GROUP_METADATA_KEY_VERSION = 2
GROUP_METADATA_VALUE_VERSION = 3
FLEXIBLE_FROM = 4  # OffsetCommitValue and GroupMetadataValue are flexible from v4


@dataclass(frozen=True)
class OffsetCommitKey:
    group: str
    topic: str
    partition: int


@dataclass(frozen=True)
class GroupMetadataKey:
    group: str


# ------------------------------------------------------------------ consumer group records (KIP-848)
CONSUMER_GROUP_METADATA = 3
CONSUMER_GROUP_MEMBER_METADATA = 5
CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA = 6
CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER = 7
CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT = 8

TOPIC_PARTITIONS = Schema("TopicPartitions", Field("topic_id", Uuid, "0+"),
                          Field("partitions", Array(Int32), "0+"))
# A member's current partitions carry the epoch each was assigned at (KIP-1251), one per partition, in order.
CURRENT_TOPIC_PARTITIONS = Schema(
    "TopicPartitions", Field("topic_id", Uuid, "0+"), Field("partitions", Array(Int32), "0+"),
    Field("assignment_epochs", Array(Int32), "0+", nullable_versions="0+", default=None, tagged_versions="0+",
          tag=0))
CONSUMER_GROUP_VALUE_SCHEMAS = {
    CONSUMER_GROUP_METADATA: Schema("ConsumerGroupMetadataValue", Field("epoch", Int32, "0+")),
    CONSUMER_GROUP_MEMBER_METADATA: Schema(
        "ConsumerGroupMemberMetadataValue",
        Field("instance_id", String, "0+", nullable_versions="0+"),
        Field("rack_id", String, "0+", nullable_versions="0+"),
        Field("client_id", String, "0+"),
        Field("client_host", String, "0+"),
        Field("subscribed_topic_names", Array(String), "0+"),
        Field("subscribed_topic_regex", String, "0+", nullable_versions="0+"),
        Field("rebalance_timeout_ms", Int32, "0+", default=-1),
        Field("server_assignor", String, "0+", nullable_versions="0+"),
        # a member speaking the classic protocol (JoinGroup, SyncGroup) inside a consumer group
        Field("classic_member_metadata", Schema(
            "ClassicMemberMetadata",
            Field("session_timeout_ms", Int32, "0+"),
            Field("supported_protocols", Array(Schema("ClassicProtocol", Field("name", String, "0+"),
                                                      Field("metadata", Bytes, "0+"))), "0+")),
            "0+", nullable_versions="0+", default=None, tagged_versions="0+", tag=0)),
    CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA: Schema("ConsumerGroupTargetAssignmentMetadataValue",
                                                      Field("assignment_epoch", Int32, "0+")),
    CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER: Schema("ConsumerGroupTargetAssignmentMemberValue",
                                                    Field("topic_partitions", Array(TOPIC_PARTITIONS), "0+")),
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT: Schema(
        "ConsumerGroupCurrentMemberAssignmentValue",
        Field("member_epoch", Int32, "0+"),
        Field("previous_member_epoch", Int32, "0+"),
        Field("state", Int8, "0+"),
        Field("assigned_partitions", Array(CURRENT_TOPIC_PARTITIONS), "0+"),
        Field("partitions_pending_revocation", Array(CURRENT_TOPIC_PARTITIONS), "0+")),
}
CONSUMER_GROUP_VALUE_VERSION = 0  # flexible, as Kafka's ConsumerGroup*Value v0


@dataclass(frozen=True)
class ConsumerGroupMetadataKey:
    group_id: str
    key_type = CONSUMER_GROUP_METADATA


@dataclass(frozen=True)
class ConsumerGroupMetadataValue:
    epoch: int


@dataclass(frozen=True)
class ConsumerGroupMemberMetadataKey:
    group_id: str
    member_id: str
    key_type = CONSUMER_GROUP_MEMBER_METADATA


@dataclass(frozen=True)
class ConsumerGroupMemberMetadataValue:
    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: tuple[str, ...] = ()
    subscribed_topic_regex: str | None = None
    rebalance_timeout_ms: int = -1
    server_assignor: str | None = None
    classic_member_metadata: ClassicMemberMetadata | None = None


@dataclass(frozen=True)
class ClassicMemberMetadata:
    """What a member of the classic protocol told JoinGroup: its session timeout and its protocols
    (name, the embedded ConsumerProtocolSubscription bytes), in its order of preference."""

    session_timeout_ms: int
    supported_protocols: tuple[tuple[str, bytes], ...]


@dataclass(frozen=True)
class ConsumerGroupTargetAssignmentMetadataKey:
    group_id: str
    key_type = CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA


@dataclass(frozen=True)
class ConsumerGroupTargetAssignmentMetadataValue:
    assignment_epoch: int


@dataclass(frozen=True)
class ConsumerGroupTargetAssignmentMemberKey:
    group_id: str
    member_id: str
    key_type = CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER


@dataclass(frozen=True)
class ConsumerGroupTargetAssignmentMemberValue:
    topic_partitions: Assignment = field(default_factory=dict)


@dataclass(frozen=True)
class ConsumerGroupCurrentMemberAssignmentKey:
    group_id: str
    member_id: str
    key_type = CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT


@dataclass(frozen=True)
class ConsumerGroupCurrentMemberAssignmentValue:
    member_epoch: int
    previous_member_epoch: int
    state: int  # Kafka's MemberState byte (consumer_group_member.py maps it)
    assigned_partitions: Assignment = field(default_factory=dict)
    partitions_pending_revocation: Assignment = field(default_factory=dict)
    # (topic id, partition) -> the member epoch it was assigned at; None in a record written before KIP-1251
    assignment_epochs: dict[tuple[uuid.UUID, int], int] | None = None


CONSUMER_GROUP_KEYS = {cls.key_type: cls for cls in (
    ConsumerGroupMetadataKey, ConsumerGroupMemberMetadataKey, ConsumerGroupTargetAssignmentMetadataKey,
    ConsumerGroupTargetAssignmentMemberKey, ConsumerGroupCurrentMemberAssignmentKey)}
ConsumerGroupKey = (ConsumerGroupMetadataKey | ConsumerGroupMemberMetadataKey
                    | ConsumerGroupTargetAssignmentMetadataKey | ConsumerGroupTargetAssignmentMemberKey
                    | ConsumerGroupCurrentMemberAssignmentKey)


# ------------------------------------------------------------------ share group records (KIP-932)
SHARE_GROUP_MEMBER_METADATA = 10
SHARE_GROUP_METADATA = 11
SHARE_GROUP_TARGET_ASSIGNMENT_METADATA = 12
SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER = 13
SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT = 14
SHARE_GROUP_STATE_PARTITION_METADATA = 15

SHARE_TOPIC_PARTITIONS_INFO = Schema("TopicPartitionsInfo", Field("topic_id", Uuid, "0+"),
                                     Field("topic_name", String, "0+"),
                                     Field("partitions", Array(Int32), "0+"))
SHARE_GROUP_VALUE_SCHEMAS = {
    SHARE_GROUP_MEMBER_METADATA: Schema(
        "ShareGroupMemberMetadataValue",
        Field("rack_id", String, "0+", nullable_versions="0+"),
        Field("client_id", String, "0+"),
        Field("client_host", String, "0+"),
        Field("subscribed_topic_names", Array(String), "0+")),
    SHARE_GROUP_METADATA: Schema("ShareGroupMetadataValue", Field("epoch", Int32, "0+"),
                                 Field("metadata_hash", Int64, "0+")),
    SHARE_GROUP_TARGET_ASSIGNMENT_METADATA: Schema(
        "ShareGroupTargetAssignmentMetadataValue",
        Field("assignment_epoch", Int32, "0+"),
        Field("assignment_timestamp", Int64, "0+", default=0, tagged_versions="0+", tag=0)),
    SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER: Schema("ShareGroupTargetAssignmentMemberValue",
                                                 Field("topic_partitions", Array(TOPIC_PARTITIONS), "0+")),
    SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT: Schema(
        "ShareGroupCurrentMemberAssignmentValue",
        Field("member_epoch", Int32, "0+"),
        Field("previous_member_epoch", Int32, "0+"),
        Field("state", Int8, "0+"),
        Field("assigned_partitions", Array(TOPIC_PARTITIONS), "0+")),
    SHARE_GROUP_STATE_PARTITION_METADATA: Schema(
        "ShareGroupStatePartitionMetadataValue",
        Field("initializing_topics", Array(SHARE_TOPIC_PARTITIONS_INFO), "0+"),
        Field("initialized_topics", Array(SHARE_TOPIC_PARTITIONS_INFO), "0+"),
        Field("deleting_topics", Array(Schema("TopicInfo", Field("topic_id", Uuid, "0+"),
                                              Field("topic_name", String, "0+"))), "0+")),
}
SHARE_GROUP_VALUE_VERSION = 0  # flexible, as Kafka 4.4's ShareGroup*Value v0


@dataclass(frozen=True)
class ShareGroupMemberMetadataKey:
    group_id: str
    member_id: str
    key_type = SHARE_GROUP_MEMBER_METADATA


@dataclass(frozen=True)
class ShareGroupMemberMetadataValue:
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: tuple[str, ...] = ()  # sorted, as Kafka writes them


@dataclass(frozen=True)
class ShareGroupMetadataKey:
    group_id: str
    key_type = SHARE_GROUP_METADATA


@dataclass(frozen=True)
class ShareGroupMetadataValue:
    epoch: int
    # of the subscribed topics (ids, names, partition counts): a change bumps the epoch
    metadata_hash: int = 0


@dataclass(frozen=True)
class ShareGroupTargetAssignmentMetadataKey:
    group_id: str
    key_type = SHARE_GROUP_TARGET_ASSIGNMENT_METADATA


@dataclass(frozen=True)
class ShareGroupTargetAssignmentMetadataValue:
    assignment_epoch: int
    assignment_timestamp: int = 0  # ms; group.share.assignment.interval.ms counts from it


@dataclass(frozen=True)
class ShareGroupTargetAssignmentMemberKey:
    group_id: str
    member_id: str
    key_type = SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER


@dataclass(frozen=True)
class ShareGroupTargetAssignmentMemberValue:
    topic_partitions: Assignment = field(default_factory=dict)


@dataclass(frozen=True)
class ShareGroupCurrentMemberAssignmentKey:
    group_id: str
    member_id: str
    key_type = SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT


@dataclass(frozen=True)
class ShareGroupCurrentMemberAssignmentValue:
    member_epoch: int
    previous_member_epoch: int
    state: int  # Kafka 4.4's MemberState byte: 0 STABLE (the only state a share member is ever in)
    assigned_partitions: Assignment = field(default_factory=dict)


@dataclass(frozen=True)
class ShareGroupStatePartitionMetadataKey:
    group_id: str
    key_type = SHARE_GROUP_STATE_PARTITION_METADATA


@dataclass(frozen=True)
class TopicPartitionsInfo:
    """One topic of a ShareGroupStatePartitionMetadataValue: its name (kept for humans and for a
    topic already deleted) and the partitions."""

    topic_name: str
    partitions: frozenset[int] = frozenset()


@dataclass(frozen=True)
class ShareGroupStatePartitionMetadataValue:
    """Which partitions' share state the share coordinator has initialized for the group, which it is
    being asked to initialize, and which topics' state it is deleting (topic id -> name)."""

    initializing_topics: dict[uuid.UUID, TopicPartitionsInfo] = field(default_factory=dict)
    initialized_topics: dict[uuid.UUID, TopicPartitionsInfo] = field(default_factory=dict)
    deleting_topics: dict[uuid.UUID, str] = field(default_factory=dict)


SHARE_GROUP_KEYS = {cls.key_type: cls for cls in (
    ShareGroupMemberMetadataKey, ShareGroupMetadataKey, ShareGroupTargetAssignmentMetadataKey,
    ShareGroupTargetAssignmentMemberKey, ShareGroupCurrentMemberAssignmentKey,
    ShareGroupStatePartitionMetadataKey)}
ShareGroupKey = (ShareGroupMemberMetadataKey | ShareGroupMetadataKey | ShareGroupTargetAssignmentMetadataKey
                 | ShareGroupTargetAssignmentMemberKey | ShareGroupCurrentMemberAssignmentKey
                 | ShareGroupStatePartitionMetadataKey)


# ------------------------------------------------------------------ GroupCoordinatorRecordHelpers
def new_offset_commit_record(group_id: str, topic: str, partition: int,
                             offset_and_metadata: OffsetAndMetadata) -> CoordinatorRecord:
    return CoordinatorRecord(OffsetCommitKey(group_id, topic, partition), offset_and_metadata)


def new_offset_commit_tombstone_record(group_id: str, topic: str, partition: int) -> CoordinatorRecord:
    return CoordinatorRecord(OffsetCommitKey(group_id, topic, partition), None)


def new_group_metadata_tombstone_record(group_id: str) -> CoordinatorRecord:
    return CoordinatorRecord(GroupMetadataKey(group_id), None)
