"""RemoteLogOffsetReader: a ListOffsets lookup by timestamp on a tiered partition, run on a reader thread
(Kafka's org.apache.kafka.server.log.remote.storage.RemoteLogOffsetReader, with the
RemoteLogManager.findOffsetByTimestamp and lookupTimestamp it calls).

The first record at or after a timestamp may be in remote storage, in a local segment, or nowhere. The
lookup walks the partition's leader epochs from the one holding the starting offset (the log start
offset) and, in each, the remote segments whose largest timestamp reaches the target:

    a segment also (still) local   search the local segments, as a local lookup does
    a segment only remote          its cached time index, then its offset index, say where in the segment
                                   to start; the batches are streamed from there to the first record
                                   at or after the timestamp
    no such remote segment         search the local log from its local log start offset

KIP-1075: a remote lookup can be slow, so Kafka runs it here and parks the request in a purgatory.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from kafka.log.file_records import TimestampAndOffset
from kafka.log.remote.remote_log_input_stream import RemoteLogInputStream
from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentMetadata, RemoteLogSegmentState
from kafka.log.remote.remote_storage_manager import RemoteStorageException
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.log.remote.RemoteLogOffsetReader")


class RemoteLogOffsetReader:
    def __init__(self, rlm, tp: TopicPartition, timestamp: int, starting_offset: int, leader_epoch_cache,
                 search_in_local_log: Callable[[], TimestampAndOffset | None],
                 callback: Callable[[TimestampAndOffset | None, BaseException | None], None]) -> None:
        self.rlm = rlm
        self.tp = tp
        self.timestamp = timestamp
        self.starting_offset = starting_offset
        self.leader_epoch_cache = leader_epoch_cache
        self.search_in_local_log = search_in_local_log
        self.callback = callback

    def __call__(self) -> None:
        try:
            found = find_offset_by_timestamp(self.rlm, self.tp, self.timestamp, self.starting_offset,
                                             self.leader_epoch_cache)
            if found is None:  # not in remote storage: the local log, from its local log start offset
                found = self.search_in_local_log()
        except Exception as e:  # every error of the store, not only Kafka's own, goes back to the request
            log.error("error reading the remote log offset", topic_partition=str(self.tp), error=repr(e))
            self.callback(None, e)
            return
        self.callback(found, None)


def find_offset_by_timestamp(rlm, tp: TopicPartition, timestamp: int, starting_offset: int,
                             leader_epoch_cache) -> TimestampAndOffset | None:
    """The first record at or after `timestamp` and `starting_offset` among the remote segments, or in the
    local segments that overlap them (Kafka's findOffsetByTimestamp); None when there is none."""
    unified_log = rlm.fetch_log(tp)
    if unified_log is None:
        raise KeyError(f"UnifiedLog does not exist for topic partition: {tp}")
    topic_id_partition = rlm.topic_id_partition(tp)
    if topic_id_partition is None:
        raise RemoteStorageException(f"Topic id does not exist for topic partition: {tp}")
    epoch = leader_epoch_cache.epoch_for_offset(starting_offset)
    while epoch is not None:
        for metadata in rlm.remote_log_metadata_manager.list_remote_log_segments(topic_id_partition, epoch):
            if (metadata.max_timestamp_ms >= timestamp and metadata.end_offset >= starting_offset
                    and metadata.state is RemoteLogSegmentState.COPY_SEGMENT_FINISHED):
                segments = unified_log.segments  # a copy: retention may change the log meanwhile
                if not segments or metadata.start_offset < segments[0].base_offset:
                    return lookup_timestamp(rlm, metadata, timestamp, starting_offset)
                for segment in segments:
                    if segment.largest_timestamp >= timestamp:
                        return segment.find_offset_by_timestamp(timestamp, starting_offset)
        epoch = leader_epoch_cache.next_epoch(epoch)
    return None


def lookup_timestamp(rlm, metadata: RemoteLogSegmentMetadata, timestamp: int,
                     starting_offset: int) -> TimestampAndOffset | None:
    """Kafka's lookupTimestamp: from where the cached indexes point, the first record reaching both."""
    start_position = rlm.index_cache.lookup_timestamp(metadata, timestamp, starting_offset)
    stream = RemoteLogInputStream(rlm.remote_storage_manager.fetch_log_segment(metadata, start_position))
    try:
        while (batch := stream.next_batch()) is not None:
            if batch.max_timestamp >= timestamp and batch.last_offset >= starting_offset:
                for record in batch.skip_key_value_iterator():
                    if record.timestamp >= timestamp and record.offset >= starting_offset:
                        return TimestampAndOffset(record.timestamp, record.offset)
        return None
    finally:
        stream.stream.close()
