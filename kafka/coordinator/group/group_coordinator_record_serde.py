"""GroupCoordinatorRecordSerde: the typed records of ``__consumer_offsets`` to bytes and back (Kafka's
org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde, a CoordinatorRecordSerde).

Key and value each start with an int16 version. For the key it is the key type, so ``deserialize``
knows what it reads from the first two bytes; a key type this coordinator does not know (a newer
broker's record) reads as None and the loader skips it, as Kafka skips it. A streams group's records
(key types 17-23) are described in ``streams/streams_group_records.py``. The
bytes are the old coordinator's exactly (tests/coordinator/group/test_group_coordinator_record_serde.py
compares them), so an existing log loads.
"""

from __future__ import annotations

import struct

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.group.group_coordinator_records import (
    CONSUMER_GROUP_KEYS,
    CONSUMER_GROUP_MEMBER_METADATA,
    CONSUMER_GROUP_METADATA,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
    CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA,
    CONSUMER_GROUP_VALUE_SCHEMAS,
    CONSUMER_GROUP_VALUE_VERSION,
    FLEXIBLE_FROM,
    GROUP_METADATA_KEY,
    GROUP_METADATA_KEY_VERSION,
    GROUP_METADATA_VALUE,
    GROUP_METADATA_VALUE_VERSION,
    OFFSET_COMMIT_KEY,
    OFFSET_COMMIT_KEY_VERSION,
    OFFSET_COMMIT_VALUE,
    OFFSET_COMMIT_VALUE_VERSION,
    OFFSET_COMMIT_VALUE_WITH_EXPIRY_VERSION,
    SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    SHARE_GROUP_KEYS,
    SHARE_GROUP_MEMBER_METADATA,
    SHARE_GROUP_METADATA,
    SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER,
    SHARE_GROUP_TARGET_ASSIGNMENT_METADATA,
    SHARE_GROUP_VALUE_SCHEMAS,
    SHARE_GROUP_VALUE_VERSION,
    Assignment,
    ClassicMemberMetadata,
    ConsumerGroupCurrentMemberAssignmentValue,
    ConsumerGroupMemberMetadataValue,
    ConsumerGroupMetadataValue,
    ConsumerGroupTargetAssignmentMemberValue,
    ConsumerGroupTargetAssignmentMetadataValue,
    GroupMetadataKey,
    OffsetCommitKey,
    ShareGroupCurrentMemberAssignmentValue,
    ShareGroupMemberMetadataValue,
    ShareGroupMetadataValue,
    ShareGroupStatePartitionMetadataValue,
    ShareGroupTargetAssignmentMemberValue,
    ShareGroupTargetAssignmentMetadataValue,
    TopicPartitionsInfo,
)
from kafka.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka.coordinator.group.streams import streams_group_records as streams
from kafka.protocol.schema import Record, Schema
from kafka.protocol.types import ByteReader, String

_VERSION = struct.Struct(">h")


def _write(schema: Schema, version: int, fields: dict, flexible: bool) -> bytes:
    out = bytearray(_VERSION.pack(version))
    schema.write(out, fields, version, flexible)
    return bytes(out)


def _partitions(assignment: Assignment, epochs: dict | None = None) -> list[dict]:
    """Sorted, so the same assignment is always the same bytes; with each partition's assignment epoch
    when ``epochs`` is given (a member's current assignment)."""
    out = []
    for t, p in sorted(assignment.items(), key=str):
        topic = dict(topic_id=t, partitions=sorted(p))
        if epochs is not None:
            topic["assignment_epochs"] = [epochs[(t, i)] for i in topic["partitions"]]
        out.append(topic)
    return out


def _assignment_epochs(*topic_partitions_lists) -> dict | None:
    """(topic id, partition) -> assignment epoch, or None when the record has none (written before
    KIP-1251)."""
    epochs = {}
    for topic_partitions in topic_partitions_lists:
        for t in topic_partitions:
            if t.partitions and t.assignment_epochs is None:
                return None
            epochs.update({(t.topic_id, p): e
                           for p, e in zip(t.partitions, t.assignment_epochs or (), strict=False)})
    return epochs


