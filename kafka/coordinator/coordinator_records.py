"""The records of ``__consumer_offsets``: OffsetCommitKey/Value and GroupMetadataKey/Value.

Mirrors ``group-coordinator/src/main/resources/common/message/{OffsetCommitKey,OffsetCommitValue,
GroupMetadataKey,GroupMetadataValue}.json`` and the read/write helpers of Kafka's
``GroupMetadataManager`` object (offsetCommitKey, groupMetadataValue, readMessageKey, ...).

Every record's key and value start with an int16 schema version, so a broker can read what an
older one wrote. The key version also says what the record is: 0 and 1 are a committed offset
(group, topic, partition), 2 is a group's metadata. A null value is a tombstone: compaction (the
topic is ``cleanup.policy=compact``) then forgets the key, and so does the loader.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from kafka.coordinator.offset_and_metadata import OffsetAndMetadata
from kafka.protocol.schema import Array, Field, Record, Schema
from kafka.protocol.types import ByteReader, Bytes, Int32, Int64, String

GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"

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

# The versions this broker writes (Kafka 2.3+ writes these for IBP >= 2.3, non-flexible).
OFFSET_COMMIT_KEY_VERSION = 1
OFFSET_COMMIT_VALUE_VERSION = 3
GROUP_METADATA_KEY_VERSION = 2
GROUP_METADATA_VALUE_VERSION = 3
_FLEXIBLE_FROM = 4  # OffsetCommitValue and GroupMetadataValue are flexible from v4

_VERSION = struct.Struct(">h")


def _versioned(schema: Schema, version: int, rec: dict) -> bytes:
    out = bytearray(_VERSION.pack(version))
    schema.write(out, rec, version, version >= _FLEXIBLE_FROM)
    return bytes(out)


def offset_commit_key(group_id: str, topic: str, partition: int) -> bytes:
    return _versioned(OFFSET_COMMIT_KEY, OFFSET_COMMIT_KEY_VERSION,
                      dict(group=group_id, topic=topic, partition=partition))


def offset_commit_value(offset: OffsetAndMetadata) -> bytes:
    if offset.expire_timestamp_ms >= 0:  # only schema v1 can say when the offset expires
        return _versioned(OFFSET_COMMIT_VALUE, 1, dict(
            offset=offset.offset, metadata=offset.metadata, commit_timestamp=offset.commit_timestamp_ms,
            expire_timestamp=offset.expire_timestamp_ms))
    return _versioned(OFFSET_COMMIT_VALUE, OFFSET_COMMIT_VALUE_VERSION, dict(
        offset=offset.offset, leader_epoch=offset.leader_epoch, metadata=offset.metadata,
        commit_timestamp=offset.commit_timestamp_ms))


def group_metadata_key(group_id: str) -> bytes:
    return _versioned(GROUP_METADATA_KEY, GROUP_METADATA_KEY_VERSION, dict(group=group_id))


def group_metadata_value(value: dict) -> bytes:
    """``value`` holds GroupMetadataValue's fields (GroupMetadata.to_record builds it)."""
    return _versioned(GROUP_METADATA_VALUE, GROUP_METADATA_VALUE_VERSION, value)


@dataclass(frozen=True)
class OffsetKey:
    group_id: str
    topic: str
    partition: int


@dataclass(frozen=True)
class GroupMetadataKey:
    group_id: str


def read_message_key(data: bytes | memoryview) -> OffsetKey | GroupMetadataKey | None:
    """What a record of ``__consumer_offsets`` is about; None for a key type we do not know
    (a newer broker's record, e.g. a KIP-848 consumer group: skipped, as Kafka skips them)."""
    version = _VERSION.unpack_from(data, 0)[0]
    reader = ByteReader(data, _VERSION.size)
    if version in (0, 1):
        key = OFFSET_COMMIT_KEY.read(reader, version, False)
        return OffsetKey(key.group, key.topic, key.partition)
    if version == 2:
        return GroupMetadataKey(GROUP_METADATA_KEY.read(reader, version, False).group)
    return None


def read_offset_message_value(data: bytes | memoryview | None) -> OffsetAndMetadata | None:
    if data is None:
        return None
    version = _VERSION.unpack_from(data, 0)[0]
    value = OFFSET_COMMIT_VALUE.read(ByteReader(data, _VERSION.size), version, version >= _FLEXIBLE_FROM)
    return OffsetAndMetadata(value.offset, value.leader_epoch, value.metadata, value.commit_timestamp,
                             value.expire_timestamp)


def read_group_message_value(data: bytes | memoryview | None) -> Record | None:
    if data is None:
        return None
    version = _VERSION.unpack_from(data, 0)[0]
    return GROUP_METADATA_VALUE.read(ByteReader(data, _VERSION.size), version, version >= _FLEXIBLE_FROM)
