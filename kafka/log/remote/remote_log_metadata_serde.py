"""RemoteLogMetadataSerde: a remote segment's metadata events as the bytes of `__remote_log_metadata`
records and back (Kafka's org.apache.kafka.server.log.remote.metadata.storage.serialization.
RemoteLogMetadataSerde with its RemoteLogSegmentMetadataTransform, RemoteLogSegmentMetadataUpdateTransform
and RemotePartitionDeleteMetadataTransform).

The record schemas are the protocol's (kafka/protocol/remote_log_metadata_records.py); this module maps them
to RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate and RemotePartitionDeleteMetadata. A snapshot
record (RemoteLogSegmentMetadataSnapshotRecord, from Kafka's old snapshot files) is read back as None: no
partition's state is rebuilt from one.
"""

from __future__ import annotations

from kafka.log.remote.remote_log_segment_metadata import (
    RemoteLogSegmentId,
    RemoteLogSegmentMetadata,
    RemoteLogSegmentMetadataUpdate,
    RemoteLogSegmentState,
    RemotePartitionDeleteMetadata,
    RemotePartitionDeleteState,
)
from kafka.protocol import remote_log_metadata_records as records
from kafka.protocol.remote_log_metadata_records import RemoteLogMetadataRecordType as T
from kafka.protocol.schema import Record
from kafka.utils.topic_id_partition import TopicIdPartition

RemoteLogMetadata = RemoteLogSegmentMetadata | RemoteLogSegmentMetadataUpdate | RemotePartitionDeleteMetadata


def serialize(metadata: RemoteLogMetadata) -> bytes:
    if isinstance(metadata, RemoteLogSegmentMetadata):
        return records.serialize(T.REMOTE_LOG_SEGMENT_METADATA_RECORD, records.new_record(
            T.REMOTE_LOG_SEGMENT_METADATA_RECORD,
            remote_log_segment_id=_segment_id_entry(metadata.remote_log_segment_id),
            start_offset=metadata.start_offset, end_offset=metadata.end_offset, broker_id=metadata.broker_id,
            max_timestamp_ms=metadata.max_timestamp_ms, event_timestamp_ms=metadata.event_timestamp_ms,
            segment_leader_epochs=[dict(leader_epoch=epoch, offset=offset)
                                   for epoch, offset in sorted(metadata.segment_leader_epochs.items())],
            segment_size_in_bytes=metadata.segment_size_in_bytes, custom_metadata=metadata.custom_metadata,
            remote_log_segment_state=metadata.state.value, txn_index_empty=metadata.txn_index_empty))
    if isinstance(metadata, RemoteLogSegmentMetadataUpdate):
        return records.serialize(T.REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD, records.new_record(
            T.REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD,
            remote_log_segment_id=_segment_id_entry(metadata.remote_log_segment_id),
            broker_id=metadata.broker_id, event_timestamp_ms=metadata.event_timestamp_ms,
            custom_metadata=metadata.custom_metadata, remote_log_segment_state=metadata.state.value))
    if isinstance(metadata, RemotePartitionDeleteMetadata):
        kind = T.REMOTE_PARTITION_DELETE_METADATA_RECORD
        return records.serialize(kind, records.new_record(
            kind, topic_id_partition=_topic_id_partition_entry(metadata.topic_id_partition),
            broker_id=metadata.broker_id, event_timestamp_ms=metadata.event_timestamp_ms,
            remote_partition_delete_state=metadata.state.value))
    raise ValueError(f"Unsupported remote log metadata type: {type(metadata).__name__}")


def deserialize(data: bytes | memoryview) -> RemoteLogMetadata | None:
    record_type, record = records.deserialize(data)
    if record_type is T.REMOTE_LOG_SEGMENT_METADATA_RECORD:
        return RemoteLogSegmentMetadata(
            _segment_id(record.remote_log_segment_id), record.start_offset, record.end_offset,
            record.max_timestamp_ms, record.broker_id, record.event_timestamp_ms,
            record.segment_size_in_bytes,
            {e.leader_epoch: e.offset for e in record.segment_leader_epochs},
            RemoteLogSegmentState(record.remote_log_segment_state), _bytes(record.custom_metadata),
            record.txn_index_empty)
    if record_type is T.REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD:
        return RemoteLogSegmentMetadataUpdate(
            _segment_id(record.remote_log_segment_id), record.event_timestamp_ms,
            _bytes(record.custom_metadata), RemoteLogSegmentState(record.remote_log_segment_state),
            record.broker_id)
    if record_type is T.REMOTE_PARTITION_DELETE_METADATA_RECORD:
        return RemotePartitionDeleteMetadata(
            _topic_id_partition(record.topic_id_partition),
            RemotePartitionDeleteState(record.remote_partition_delete_state), record.event_timestamp_ms,
            record.broker_id)
    return None  # a snapshot record


def _topic_id_partition_entry(tip: TopicIdPartition) -> dict:
    return dict(name=tip.topic or "", id=tip.topic_id, partition=tip.partition)


def _segment_id_entry(segment_id: RemoteLogSegmentId) -> dict:
    return dict(topic_id_partition=_topic_id_partition_entry(segment_id.topic_id_partition), id=segment_id.id)


def _topic_id_partition(entry: Record) -> TopicIdPartition:
    return TopicIdPartition(entry.id, entry.name, entry.partition)


def _segment_id(entry: Record) -> RemoteLogSegmentId:
    return RemoteLogSegmentId(_topic_id_partition(entry.topic_id_partition), entry.id)


def _bytes(value) -> bytes | None:
    return None if value is None else bytes(value)