def _classic_fields(classic: ClassicMemberMetadata | None) -> dict | None:
    if classic is None:
        return None
    return dict(session_timeout_ms=classic.session_timeout_ms,
                supported_protocols=[dict(name=n, metadata=m) for n, m in classic.supported_protocols])


def _classic_member_metadata(v) -> ClassicMemberMetadata | None:
    if v is None:
        return None
    return ClassicMemberMetadata(v.session_timeout_ms,
                                 tuple((p.name, bytes(p.metadata)) for p in v.supported_protocols))


def _assignment(topic_partitions) -> Assignment:
    return {t.topic_id: frozenset(t.partitions) for t in topic_partitions if t.partitions}


def _topics_info(topics: dict) -> list[dict]:
    """A ShareGroupStatePartitionMetadataValue's topics, sorted (Kafka writes its HashMap's order)."""
    return [dict(topic_id=t, topic_name=info.topic_name, partitions=sorted(info.partitions))
            for t, info in sorted(topics.items(), key=lambda kv: str(kv[0]))]


class GroupCoordinatorRecordSerde:
    # ------------------------------------------------------------------ serialize
    def serialize_key(self, record: CoordinatorRecord) -> bytes:
        key = record.key
        if isinstance(key, OffsetCommitKey):
            return _write(OFFSET_COMMIT_KEY, OFFSET_COMMIT_KEY_VERSION,
                          dict(group=key.group, topic=key.topic, partition=key.partition), False)
        if isinstance(key, GroupMetadataKey):
            return _write(GROUP_METADATA_KEY, GROUP_METADATA_KEY_VERSION, dict(group=key.group), False)
        if type(key) in (*CONSUMER_GROUP_KEYS.values(), *SHARE_GROUP_KEYS.values(),
                         *streams.STREAMS_GROUP_KEYS.values()):
            # The key type is the key's version; its strings are that version's (non-flexible) ones.
            out = bytearray(_VERSION.pack(key.key_type))
            string = String.resolve(key.key_type, False, False)
            string.write(out, key.group_id)
            if hasattr(key, "member_id"):
                string.write(out, key.member_id)
            return bytes(out)
        raise ValueError(f"not a group coordinator record key: {key!r}")

    def serialize_value(self, record: CoordinatorRecord) -> bytes | None:
        value = record.value
        if value is None:
            return None
        if isinstance(record.key, OffsetCommitKey):
            return self.offset_commit_value(value)
        if isinstance(record.key, GroupMetadataKey):
            # The classic group's fields, as ClassicGroup builds them (a dict, or a Record read back).
            fields = value.to_dict() if isinstance(value, Record) else value
            return _write(GROUP_METADATA_VALUE, GROUP_METADATA_VALUE_VERSION, fields, False)
        key_type = record.key.key_type
        if key_type in streams.STREAMS_GROUP_KEYS:
            return _write(streams.VALUE_SCHEMAS[key_type], streams.STREAMS_GROUP_VALUE_VERSION,
                          streams.value_fields(key_type, value), True)
        if key_type in SHARE_GROUP_VALUE_SCHEMAS:
            return _write(SHARE_GROUP_VALUE_SCHEMAS[key_type], SHARE_GROUP_VALUE_VERSION,
                          self.share_group_value_fields(key_type, value), True)
        return _write(CONSUMER_GROUP_VALUE_SCHEMAS[key_type], CONSUMER_GROUP_VALUE_VERSION,
                      self.consumer_group_value_fields(key_type, value), True)

    @staticmethod
    def offset_commit_value(offset: OffsetAndMetadata) -> bytes:
        if offset.expire_timestamp_ms >= 0:  # only schema v1 can say when the offset expires
            return _write(OFFSET_COMMIT_VALUE, OFFSET_COMMIT_VALUE_WITH_EXPIRY_VERSION, dict(
                offset=offset.offset, metadata=offset.metadata, commit_timestamp=offset.commit_timestamp_ms,
                expire_timestamp=offset.expire_timestamp_ms), False)
        return _write(OFFSET_COMMIT_VALUE, OFFSET_COMMIT_VALUE_VERSION, dict(
            offset=offset.offset, leader_epoch=offset.leader_epoch, metadata=offset.metadata,
            commit_timestamp=offset.commit_timestamp_ms, topic_id=offset.topic_id), True)

    @staticmethod
    def consumer_group_value_fields(key_type: int, value) -> dict:
        if key_type == CONSUMER_GROUP_METADATA:
            return dict(epoch=value.epoch)
        if key_type == CONSUMER_GROUP_MEMBER_METADATA:
            return dict(instance_id=value.instance_id, rack_id=value.rack_id, client_id=value.client_id,
                        client_host=value.client_host,
                        subscribed_topic_names=list(value.subscribed_topic_names),
                        subscribed_topic_regex=value.subscribed_topic_regex,
                        rebalance_timeout_ms=value.rebalance_timeout_ms,
                        server_assignor=value.server_assignor,
                        classic_member_metadata=_classic_fields(value.classic_member_metadata))
        if key_type == CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA:
            return dict(assignment_epoch=value.assignment_epoch)
        if key_type == CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER:
            return dict(topic_partitions=_partitions(value.topic_partitions))
        epochs = value.assignment_epochs
        return dict(member_epoch=value.member_epoch, previous_member_epoch=value.previous_member_epoch,
                    state=value.state, assigned_partitions=_partitions(value.assigned_partitions, epochs),
                    partitions_pending_revocation=_partitions(value.partitions_pending_revocation, epochs))

    @staticmethod
    def share_group_value_fields(key_type: int, value) -> dict:
        if key_type == SHARE_GROUP_MEMBER_METADATA:
            return dict(rack_id=value.rack_id, client_id=value.client_id, client_host=value.client_host,
                        subscribed_topic_names=list(value.subscribed_topic_names))
        if key_type == SHARE_GROUP_METADATA:
            return dict(epoch=value.epoch, metadata_hash=value.metadata_hash)
        if key_type == SHARE_GROUP_TARGET_ASSIGNMENT_METADATA:
            return dict(assignment_epoch=value.assignment_epoch,
                        assignment_timestamp=value.assignment_timestamp)
        if key_type == SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER:
            return dict(topic_partitions=_partitions(value.topic_partitions))
        if key_type == SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT:
            return dict(member_epoch=value.member_epoch, previous_member_epoch=value.previous_member_epoch,
                        state=value.state, assigned_partitions=_partitions(value.assigned_partitions))
        return dict(initializing_topics=_topics_info(value.initializing_topics),
                    initialized_topics=_topics_info(value.initialized_topics),
                    deleting_topics=[dict(topic_id=t, topic_name=name)
                                     for t, name in sorted(value.deleting_topics.items(),
                                                           key=lambda kv: str(kv[0]))])

    # ------------------------------------------------------------------ deserialize
    def deserialize(self, key: bytes, value: bytes | None) -> CoordinatorRecord | None:
        """The record, or None for a key type this coordinator does not know (skipped on load)."""
        version = _VERSION.unpack_from(key, 0)[0]
        reader = ByteReader(key, _VERSION.size)
        if version in (0, 1):
            k = OFFSET_COMMIT_KEY.read(reader, version, False)
            return CoordinatorRecord(OffsetCommitKey(k.group, k.topic, k.partition),
                                     self.read_offset_commit_value(value))
        if version == GROUP_METADATA_KEY_VERSION:
            group_key = GroupMetadataKey(GROUP_METADATA_KEY.read(reader, version, False).group)
            return CoordinatorRecord(group_key, self.read_group_metadata_value(value))
        key_class = (CONSUMER_GROUP_KEYS.get(version) or SHARE_GROUP_KEYS.get(version)
                     or streams.STREAMS_GROUP_KEYS.get(version))
        if key_class is None:
            return None
        string = String.resolve(version, False, False)
        ids = [string.read(reader)]
        if "member_id" in key_class.__dataclass_fields__:
            ids.append(string.read(reader))
        if value is None:
            return CoordinatorRecord(key_class(*ids), None)
        if version in SHARE_GROUP_VALUE_SCHEMAS:
            return CoordinatorRecord(key_class(*ids), self.read_share_group_value(version, value))
        if version in streams.STREAMS_GROUP_KEYS:
            data_version = _VERSION.unpack_from(value, 0)[0]
            fields = streams.VALUE_SCHEMAS[version].read(ByteReader(value, _VERSION.size), data_version, True)
            return CoordinatorRecord(key_class(*ids), streams.value_from(version, fields))
        return CoordinatorRecord(key_class(*ids), self.read_consumer_group_value(version, value))

    @staticmethod
    def read_offset_commit_value(data: bytes | None) -> OffsetAndMetadata | None:
        if data is None:
            return None
        version = _VERSION.unpack_from(data, 0)[0]
        v = OFFSET_COMMIT_VALUE.read(ByteReader(data, _VERSION.size), version, version >= FLEXIBLE_FROM)
        return OffsetAndMetadata(v.offset, v.leader_epoch, v.metadata, v.commit_timestamp, v.expire_timestamp,
                                 topic_id=v.topic_id)

    @staticmethod
    def read_group_metadata_value(data: bytes | None) -> Record | None:
        if data is None:
            return None
        version = _VERSION.unpack_from(data, 0)[0]
        return GROUP_METADATA_VALUE.read(ByteReader(data, _VERSION.size), version, version >= FLEXIBLE_FROM)

    @staticmethod
    def read_consumer_group_value(key_type: int, data: bytes):
        v = CONSUMER_GROUP_VALUE_SCHEMAS[key_type].read(ByteReader(data, _VERSION.size),
                                                        CONSUMER_GROUP_VALUE_VERSION,
                                                        True)
        if key_type == CONSUMER_GROUP_METADATA:
            return ConsumerGroupMetadataValue(v.epoch)
        if key_type == CONSUMER_GROUP_MEMBER_METADATA:
            return ConsumerGroupMemberMetadataValue(v.instance_id, v.rack_id, v.client_id, v.client_host,
                                                    tuple(v.subscribed_topic_names), v.subscribed_topic_regex,
                                                    v.rebalance_timeout_ms, v.server_assignor,
                                                    _classic_member_metadata(v.classic_member_metadata))
        if key_type == CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA:
            return ConsumerGroupTargetAssignmentMetadataValue(v.assignment_epoch)
        if key_type == CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER:
            return ConsumerGroupTargetAssignmentMemberValue(_assignment(v.topic_partitions))
        return ConsumerGroupCurrentMemberAssignmentValue(v.member_epoch, v.previous_member_epoch, v.state,
                                                         _assignment(v.assigned_partitions),
                                                         _assignment(v.partitions_pending_revocation),
                                                         _assignment_epochs(v.assigned_partitions,
                                                                            v.partitions_pending_revocation))

    @staticmethod
    def read_share_group_value(key_type: int, data: bytes):
        v = SHARE_GROUP_VALUE_SCHEMAS[key_type].read(ByteReader(data, _VERSION.size),
                                                     SHARE_GROUP_VALUE_VERSION, True)
        if key_type == SHARE_GROUP_MEMBER_METADATA:
            return ShareGroupMemberMetadataValue(v.rack_id, v.client_id, v.client_host,
                                                 tuple(v.subscribed_topic_names))
        if key_type == SHARE_GROUP_METADATA:
            return ShareGroupMetadataValue(v.epoch, v.metadata_hash)
        if key_type == SHARE_GROUP_TARGET_ASSIGNMENT_METADATA:
            return ShareGroupTargetAssignmentMetadataValue(v.assignment_epoch, v.assignment_timestamp)
        if key_type == SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER:
            return ShareGroupTargetAssignmentMemberValue(_assignment(v.topic_partitions))
        if key_type == SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT:
            return ShareGroupCurrentMemberAssignmentValue(v.member_epoch, v.previous_member_epoch, v.state,
                                                          _assignment(v.assigned_partitions))

        def topics(infos) -> dict:
            return {t.topic_id: TopicPartitionsInfo(t.topic_name, frozenset(t.partitions)) for t in infos}
        return ShareGroupStatePartitionMetadataValue(topics(v.initializing_topics),
                                                     topics(v.initialized_topics),
                                                     {t.topic_id: t.topic_name for t in v.deleting_topics})
