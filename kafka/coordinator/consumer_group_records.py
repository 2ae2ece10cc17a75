"""The records a KIP-848 consumer group leaves in ``__consumer_offsets`` (Kafka's
group-coordinator/src/main/resources/common/message/ConsumerGroup*Key/Value.json and the
GroupCoordinatorRecordHelpers that build them).

A consumer group is the sum of its records, as a classic group is its GroupMetadataValue: the key
type (the int16 before the key) says which part of the group a record holds, and compaction keeps
the latest of each:

    3 ConsumerGroupMetadata          the group epoch
    5 ConsumerGroupMemberMetadata    one member's subscription and client
    6 ConsumerGroupTargetAssignmentMetadata   the assignment epoch
    7 ConsumerGroupTargetAssignmentMember     one member's target partitions
    8 ConsumerGroupCurrentMemberAssignment    one member's epoch, state, partitions and revocations

``group_records`` writes a group as these records; ``ConsumerGroupRecords.replay`` builds the
groups back from them when a broker becomes the coordinator of their partition. A tombstone (no
value) removes the part.
"""

from __future__ import annotations

import struct

from kafka.coordinator.consumer_group import ConsumerGroup
from kafka.coordinator.consumer_group_member import Assignment, ConsumerGroupMember, MemberState
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import ByteReader, Int8, Int32, String, Uuid

GROUP_METADATA, MEMBER_METADATA, TARGET_ASSIGNMENT_METADATA, TARGET_ASSIGNMENT_MEMBER, CURRENT_MEMBER_ASSIGNMENT = (
    3, 5, 6, 7, 8)
KEY_TYPES = frozenset({GROUP_METADATA, MEMBER_METADATA, TARGET_ASSIGNMENT_METADATA, TARGET_ASSIGNMENT_MEMBER,
                       CURRENT_MEMBER_ASSIGNMENT})
MEMBER_KEYS = frozenset({MEMBER_METADATA, TARGET_ASSIGNMENT_MEMBER, CURRENT_MEMBER_ASSIGNMENT})
# Kafka's MemberState values as the record stores them
STATE_BYTES = {MemberState.UNKNOWN: 0, MemberState.STABLE: 1, MemberState.UNREVOKED_PARTITIONS: 2,
               MemberState.UNRELEASED_PARTITIONS: 3}
STATES = {b: s for s, b in STATE_BYTES.items()}

TOPIC_PARTITIONS = Schema("TopicPartitions", Field("topic_id", Uuid, "0+"), Field("partitions", Array(Int32), "0+"))
VALUES = {
    GROUP_METADATA: Schema("ConsumerGroupMetadataValue", Field("epoch", Int32, "0+")),
    MEMBER_METADATA: Schema(
        "ConsumerGroupMemberMetadataValue",
        Field("instance_id", String, "0+", nullable_versions="0+"),
        Field("rack_id", String, "0+", nullable_versions="0+"),
        Field("client_id", String, "0+"),
        Field("client_host", String, "0+"),
        Field("subscribed_topic_names", Array(String), "0+"),
        Field("subscribed_topic_regex", String, "0+", nullable_versions="0+"),
        Field("rebalance_timeout_ms", Int32, "0+", default=-1),
        Field("server_assignor", String, "0+", nullable_versions="0+")),
    TARGET_ASSIGNMENT_METADATA: Schema("ConsumerGroupTargetAssignmentMetadataValue",
                                       Field("assignment_epoch", Int32, "0+")),
    TARGET_ASSIGNMENT_MEMBER: Schema("ConsumerGroupTargetAssignmentMemberValue",
                                     Field("topic_partitions", Array(TOPIC_PARTITIONS), "0+")),
    CURRENT_MEMBER_ASSIGNMENT: Schema(
        "ConsumerGroupCurrentMemberAssignmentValue",
        Field("member_epoch", Int32, "0+"),
        Field("previous_member_epoch", Int32, "0+"),
        Field("state", Int8, "0+"),
        Field("assigned_partitions", Array(TOPIC_PARTITIONS), "0+"),
        Field("partitions_pending_revocation", Array(TOPIC_PARTITIONS), "0+")),
}
_VERSION = struct.Struct(">h")
RecordKey = tuple[int, str, str | None]  # (key type, group id, member id or None)


def encode_key(key: RecordKey) -> bytes:
    key_type, group_id, member_id = key
    out = bytearray(_VERSION.pack(key_type))
    String.resolve(key_type, False, False).write(out, group_id)
    if member_id is not None:
        String.resolve(key_type, False, False).write(out, member_id)
    return bytes(out)


def decode_key(data: bytes | memoryview) -> RecordKey | None:
    key_type = _VERSION.unpack_from(data, 0)[0]
    if key_type not in KEY_TYPES:
        return None
    reader = ByteReader(data, _VERSION.size)
    string = String.resolve(key_type, False, False)
    group_id = string.read(reader)
    return key_type, group_id, string.read(reader) if key_type in MEMBER_KEYS else None


