"""What a share fetch does with the records it read (Kafka's kafka.server.share.ShareFetchUtils).

For each partition read: the member acquires what it may (SharePartition.acquire), and the response
carries the acquired ranges with the record batches that hold them, sliced to those batches. A read
that fell off the log's start (OFFSET_OUT_OF_RANGE: retention moved it) moves the share partition's
start to the log start instead, and answers no records and no error: the next fetch reads from there.
"""

from __future__ import annotations

import structlog

from kafka.protocol.control_records import ABORT, read_end_txn_marker
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import RecordBatch, iter_batches
from kafka.server.fetch_partition_data import FetchPartitionData
from kafka.server.share.record_state import RecordState
from kafka.server.share.share_acquired_records import AcquiredRecords, ShareAcquiredRecords
from kafka.server.share.share_errors import ShareError
from kafka.server.share.share_fetch import ShareFetch, partition_response
from kafka.utils.topic_id_partition import TopicIdPartition

log = structlog.get_logger("kafka.server.share.ShareFetchUtils")


def process_fetch_response(share_fetch: ShareFetch,
                           read: list[tuple[TopicIdPartition, int, FetchPartitionData]],
                           share_partitions: dict, metadata_provider,
                           exception_handler) -> dict[TopicIdPartition, dict]:
    """`read`: (partition, the offset fetched from, what the log gave). Acquires, up to the fetch's
    max records."""
    response: dict[TopicIdPartition, dict] = {}
    acquired_count = 0
    for tip, fetch_offset, data in read:
        share_partition = share_partitions[tip]
        partition_data = partition_response(tip, Errors.NONE)
        if data.error != Errors.NONE:
            if data.error != Errors.OFFSET_OUT_OF_RANGE:
                partition_data.update(error_code=data.error, error_message=data.error.message)
                response[tip] = partition_data
                continue
            try:
                share_partition.update_cache_and_offsets(
                    metadata_provider.offset_for_earliest_timestamp(tip, share_partition.leader_epoch))
            except Exception as e:  # noqa: BLE001  (no longer the leader: that partition's error only)
                error = ShareError(getattr(e, "error", Errors.UNKNOWN_SERVER_ERROR), str(e))
                share_fetch.add_erroneous(tip, error)
                exception_handler(share_partition, error)
                continue
            response[tip] = partition_data
            continue
        acquired = share_partition.acquire(share_fetch.member_id, share_fetch.acquire_mode,
                                           share_fetch.batch_size,
                                           share_fetch.max_fetch_records - acquired_count, fetch_offset, data,
                                           share_fetch.fetch_params.isolation)
        if acquired.acquired_records:
            partition_data.update(records=maybe_slice_fetch_records(bytes(data.records), acquired),
                                  acquired_records=[r.to_wire() for r in acquired.acquired_records])
            acquired_count += acquired.count
        response[tip] = partition_data
    return response


def maybe_slice_fetch_records(records: bytes, acquired: ShareAcquiredRecords) -> bytes:
    """Only the batches that hold acquired records (Kafka's maybeSliceFetchRecords): from the last batch
    starting at or before the first acquired offset to the last batch starting at or before the last."""
    first = acquired.acquired_records[0].first_offset
    last = acquired.acquired_records[-1].last_offset
    start, end = 0, len(records)
    for batch in iter_batches(records):
        if batch.base_offset <= first:
            start = batch.position
        elif batch.base_offset > last:
            end = batch.position
            break
    return records[start:end]


def aborted_transaction_batches(batches: list[RecordBatch], aborted_transactions: list) -> list[RecordBatch]:
    """The fetched batches of aborted transactions (Kafka's fetchAbortedTransactionRecordBatches): a producer
    is aborted from its aborted transaction's first offset until its ABORT marker, as the consumer's
    fetcher decides for read_committed."""
    pending = sorted(aborted_transactions, key=lambda txn: txn.first_offset)
    aborted_producers: set[int] = set()
    result = []
    for batch in batches:
        if batch.producer_id < 0:
            continue
        while pending and pending[0].first_offset <= batch.last_offset:
            aborted_producers.add(pending.pop(0).producer_id)
        if batch.is_control_batch:
            if read_end_txn_marker(batch)[0] == ABORT:
                aborted_producers.discard(batch.producer_id)
        elif batch.is_transactional and batch.producer_id in aborted_producers:
            result.append(batch)
    return result


def without_batches(runs: list[AcquiredRecords], batches: list[RecordBatch]) -> list[AcquiredRecords]:
    """The acquired runs with the batches' offsets cut out (Kafka's
    filterRecordBatchesFromAcquiredRecords)."""
    result = []
    for run in runs:
        pieces = [(run.first_offset, run.last_offset)]
        for batch in batches:
            pieces = [piece for first, last in pieces
                      for piece in ((first, min(last, batch.base_offset - 1)),
                                    (max(first, batch.last_offset + 1), last))
                      if piece[0] <= piece[1]]
        result += [AcquiredRecords(first, last, run.delivery_count) for first, last in pieces]
    return result


def filter_aborted_transactional_acquired_records(cached, batches: list[RecordBatch],
                                                  acquired: ShareAcquiredRecords,
                                                  aborted_transactions: list) -> ShareAcquiredRecords:
    """Archive, in a SharePartition's `cached` InFlightBatches, the acquired records of aborted transactions
    and hand out the rest (Kafka's SharePartition.filterAbortedTransactionalAcquiredRecords): the consumer
    never sees them, nobody acknowledges them."""
    to_archive = aborted_transaction_batches(batches, aborted_transactions)
    for batch in to_archive:
        cached.archive_range(batch.base_offset, batch.last_offset, RecordState.ACQUIRED)
    runs = without_batches(acquired.acquired_records, to_archive)
    return ShareAcquiredRecords(runs, sum(r.last_offset - r.first_offset + 1 for r in runs))
