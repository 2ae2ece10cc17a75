"""DelayedRemoteFetch: a consumer fetch waiting for its reads of remote storage (Kafka's
org.apache.kafka.server.purgatory.DelayedRemoteFetch, KIP-405), and process_remote_fetches, which starts
them (Kafka's ReplicaManager.processRemoteFetches, kept beside the operation it creates).

A partition whose fetch offset is below the leader's local log start offset has its records only in
remote storage. The local read of the fetch (every partition, in request order) says so with a
RemoteStorageFetchInfo instead of records; then:

    process_remote_fetches
      each such partition -> RemoteLogManager.async_read: a task on the reader pool, whose callback
                              completes that partition's result and checks the purgatory
      (a full pool refuses at once: that partition's result is the error, and nothing waits for it)
      -> one DelayedRemoteFetch in the RemoteFetch purgatory, watching every partition of the fetch

    try_complete   a partition moved away (not leader, unknown, offline)   -> complete now
                   every remote read has answered                          -> complete now
    expiration     after remote.fetch.max.wait.ms: the reads not taken by a thread yet are cancelled
    on_complete    the local results as they were read, each remote partition's replaced by what its
                   reader read (or the error it met); the response callback sends them

The request handler thread that read the fetch never waits: it returns once the operation is watched.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

import structlog

from kafka.log.errors import OffsetOutOfRangeError
from kafka.log.remote.remote_log_read_result import RemoteLogReadResult
from kafka.log.remote.remote_storage_fetch_info import RemoteStorageFetchInfo
from kafka.log.remote.remote_storage_thread_pool import RejectedExecutionError
from kafka.protocol.errors import Errors
from kafka.purgatory.delayed_operation import DelayedOperation
from kafka.purgatory.delayed_operation_key import TopicPartitionOperationKey
from kafka.server.fetch_partition_data import FetchPartitionData
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.server.DelayedRemoteFetch")

FetchResults = list[tuple[TopicPartition, FetchPartitionData]]


class DelayedRemoteFetch(DelayedOperation):
    def __init__(self, remote_fetch_tasks: dict[TopicPartition, Future],
                 remote_fetch_results: dict[TopicPartition, Future],
                 remote_fetch_infos: dict[TopicPartition, RemoteStorageFetchInfo],
                 remote_fetch_max_wait_ms: int,
                 params, local_read_results: FetchResults, replica_manager,
                 response_callback: Callable[[FetchResults], None]) -> None:
        super().__init__(remote_fetch_max_wait_ms)
        if params.is_from_follower:
            raise ValueError(f"a follower never reads remote storage: {params}")
        self.remote_fetch_tasks = remote_fetch_tasks  # the reader pool's tasks, to cancel on expiry
        self.remote_fetch_results = remote_fetch_results  # each partition's RemoteLogReadResult, when read
        self.remote_fetch_infos = remote_fetch_infos
        self.params = params
        self.local_read_results = local_read_results  # every partition of the fetch, in request order
        self.replica_manager = replica_manager
        self.response_callback = response_callback

    def try_complete(self) -> bool:
        for tp, data in self.local_read_results:
            if data.fetch_offset_metadata is None:  # answered with an error already: nothing to watch
                continue
            if self.replica_manager.get_partition_or_error(tp)[1] != Errors.NONE:
                return self.force_complete()  # no longer the leader, unknown, or offline here
        if all(result.done() for result in self.remote_fetch_results.values()):
            return self.force_complete()  # every remote read has answered
        return False

    def on_expiration(self) -> None:
        for tp, task in self.remote_fetch_tasks.items():
            if not task.done() and not task.cancel():
                log.debug("the remote read could not be cancelled", fetch_info=self.remote_fetch_infos[tp])

    def on_complete(self) -> None:
        self.response_callback([(tp, self._partition_data(tp, data)) for tp, data in self.local_read_results])

    def _partition_data(self, tp: TopicPartition, local: FetchPartitionData) -> FetchPartitionData:
        """The local result, or for a remote partition whose read answered, what the reader read."""
        result_future = self.remote_fetch_results.get(tp)
        if (result_future is None or not result_future.done() or local.error != Errors.NONE
                or local.delayed_remote_storage_fetch is None):
            return local  # not read in time: answered with no records, the consumer asks again
        result: RemoteLogReadResult = result_future.result()
        if result.error is not None:
            return FetchPartitionData(error_for(result.error))
        info = result.fetch_data_info
        return FetchPartitionData(Errors.NONE, local.high_watermark, local.log_start_offset,
                                  local.last_stable_offset, info.records, info.aborted_transactions)


def error_for(error: BaseException) -> Errors:
    """Kafka's Errors.forException for what a remote read may raise: an offset no remote segment holds is
    OFFSET_OUT_OF_RANGE; a store's failure, or a refused task, UNKNOWN_SERVER_ERROR."""
    return Errors.OFFSET_OUT_OF_RANGE if isinstance(error,
                                                    OffsetOutOfRangeError) else Errors.UNKNOWN_SERVER_ERROR


def process_remote_fetches(replica_manager, remote_fetch_infos: dict[TopicPartition, RemoteStorageFetchInfo],
                           params, response_callback: Callable[[FetchResults], None],
                           local_read_results: FetchResults) -> None:
    """Start every remote read of the fetch and park it until they answer (Kafka's processRemoteFetches)."""
    tasks: dict[TopicPartition, Future] = {}
    results: dict[TopicPartition, Future] = {}
    for tp, fetch_info in remote_fetch_infos.items():
        tasks[tp], results[tp] = process_remote_fetch(replica_manager, fetch_info)
    operation = DelayedRemoteFetch(tasks, results, remote_fetch_infos,
                                   replica_manager.config.remote_fetch_max_wait_ms,
                                   params, local_read_results, replica_manager, response_callback)
    keys = [TopicPartitionOperationKey(tp.topic, tp.partition) for tp, _ in local_read_results]
    replica_manager.delayed_remote_fetch_purgatory.try_complete_else_watch(operation, keys)


def process_remote_fetch(replica_manager, fetch_info: RemoteStorageFetchInfo) -> tuple[Future, Future]:
    """One partition's read on the reader pool: (its task, its result). The reader's callback completes
    the result and checks the purgatory, on the reader thread."""
    tp = fetch_info.topic_partition
    result: Future = Future()

    def on_read(read_result: RemoteLogReadResult) -> None:
        result.set_result(read_result)
        replica_manager.delayed_remote_fetch_purgatory.check_and_complete(
            TopicPartitionOperationKey(tp.topic, tp.partition))

    try:
        task = replica_manager.remote_log_manager.async_read(fetch_info, on_read)
    except RejectedExecutionError as e:  # the pool's queue is full: this partition is answered with the error
        log.warning("unable to fetch data from remote storage", fetch_info=fetch_info, error=str(e))
        result.set_result(RemoteLogReadResult(error=e))
        task = result
    return task, result