def encode_value(key_type: int, value: dict) -> bytes:
    out = bytearray(_VERSION.pack(0))
    VALUES[key_type].write(out, value, 0, True)
    return bytes(out)


def decode_value(key_type: int, data: bytes | memoryview):
    return VALUES[key_type].read(ByteReader(data, _VERSION.size), 0, True)


def _partitions(assignment: Assignment) -> list[dict]:
    return [dict(topic_id=t, partitions=sorted(p)) for t, p in sorted(assignment.items(), key=str)]


def _assignment(topic_partitions) -> Assignment:
    return {t.topic_id: frozenset(t.partitions) for t in topic_partitions if t.partitions}


def group_records(group: ConsumerGroup) -> dict[RecordKey, bytes]:
    """Every record that describes the group now (the coordinator writes the ones that changed)."""
    out = {(GROUP_METADATA, group.group_id, None): encode_value(GROUP_METADATA, dict(epoch=group.group_epoch)),
           (TARGET_ASSIGNMENT_METADATA, group.group_id, None): encode_value(
               TARGET_ASSIGNMENT_METADATA, dict(assignment_epoch=group.assignment_epoch))}
    for member_id, m in group.members.items():
        out[(MEMBER_METADATA, group.group_id, member_id)] = encode_value(MEMBER_METADATA, dict(
            instance_id=m.instance_id, rack_id=m.rack_id, client_id=m.client_id, client_host=m.client_host,
            subscribed_topic_names=list(m.subscribed_topic_names), subscribed_topic_regex=m.subscribed_topic_regex,
            rebalance_timeout_ms=m.rebalance_timeout_ms, server_assignor=m.server_assignor_name))
        out[(CURRENT_MEMBER_ASSIGNMENT, group.group_id, member_id)] = encode_value(CURRENT_MEMBER_ASSIGNMENT, dict(
            member_epoch=m.member_epoch, previous_member_epoch=m.previous_member_epoch, state=STATE_BYTES[m.state],
            assigned_partitions=_partitions(m.assigned_partitions),
            partitions_pending_revocation=_partitions(m.partitions_pending_revocation)))
    for member_id, target in group.target_assignment.items():
        out[(TARGET_ASSIGNMENT_MEMBER, group.group_id, member_id)] = encode_value(
            TARGET_ASSIGNMENT_MEMBER, dict(topic_partitions=_partitions(target)))
    return out


def changed_records(group: ConsumerGroup, written: dict[RecordKey, bytes],
                    deleted: bool = False) -> list[tuple[bytes, bytes | None]]:
    """What to append so the log describes the group as it is now: the records that differ from
    ``written`` (what the log already says, updated here) and tombstones for the parts that went."""
    now = {} if deleted else group_records(group)
    entries = [(encode_key(k), v) for k, v in now.items() if written.get(k) != v]
    entries += [(encode_key(k), None) for k in written if k not in now]
    written.clear()
    written.update(now)
    return entries


def replay(records: dict[RecordKey, bytes]) -> dict[str, ConsumerGroup]:
    """The groups the latest record of each key describes (Kafka's GroupMetadataManager.replay)."""
    groups: dict[str, ConsumerGroup] = {}
    for (key_type, group_id, member_id), data in sorted(records.items(), key=lambda kv: kv[0][0]):
        value = decode_value(key_type, data)
        group = groups.setdefault(group_id, ConsumerGroup(group_id))
        if key_type == GROUP_METADATA:
            group.group_epoch = value.epoch
        elif key_type == TARGET_ASSIGNMENT_METADATA:
            group.assignment_epoch = value.assignment_epoch
        elif key_type == TARGET_ASSIGNMENT_MEMBER:
            group.target_assignment[member_id] = _assignment(value.topic_partitions)
        else:
            member = group.members.get(member_id) or ConsumerGroupMember(member_id)
            if key_type == MEMBER_METADATA:
                member = member.with_(
                    instance_id=value.instance_id, rack_id=value.rack_id, client_id=value.client_id,
                    client_host=value.client_host, subscribed_topic_names=tuple(value.subscribed_topic_names),
                    subscribed_topic_regex=value.subscribed_topic_regex,
                    rebalance_timeout_ms=value.rebalance_timeout_ms, server_assignor_name=value.server_assignor)
            else:
                member = member.with_(
                    member_epoch=value.member_epoch, previous_member_epoch=value.previous_member_epoch,
                    state=STATES.get(value.state, MemberState.UNKNOWN),
                    assigned_partitions=_assignment(value.assigned_partitions),
                    partitions_pending_revocation=_assignment(value.partitions_pending_revocation))
            group.update_member(member)
    for group in groups.values():  # a member known only by its target (its other records deleted) is gone
        group.target_assignment = {m: t for m, t in group.target_assignment.items() if m in group.members}
    return groups

