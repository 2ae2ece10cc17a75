"""DelayedRemoteListOffsets: a ListOffsets waiting for its lookups by time in remote storage (Kafka's
org.apache.kafka.server.purgatory.DelayedRemoteListOffsets and ListOffsetsPartitionStatus, KIP-1075).

On a tiered partition the first record at or after a timestamp may be in remote storage, and finding it
means fetching indexes and streaming a segment: a RemoteLogOffsetReader does it on the reader pool. The
other partitions of the request are answered from their local logs at once; the request waits here, in
the RemoteListOffsets purgatory, until every lookup has answered or the timeout passed (the request's
TimeoutMs, v10+, else remote.list.offsets.request.timeout.ms):

    each partition's status   answered already, or waiting on its lookup (answered REQUEST_TIMED_OUT
                              if the wait runs out first)
    try_complete              a lookup done: its answer, held to the last fetchable offset (past the HW,
                              or the LSO for read_committed, it is no answer: -1); the partition moved
                              away: its error; every lookup answered: complete
    expiration                the lookups not started are cancelled

list_offsets_partition_status is the per-partition step of Kafka's ReplicaManager.fetchOffset, beside the
status it builds.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import InvalidStateError
from dataclasses import dataclass

from kafka.log.fetch_isolation import FetchIsolation
from kafka.log.remote.async_offset_read_future_holder import AsyncOffsetReadFutureHolder
from kafka.protocol.errors import Errors
from kafka.purgatory.delayed_operation import DelayedOperation
from kafka.server.partition_errors import PartitionError
from kafka.utils.topic_partition import TopicPartition

# The oldest ListOffsets version that may ask for each special timestamp (Kafka's
# ReplicaManager.timestampMinSupportedVersion); any other negative timestamp is not supported at all.
TIMESTAMP_MIN_SUPPORTED_VERSION = {-2: 1, -1: 1, -3: 7, -4: 8, -5: 9, -6: 11}


def is_list_offsets_timestamp_unsupported(timestamp: int, version: int) -> bool:
    """Kafka's isListOffsetsTimestampUnsupported: answered UNSUPPORTED_VERSION."""
    return timestamp < 0 and version < TIMESTAMP_MIN_SUPPORTED_VERSION.get(timestamp, 2**15)


def partition_response(partition: int, error: Errors = Errors.NONE, timestamp: int = -1, offset: int = -1,
                       leader_epoch: int | None = None) -> dict:
    """One ListOffsetsPartitionResponse; the leader epoch (v4+) only with an offset found."""
    response = dict(partition_index=partition, error_code=error, timestamp=timestamp, offset=offset)
    if leader_epoch is not None and offset >= 0:
        response["leader_epoch"] = leader_epoch
    return response


@dataclass
class ListOffsetsPartitionStatus:
    """One partition of a ListOffsets: its answer, or the lookup it waits for."""

    response: dict | None = None
    future_holder: AsyncOffsetReadFutureHolder | None = None
    last_fetchable_offset: int | None = None  # a found offset at or past it is no answer
    leader_epoch: int | None = None  # what the answer names (v4+)
    completed: bool = False


def list_offsets_partition_status(replica_manager, tp: TopicPartition, timestamp: int, isolation_level: int,
                                  replica_id: int, version: int) -> ListOffsetsPartitionStatus:
    """One partition of Kafka's ReplicaManager.fetchOffset: its answer now, or the lookup on the remote
    reader pool it will wait for, with the last fetchable offset that lookup's answer is held to."""
    if is_list_offsets_timestamp_unsupported(timestamp, version):
        return ListOffsetsPartitionStatus(partition_response(tp.partition, Errors.UNSUPPORTED_VERSION))
    partition, error = replica_manager.get_partition_or_error(tp)
    if partition is None:
        return ListOffsetsPartitionStatus(partition_response(tp.partition, error))
    epoch = partition.leader_epoch if version >= 4 else None
    isolation = FetchIsolation.of(replica_id, isolation_level)
    found = partition.fetch_offset_for_timestamp(timestamp, isolation, replica_manager.remote_log_manager)
    if isinstance(found, tuple):
        return ListOffsetsPartitionStatus(partition_response(tp.partition, Errors.NONE, *found, epoch))
    return ListOffsetsPartitionStatus(None, found, partition.last_fetchable_offset(isolation), epoch)


class DelayedRemoteListOffsets(DelayedOperation):
    def __init__(self, delay_ms: int, status_by_partition: dict[TopicPartition, ListOffsetsPartitionStatus],
                 replica_manager, response_callback: Callable[[dict[TopicPartition, dict]], None]) -> None:
        super().__init__(delay_ms)
        self.status_by_partition = status_by_partition
        self.replica_manager = replica_manager
        self.response_callback = response_callback
        for tp, status in status_by_partition.items():
            status.completed = status.future_holder is None
            if status.future_holder is not None:  # what the partition gets if the wait runs out
                status.response = partition_response(tp.partition, Errors.REQUEST_TIMED_OUT)

    def try_complete(self) -> bool:
        completable = True
        for tp, status in self.status_by_partition.items():
            if status.completed:
                continue
            holder = status.future_holder
            error = self.replica_manager.get_partition_or_error(tp)[1]
            if error != Errors.NONE:  # moved away: its lookup is moot
                holder.job_future.cancel()
                with contextlib.suppress(InvalidStateError):  # unless the reader answered meanwhile
                    holder.task_future.set_exception(PartitionError(error, f"{tp} is no longer led here"))
            if holder.task_future.done():
                status.response = self._response(tp, status)
                status.completed = True
            completable = completable and holder.task_future.done()
        return self.force_complete() if completable else False

    @staticmethod
    def _response(tp: TopicPartition, status: ListOffsetsPartitionStatus) -> dict:
        failure = status.future_holder.task_future.exception()
        if failure is not None:
            error = failure.error if isinstance(failure, PartitionError) else Errors.UNKNOWN_SERVER_ERROR
            return partition_response(tp.partition, error)
        found = status.future_holder.task_future.result()
        last_fetchable = status.last_fetchable_offset
        if found is None or (last_fetchable is not None and found.offset >= last_fetchable):
            return partition_response(tp.partition)
        return partition_response(tp.partition, Errors.NONE, found.timestamp, found.offset,
                                  status.leader_epoch)

    def on_expiration(self) -> None:
        for status in self.status_by_partition.values():
            if not status.completed:
                status.future_holder.job_future.cancel()

    def on_complete(self) -> None:
        self.response_callback({tp: status.response for tp, status in self.status_by_partition.items()})
