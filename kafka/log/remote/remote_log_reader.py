"""RemoteLogReader: one consumer fetch's read of remote storage, run on a reader thread (Kafka's
org.apache.kafka.server.log.remote.storage.RemoteLogReader, with the RemoteLogManager.read it calls).

A fetch below the leader's local log start offset finds no local segment to read. The ReplicaManager hands
a RemoteStorageFetchInfo to the RemoteLogManager's reader pool; a reader thread runs this task:

    read(rlm, fetch_info)
      the leader-epoch cache     which epoch wrote the fetch offset (epoch_for_offset)
      the RLMM                   which COPY_SEGMENT_FINISHED segment of that epoch holds it
      the RemoteIndexCache       where in that segment the offset's batch starts (its offset index)
      the RSM                    the segment's bytes from there, batch by batch (RemoteLogInputStream)
      -> the first batch holding the offset or a later one, then whole batches up to the fetch's max
         bytes (the first one whole even past the limit, as a local read gives it); a read_committed
         fetch also gets the aborted transactions among them, from the remote transaction indexes
         (and the local ones past the remote segments)
    then the callback: the result completes the DelayedRemoteFetch waiting in the purgatory.

Kafka keeps read() and its helpers in RemoteLogManager; here they sit beside the task that runs them,
so that remote_log_manager.py holds the copier and expiration tasks and this file the read path.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from kafka.log.errors import OffsetOutOfRangeError
from kafka.log.fetch_data_info import FetchDataInfo, LogOffsetMetadata
from kafka.log.fetch_isolation import FetchIsolation
from kafka.log.remote.remote_log_input_stream import RemoteLogInputStream
from kafka.log.remote.remote_log_read_result import RemoteLogReadResult
from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentMetadata
from kafka.log.remote.remote_storage_fetch_info import RemoteStorageFetchInfo
from kafka.log.transaction_index import AbortedTxn
from kafka.metrics.remote_storage_metrics import (
    REMOTE_FETCH_BYTES,
    REMOTE_FETCH_ERRORS,
    REMOTE_FETCH_REQUESTS,
)
from kafka.protocol.record_batch import RecordBatch
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.log.remote.RemoteLogReader")


class RemoteLogReader:
    """The task: read, count, call back. Its callback runs on the reader thread."""

    def __init__(self, fetch_info: RemoteStorageFetchInfo, rlm,
                 callback: Callable[[RemoteLogReadResult], None],
                 broker_topic_stats, remote_read_timer) -> None:
        self.fetch_info = fetch_info
        self.rlm = rlm
        self.callback = callback
        self.broker_topic_stats = broker_topic_stats
        self.remote_read_timer = remote_read_timer  # RemoteLogReaderFetchRateAndTimeMs
        broker_topic_stats.mark(REMOTE_FETCH_REQUESTS, fetch_info.topic_partition.topic)

    def __call__(self) -> None:
        topic = self.fetch_info.topic_partition.topic
        start_ns = self.rlm.time.nanoseconds()
        try:
            info = read(self.rlm, self.fetch_info)
            self.remote_read_timer.observe((self.rlm.time.nanoseconds() - start_ns) / 1e6)
            self.broker_topic_stats.mark(REMOTE_FETCH_BYTES, topic, len(info.records))
            result = RemoteLogReadResult(info)
        except OffsetOutOfRangeError as e:  # not a failure of the store: the offset is not there (any more)
            result = RemoteLogReadResult(error=e)
        except Exception as e:
            self.broker_topic_stats.mark(REMOTE_FETCH_ERRORS, topic)
            log.error("error reading remote storage", topic_partition=str(self.fetch_info.topic_partition),
                      fetch_offset=self.fetch_info.fetch_offset, error=repr(e))
            result = RemoteLogReadResult(error=e)
        self.callback(result)


def read(rlm, fetch_info: RemoteStorageFetchInfo) -> FetchDataInfo:
    """The batches from fetch_info's offset in remote storage (Kafka's RemoteLogManager.read). Raises
    OffsetOutOfRangeError when no remote segment holds the offset."""
    tp, offset = fetch_info.topic_partition, fetch_info.fetch_offset
    max_bytes = min(fetch_info.fetch_max_bytes, fetch_info.partition_max_bytes)
    include_aborted_txns = fetch_info.fetch_isolation is FetchIsolation.TXN_COMMITTED
    unified_log = rlm.fetch_log(tp)
    epoch = unified_log.leader_epoch_cache.epoch_for_offset(offset) if unified_log is not None else None
    metadata = rlm.fetch_remote_log_segment_metadata(tp, epoch, offset) if epoch is not None else None
    if metadata is None:
        raise OffsetOutOfRangeError(f"Received request for offset {offset} for leader epoch "
                                    f"{'NOT AVAILABLE' if epoch is None else epoch} and partition {tp} "
                                    f"which does not exist in remote tier.")
    # A compacted segment may no longer hold the offset: the next segment then has the next records.
    first_batch = stream = None
    start_position = 0
    while first_batch is None and metadata is not None:
        start_position = rlm.index_cache.lookup_offset(metadata, offset)
        stream = RemoteLogInputStream(rlm.remote_storage_manager.fetch_log_segment(metadata, start_position))
        first_batch, skipped = find_first_batch(stream, offset)
        if first_batch is None:
            stream.stream.close()
            metadata = find_next_segment_metadata(rlm, metadata, unified_log)
    if first_batch is None:
        return FetchDataInfo(LogOffsetMetadata(offset), aborted_transactions=[] if include_aborted_txns
                             else None)
    try:
        if not fetch_info.min_one_message and first_batch.size_in_bytes > max_bytes:
            # it does not fit, and nothing else may come first
            return FetchDataInfo(LogOffsetMetadata(offset))
        batches = [first_batch]
        size = first_batch.size_in_bytes
        while size < max_bytes and (batch := stream.next_batch()) is not None \
                and size + batch.size_in_bytes <= max_bytes:
            batches.append(batch)
            size += batch.size_in_bytes
    finally:
        stream.stream.close()
    records = b"".join(batch.bytes() for batch in batches)
    position = LogOffsetMetadata(first_batch.base_offset, metadata.start_offset, start_position + skipped)
    aborted = None
    if include_aborted_txns:
        aborted = collect_aborted_transactions(rlm, first_batch.base_offset, batches[-1].next_offset,
                                               metadata,
                                               unified_log)
    return FetchDataInfo(position, records, aborted_transactions=aborted)


def find_first_batch(stream: RemoteLogInputStream, offset: int) -> tuple[RecordBatch | None, int]:
    """The first batch whose last offset reaches `offset`, and the bytes skipped to get there."""
    skipped = 0
    while (batch := stream.next_batch()) is not None and batch.last_offset < offset:
        skipped += batch.size_in_bytes
    return batch, skipped


def find_next_segment_metadata(rlm, metadata: RemoteLogSegmentMetadata,
                               unified_log) -> RemoteLogSegmentMetadata | None:
    """The remote segment after this one, found by the epoch of its first offset (Kafka's
    findNextSegmentMetadata)."""
    next_offset = metadata.end_offset + 1
    epoch = unified_log.leader_epoch_cache.epoch_for_offset(next_offset)
    return None if epoch is None else rlm.fetch_remote_log_segment_metadata(metadata.topic_id_partition.
                                                                        topic_partition, epoch, next_offset)


def find_next_segment_with_txn_index(rlm, tp: TopicPartition, offset: int,
                                     unified_log) -> RemoteLogSegmentMetadata | None:
    """From `offset` on, the first remote segment whose transaction index is not empty, epoch by epoch
    (Kafka's findNextSegmentWithTxnIndex over the RLMM's nextSegmentWithTxnIndex)."""
    cache = unified_log.leader_epoch_cache
    initial_epoch = cache.epoch_for_offset(offset)
    if initial_epoch is None:
        return None
    for entry in cache.entries():
        if entry.epoch < initial_epoch:
            continue
        metadata = rlm.fetch_remote_log_segment_metadata(tp, entry.epoch, max(entry.start_offset, offset))
        while metadata is not None and metadata.txn_index_empty:
            metadata = rlm.fetch_remote_log_segment_metadata(tp, entry.epoch, metadata.end_offset + 1)
        if metadata is not None:
            return metadata
    return None


def collect_aborted_transactions(rlm, start_offset: int, upper_bound_offset: int,
                                 metadata: RemoteLogSegmentMetadata, unified_log) -> list[AbortedTxn]:
    """The aborted transactions overlapping [start_offset, upper_bound_offset): a transaction that began in
    an earlier segment has its ABORT marker, and so its index entry, in this one or a later one. The
    remote segments' indexes first, then the local segments' (Kafka's collectAbortedTransactions)."""
    found: dict[AbortedTxn, None] = {}  # insertion-ordered, without repeats
    tp = metadata.topic_id_partition.topic_partition
    next_metadata: RemoteLogSegmentMetadata | None = metadata
    while next_metadata is not None:
        if not next_metadata.txn_index_empty:
            result = rlm.index_cache.get_index_entry(next_metadata).txn_index.collect_aborted_txns(
                start_offset, upper_bound_offset)
            found.update(dict.fromkeys(result.aborted_transactions))
            if result.is_complete:
                return list(found)
        next_metadata = find_next_segment_with_txn_index(rlm, tp, next_metadata.end_offset + 1, unified_log)
    found.update(dict.fromkeys(unified_log.collect_aborted_transactions(start_offset, upper_bound_offset)))
    return list(found)
