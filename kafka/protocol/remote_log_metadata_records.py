"""The records of the `__remote_log_metadata` topic (Kafka's storage/src/main/resources/message/
RemoteLogSegmentMetadataRecord.json and its three siblings, with BytesApiMessageSerde's framing).

Tiered storage (KIP-405): every change to what is in remote storage is one of these records, the value of
a message in the partition of `__remote_log_metadata` its user partition hashes to:

    RemoteLogSegmentMetadataRecord          a segment's copy started: its id, offsets, epochs, size
    RemoteLogSegmentMetadataUpdateRecord    the segment moved on: copy finished, deletion started or done
    RemotePartitionDeleteMetadataRecord     a partition's remote data is being deleted
    RemoteLogSegmentMetadataSnapshotRecord  a segment's whole state (Kafka's old snapshots: read, not written)

Framed as the metadata log's records are: an unsigned varint frame version (1), the record's type (its
apiKey), its version (0), then the body as a flexible message. Pure: bytes in, Records out.
"""

from __future__ import annotations

from enum import IntEnum

from kafka.protocol.schema import Array, Field, Record, Schema
from kafka.protocol.types import Boolean, ByteReader, Bytes, Int8, Int32, Int64, String, UnsignedVarInt, Uuid


class RemoteLogMetadataRecordType(IntEnum):
    REMOTE_LOG_SEGMENT_METADATA_RECORD = 0
    REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD = 1
    REMOTE_PARTITION_DELETE_METADATA_RECORD = 2
    REMOTE_LOG_SEGMENT_METADATA_SNAPSHOT_RECORD = 3


FRAME_VERSION = 1
RECORD_VERSION = 0

_TOPIC_ID_PARTITION = Schema("TopicIdPartitionEntry", Field("name", String, "0+"), Field("id", Uuid, "0+"),
                             Field("partition", Int32, "0+"))
_SEGMENT_ID = Schema("RemoteLogSegmentIdEntry", Field("topic_id_partition", _TOPIC_ID_PARTITION, "0+"),
                     Field("id", Uuid, "0+"))
_LEADER_EPOCH = Schema("SegmentLeaderEpochEntry", Field("leader_epoch", Int32, "0+"),
                       Field("offset", Int64, "0+"))
_CUSTOM_METADATA = Field("custom_metadata", Bytes, "0+", nullable_versions="0+", default=None)

SCHEMAS: dict[RemoteLogMetadataRecordType, Schema] = {
    RemoteLogMetadataRecordType.REMOTE_LOG_SEGMENT_METADATA_RECORD: Schema(
        "RemoteLogSegmentMetadataRecord",
        Field("remote_log_segment_id", _SEGMENT_ID, "0+"),
        Field("start_offset", Int64, "0+"),
        Field("end_offset", Int64, "0+"),
        Field("broker_id", Int32, "0+"),
        Field("max_timestamp_ms", Int64, "0+"),
        Field("event_timestamp_ms", Int64, "0+"),
        Field("segment_leader_epochs", Array(_LEADER_EPOCH), "0+"),
        Field("segment_size_in_bytes", Int32, "0+"),
        _CUSTOM_METADATA,
        Field("remote_log_segment_state", Int8, "0+"),
        Field("txn_index_empty", Boolean, "0+", tagged_versions="0+", tag=0, default=False),
    ),
    RemoteLogMetadataRecordType.REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD: Schema(
        "RemoteLogSegmentMetadataUpdateRecord",
        Field("remote_log_segment_id", _SEGMENT_ID, "0+"),
        Field("broker_id", Int32, "0+"),
        Field("event_timestamp_ms", Int64, "0+"),
        _CUSTOM_METADATA,
        Field("remote_log_segment_state", Int8, "0+"),
    ),
    RemoteLogMetadataRecordType.REMOTE_PARTITION_DELETE_METADATA_RECORD: Schema(
        "RemotePartitionDeleteMetadataRecord",
        Field("topic_id_partition", _TOPIC_ID_PARTITION, "0+"),
        Field("broker_id", Int32, "0+"),
        Field("event_timestamp_ms", Int64, "0+"),
        Field("remote_partition_delete_state", Int8, "0+"),
    ),
    RemoteLogMetadataRecordType.REMOTE_LOG_SEGMENT_METADATA_SNAPSHOT_RECORD: Schema(
        "RemoteLogSegmentMetadataSnapshotRecord",
        Field("segment_id", Uuid, "0+"),
        Field("start_offset", Int64, "0+"),
        Field("end_offset", Int64, "0+"),
        Field("broker_id", Int32, "0+"),
        Field("max_timestamp_ms", Int64, "0+"),
        Field("event_timestamp_ms", Int64, "0+"),
        Field("segment_leader_epochs", Array(_LEADER_EPOCH), "0+"),
        Field("segment_size_in_bytes", Int32, "0+"),
        _CUSTOM_METADATA,
        Field("remote_log_segment_state", Int8, "0+"),
        Field("txn_index_empty", Boolean, "0+", tagged_versions="0+", tag=0, default=False),
    ),
}


def serialize(record_type: RemoteLogMetadataRecordType, data: Record) -> bytes:
    out = bytearray()
    UnsignedVarInt.write(out, FRAME_VERSION)
    UnsignedVarInt.write(out, int(record_type))
    UnsignedVarInt.write(out, RECORD_VERSION)
    SCHEMAS[record_type].write(out, data, RECORD_VERSION, True)
    return bytes(out)


def deserialize(data: bytes | memoryview) -> tuple[RemoteLogMetadataRecordType, Record]:
    """The record's type and body; ValueError for a frame, type or version this broker does not know."""
    reader = ByteReader(data)
    frame = UnsignedVarInt.read(reader)
    if frame != FRAME_VERSION:
        raise ValueError(f"unknown remote log metadata frame version {frame}")
    record_type = RemoteLogMetadataRecordType(UnsignedVarInt.read(reader))
    version = UnsignedVarInt.read(reader)
    if version != RECORD_VERSION:
        raise ValueError(f"unknown version {version} of {SCHEMAS[record_type].name}")
    return record_type, SCHEMAS[record_type].read(reader, version, True)


def new_record(record_type: RemoteLogMetadataRecordType, **fields) -> Record:
    return SCHEMAS[record_type].new(**fields)
