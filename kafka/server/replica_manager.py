"""ReplicaManager: the partitions this broker hosts, and appending to and fetching from them
(Kafka's kafka.server.ReplicaManager).

Seed 000, "Replica Manager": append and fetch logic moved out of KafkaApis into this class, which
owns the produce and fetch purgatories, so KafkaApis only handles "request-level application logic".
Both entry points take a response callback instead of returning a response: the answer may come
at once, or later from a purgatory, on whatever thread completes the operation.

    append_records(timeout, acks, records per partition, callback)
        -> Partition.append_records_to_leader -> UnifiedLog.append_as_leader
        -> one LogAppendResult per partition: its answer, and the offset acks=all waits for
        -> acks=all and the HW is behind: DelayedProduce waits in the produce purgatory
    fetch_messages(params, partitions, callback)
        -> Partition.fetch_records -> UnifiedLog.read (a follower's fetch also moves its state, the HW)
        -> fewer than min_bytes ready: DelayedFetch waits in the fetch purgatory

Seed 004, replication: the metadata publisher makes this broker leader or follower of each of its
partitions (make_leader / make_follower). A follower's partitions are fetched from their leaders by
the ReplicaFetcherManager's threads; a leader's in-sync replicas are checked for lag every half
replica.lag.time.max.ms (the isr-expiration task) and its ISR changes go to the controller through
the AlterPartitionManager. Every append wakes the follower fetches waiting in the fetch purgatory,
so a follower hears of new records at once rather than after replica.fetch.wait.max.ms.

A partition whose log cannot be created or loaded (a full or failed log dir, EMFILE) is hosted
offline (Kafka's HostedPartition.Offline): produce, fetch and ListOffsets for it answer
KAFKA_STORAGE_ERROR instead of pointing clients at a leader that cannot serve it, it is not retried
until the broker restarts (or the topic is deleted), and `offline_partitions` says which they are.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import structlog

from kafka.clients.metadata import Node
from kafka.log.append_origin import AppendOrigin
from kafka.log.errors import (
    KafkaStorageError,
    LogDirError,
    OffsetOutOfRangeError,
)
from kafka.log.fetch_data_info import LogOffsetMetadata
from kafka.log.fetch_isolation import FetchIsolation
from kafka.log.file_records import FileRecords
from kafka.log.log_config import INTERNAL_TOPICS, LogConfig
from kafka.log.log_manager import LogManager
from kafka.log.log_validator import RecordValidationError
from kafka.log.remote.remote_storage_fetch_info import RemoteStorageFetchInfo
from kafka.log.remote.stop_partition import StopPartition
from kafka.metrics.broker_topic_stats import BrokerTopicStats
from kafka.metrics.isr_change_meters import IsrChangeMeters
from kafka.protocol.errors import Errors
from kafka.purgatory.delayed_action_queue import DelayedActionQueue
from kafka.purgatory.delayed_operation_key import TopicPartitionOperationKey
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory
from kafka.server.delayed_fetch import DelayedFetch
from kafka.server.delayed_produce import DelayedProduce, PartitionResponse, ProducePartitionStatus
from kafka.server.delayed_remote_fetch import process_remote_fetches
from kafka.server.delayed_remote_list_offsets import DelayedRemoteListOffsets, list_offsets_partition_status
from kafka.server.fetch_params import FetchParams
from kafka.server.fetch_partition_data import FetchPartitionData, FetchPartitionInfo
from kafka.server.log_append_result import APPEND_ERRORS, LogAppendResult
from kafka.server.metadata_cache import PartitionState
from kafka.server.partition import Partition
from kafka.server.partition_errors import PartitionError
from kafka.server.remote_leader_end_point import ReplicaFetchConfig
from kafka.server.replica_fetcher_manager import InitialFetchState, ReplicaFetcherManager
from kafka.utils.native_memory import release_free_memory
from kafka.utils.repeated_error_log import RepeatedErrorLog
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.server.ReplicaManager")


def release_records(results: list[tuple[TopicPartition, FetchPartitionData]]) -> None:
    """Close the file slices of a read that will not be sent (its descriptors go back at once)."""
    for _, data in results:
        if isinstance(data.records, FileRecords):
            data.records.close()


class ReplicaManager:
    def __init__(self, config, log_manager: LogManager, metadata_cache, time: Time,
                 produce_purgatory: DelayedOperationPurgatory | None = None,
                 fetch_purgatory: DelayedOperationPurgatory | None = None, remote_log_manager=None) -> None:
        self.config = config
        self.local_broker_id = config.node_id
        self.log_manager = log_manager
        self.metadata_cache = metadata_cache
        self.time = time
        self.scheduler = None  # given at startup: isr-expiration, a Produce's retry-add-partitions-to-txn
        self.all_partitions: dict[TopicPartition, Partition] = {}
        # Kafka's HostedPartition.Offline: partitions this broker should host but cannot, and why.
        self._offline_partitions: dict[TopicPartition, str] = {}
        self._errors = RepeatedErrorLog(log, time)
        self._partitions_lock = threading.Lock()
        self.delayed_produce_purgatory = produce_purgatory or DelayedOperationPurgatory(
            "Produce", broker_id=self.local_broker_id, time=time)
        self.delayed_fetch_purgatory = fetch_purgatory or DelayedOperationPurgatory(
            "Fetch", broker_id=self.local_broker_id, time=time)
        # Tiered storage (KIP-405): consumer fetches and ListOffsets waiting for the remote reader pool.
        self.remote_log_manager = remote_log_manager
        self.delayed_remote_fetch_purgatory, self.delayed_remote_list_offsets_purgatory = (
            DelayedOperationPurgatory(name, broker_id=self.local_broker_id, time=time)
            for name in ("RemoteFetch", "RemoteListOffsets"))
        if remote_log_manager is not None:  # a finished offset lookup completes the ListOffsets waiting on it
            remote_log_manager.offset_read_listener = self.try_complete_delayed_requests
        # share fetches waiting for records to acquire (KIP-932's DelayedShareFetch): KafkaServer sets it
        self.delayed_share_fetch_purgatory: DelayedOperationPurgatory | None = None
        # checks a completing operation leaves for later, run by KafkaApis after each request (Kafka's
        # defaultActionQueue): a DelayedShareFetch letting its fetch locks go, a share partition fenced
        self.action_queue = DelayedActionQueue()
        self.expired_produce_count = 0
        self.expired_fetch_count = 0
        self.broker_topic_stats = BrokerTopicStats()  # KafkaServer swaps in the exported one
        self.alter_partition_manager = None  # KafkaServer sets it: ISR changes go to the controller
        self.replica_lag_time_max_ms = config.replica_lag_time_max_ms
        self.replica_fetcher_manager = ReplicaFetcherManager(
            self.local_broker_id, self, ReplicaFetchConfig.from_kafka_config(config),
            config.num_replica_fetchers, time)
        self.isr_change_meters = IsrChangeMeters()  # KafkaServer swaps in the exported ones

    # ------------------------------------------------------------------ hosting partitions
    def get_partition(self, tp: TopicPartition) -> Partition | None:
        return self.all_partitions.get(tp)

    def get_partition_or_error(self, tp: TopicPartition) -> tuple[Partition | None, Errors]:
        """Kafka's getPartitionOrError: the partition if this broker leads it, else why not. A
        partition that exists but is not (or no longer) hosted here is NOT_LEADER_OR_FOLLOWER, which
        sends the client to fresh metadata; UNKNOWN_TOPIC_OR_PARTITION means it exists nowhere."""
        partition = self.all_partitions.get(tp)
        if partition is None:
            if tp in self._offline_partitions:
                return None, Errors.KAFKA_STORAGE_ERROR
            topic = self.metadata_cache.get_topic(tp.topic) if self.metadata_cache is not None else None
            if topic is not None and topic.partition(tp.partition) is not None:
                return None, Errors.NOT_LEADER_OR_FOLLOWER
            return None, Errors.UNKNOWN_TOPIC_OR_PARTITION
        if not partition.is_leader:
            return None, Errors.NOT_LEADER_OR_FOLLOWER
        return partition, Errors.NONE

    def make_leader(self, tp: TopicPartition, state: PartitionState, log_config: LogConfig) -> Partition:
        """The controller made this broker the leader of tp (Kafka's makeLeaders, for one partition):
        stop fetching it, and serve it."""
        partition = self._get_or_create_partition(tp, log_config)
        self.replica_fetcher_manager.remove_fetcher_for_partitions([tp])
        partition.make_leader(state)
        self._on_remote_leadership_change(partition, leader=True)
        self.try_complete_delayed_requests(tp)  # waiting produces and fetches see the new state
        return partition

    def make_follower(self, tp: TopicPartition, state: PartitionState, log_config: LogConfig) -> Partition:
        """Another broker leads tp (Kafka's makeFollowers): stop serving it and fetch it from the
        leader, starting with truncation. With no leader (offline), just stop."""
        partition = self._get_or_create_partition(tp, log_config)
        if partition.make_follower(state):
            self.replica_fetcher_manager.remove_fetcher_for_partitions([tp])
            known = state.leader >= 0 and self.metadata_cache is not None
            leader = self.metadata_cache.get_broker(state.leader) if known else None
            listener = self.config.inter_broker_listener_name
            end_point = leader.end_point(listener) if leader is not None else None
            if end_point is not None:
                self.replica_fetcher_manager.add_fetcher_for_partitions({tp: InitialFetchState(
                    Node(state.leader, end_point.host, end_point.port), state.leader_epoch,
                    partition.log_end_offset)})
            elif state.leader >= 0:
                log.warning("leader has no inter-broker listener in the metadata; not fetching",
                            topic_partition=str(tp), leader=state.leader,
                            listener=self.config.inter_broker_listener_name)
            self.replica_fetcher_manager.shutdown_idle_fetcher_threads()
        self._on_remote_leadership_change(partition, leader=False)
        self.try_complete_delayed_requests(tp)  # a produce waiting on a former leadership is answered
        return partition

    def _on_remote_leadership_change(self, partition: Partition, leader: bool) -> None:
        known = self.remote_log_manager is not None and self.metadata_cache is not None
        topic = self.metadata_cache.get_topic(partition.topic) if known else None
        if topic is not None:  # Kafka's applyDelta tells the RemoteLogManager of each leadership change
            self.remote_log_manager.on_partition_leadership_change(partition, topic.topic_id, leader)

    def stop_replicas(self, tps: list[TopicPartition], delete: bool) -> None:
        """This broker is no longer a replica of tps (a reassignment moved them away): stop
        fetching, stop hosting, and delete the logs (Kafka's stopReplicas)."""
        self.replica_fetcher_manager.remove_fetcher_for_partitions(tps)
        with self._partitions_lock:
            stopped = [p for tp, p in self.all_partitions.items() if tp in tps]
            self.all_partitions = {tp: p for tp, p in self.all_partitions.items() if tp not in tps}
            for tp in tps:
                self._offline_partitions.pop(tp, None)
        if self.remote_log_manager is not None:
            self.remote_log_manager.stop_partitions([StopPartition(tp, delete) for tp in tps])
        for partition in stopped:
            partition.delete()
        for tp in tps:
            if delete:
                self.log_manager.delete_log(tp.topic, tp.partition)
            self.try_complete_delayed_requests(tp)
        self.replica_fetcher_manager.shutdown_idle_fetcher_threads()

    def _get_or_create_partition(self, tp: TopicPartition, log_config: LogConfig) -> Partition:
        """The hosted partition, created with its log if new. Raises KafkaStorageError if the log
        cannot be created (and then the partition is offline here until a restart)."""
        with self._partitions_lock:
            partition = self.all_partitions.get(tp)
            if partition is None:
                offline = self._offline_partitions.get(tp)
                if offline is not None:
                    raise KafkaStorageError("", f"{tp} is offline on this broker: {offline}")
                try:
                    unified_log = self.log_manager.get_or_create_log(tp.topic, tp.partition, log_config)
                except KafkaStorageError as e:
                    self._offline_partitions[tp] = str(e)
                    raise
                partition = Partition(tp, unified_log, self.local_broker_id, self.time,
                                      self.replica_lag_time_max_ms,
                                      self.alter_partition_manager, listener=self)
                self.all_partitions = {**self.all_partitions, tp: partition}
            return partition

    def delete_partitions(self, topic: str) -> None:
        """Stop hosting a topic and delete its logs; anyone waiting on it is answered now. The fetchers
        let go of its partitions first (Kafka's removeFetcherForPartitions, then stop hosting): a
        fetcher never asks for a partition this broker no longer has."""
        self.replica_fetcher_manager.remove_fetcher_for_partitions(
            [tp for tp in self.all_partitions if tp.topic == topic])
        with self._partitions_lock:
            gone = [tp for tp in self.all_partitions if tp.topic == topic]
            deleted = [self.all_partitions[tp] for tp in gone]
            self.all_partitions = {tp: p for tp, p in self.all_partitions.items() if tp.topic != topic}
            self._offline_partitions = {tp: e for tp, e in self._offline_partitions.items()
                                        if tp.topic != topic}
        if self.remote_log_manager is not None:  # Kafka's stopPartitions: tiered data goes too
            self.remote_log_manager.stop_partitions(
                [StopPartition(p.topic_partition, True, p.log.remote_log_enabled) for p in deleted])
        for partition in deleted:
            partition.delete()
        for tp in gone:
            self.log_manager.delete_log(tp.topic, tp.partition)
            self.try_complete_delayed_requests(tp)
        self.broker_topic_stats.remove_metrics(topic)
        release_free_memory()  # what the topic's requests left in the C heap goes back to the OS

    def is_offline(self, tp: TopicPartition) -> bool:
        return tp in self._offline_partitions

    def offline_partitions(self) -> dict[TopicPartition, str]:
        """The partitions this broker should host but cannot (their log dir failed), and why."""
        return dict(self._offline_partitions)

    def get_log_config(self, tp: TopicPartition) -> LogConfig | None:
        """The config of tp's log, if this broker hosts it (Kafka's getLogConfig)."""
        partition = self.get_partition(tp)
        return partition.log.config if partition is not None else None

    # -- the coordinator runtime's PartitionWriter: hearing the high watermark move
    def maybe_add_listener(self, tp: TopicPartition, listener) -> bool:
        """Register a PartitionListener (on_high_watermark_updated(tp, offset), on_failed(tp), on_deleted(tp))
        with tp if this broker hosts it (Kafka's maybeAddListener). False if it does not."""
        partition = self.get_partition(tp)
        return partition is not None and partition.maybe_add_listener(listener)

    def remove_listener(self, tp: TopicPartition, listener) -> None:
        partition = self.get_partition(tp)
        if partition is not None:
            partition.remove_listener(listener)

    # ------------------------------------------------------------------ produce
    def append_records(self, timeout_ms: int, required_acks: int, internal_topics_allowed: bool,
                       entries_per_partition: dict[TopicPartition, bytes],
                       response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None],
                       origin: AppendOrigin = AppendOrigin.CLIENT) -> None:
        """Kafka's appendRecords. `origin` is CLIENT for a ProduceRequest (no control batches, sequences
        checked) and COORDINATOR for a coordinator's own writes (transaction markers, sequences not
        checked)."""
        results = self.append_records_to_leader(required_acks, internal_topics_allowed, entries_per_partition,
                                                origin)
        responses = {tp: result.partition_response() for tp, result in results.items()}
        if self._delayed_produce_required(required_acks, results):
            produce_statuses = {tp: ProducePartitionStatus(result.required_offset, responses[tp],
                                                           acks_pending=result.error == Errors.NONE)
                                for tp, result in results.items()}
            operation = DelayedProduce(timeout_ms, produce_statuses, self, response_callback)
            keys = [TopicPartitionOperationKey(tp.topic, tp.partition) for tp in results]
            self.delayed_produce_purgatory.try_complete_else_watch(operation, keys)
        else:
            response_callback(responses)

    def append_records_to_leader(self, required_acks: int, internal_topics_allowed: bool,
                                 entries_per_partition: dict[TopicPartition, bytes],
                                 origin: AppendOrigin = AppendOrigin.CLIENT,
                                 ) -> dict[TopicPartition, LogAppendResult]:
        """Kafka's appendRecordsToLeader: the local appends alone, each partition's LogAppendResult returned
        at once, nothing waiting in the produce purgatory. The coordinator runtime writes this way
        (requiredAcks=1, AppendOrigin.COORDINATOR) and waits for the high watermark itself."""
        results: dict[TopicPartition, LogAppendResult] = {}
        for tp, records in entries_per_partition.items():
            result = self.append_to_local_log(tp, records, required_acks, internal_topics_allowed, origin)
            self._update_produce_stats(tp, records, result)
            results[tp] = result
            if result.hw_moved:
                self.try_complete_delayed_requests(tp)
            elif result.error == Errors.NONE:  # the LEO moved: followers waiting for it may go
                self.delayed_fetch_purgatory.check_and_complete(TopicPartitionOperationKey(tp.topic,
                                                                                           tp.partition))
        return results

    @staticmethod
    def _delayed_produce_required(required_acks: int, results: dict[TopicPartition, LogAppendResult]) -> bool:
        # Wait only for acks=all, and only if at least one partition appended successfully.
        return required_acks == -1 and any(result.error == Errors.NONE for result in results.values())

    def append_to_local_log(self, tp: TopicPartition, records: bytes, required_acks: int,
                            internal_topics_allowed: bool, origin: AppendOrigin = AppendOrigin.CLIENT,
                            ) -> LogAppendResult:
        """Append one partition's records (Kafka's appendToLocalLog, for one partition)."""
        if tp.topic in INTERNAL_TOPICS and not internal_topics_allowed:  # Kafka's Topic.isInternal
            return LogAppendResult.failed(Errors.INVALID_TOPIC_EXCEPTION,
                                          f"cannot append to internal topic {tp.topic}")
        partition, error = self.get_partition_or_error(tp)
        if partition is None:
            return LogAppendResult.failed(error)
        try:
            info, hw_moved = partition.append_records_to_leader(records, required_acks, origin)
        except RecordValidationError as e:  # KIP-467: which records, and why
            return LogAppendResult.failed(Errors[e.error], str(e), tuple(e.record_errors),
                                          partition.log_start_offset)
        except KafkaStorageError as e:  # a full disk, an I/O error: nothing was appended
            self.log_manager.log_dir_failure_channel.maybe_add_offline_log_dir(e.log_dir, str(e))
            return LogAppendResult.failed(Errors.KAFKA_STORAGE_ERROR, str(e))
        # it stopped leading after get_partition_or_error looked (NOT_LEADER_OR_FOLLOWER)
        except PartitionError as e:
            return LogAppendResult.failed(e.error, str(e))
        except APPEND_ERRORS as e:
            return LogAppendResult.for_exception(e, partition.log_start_offset)
        self.log_manager.log_dir_failure_channel.mark_online(partition.log.parent_dir)
        self.broker_topic_stats.record_append(tp.topic, info.num_messages, info.valid_bytes)
        return LogAppendResult(info, hw_moved=hw_moved)

    def _update_produce_stats(self, tp: TopicPartition, records: bytes, result: LogAppendResult) -> None:
        error = result.error
        # A topic that does not exist gets no series: a typo in a client must not grow /metrics.
        if error == Errors.UNKNOWN_TOPIC_OR_PARTITION:
            return
        self.broker_topic_stats.record_produce_request(tp.topic)
        if error != Errors.NONE:
            self.broker_topic_stats.record_failed_produce(tp.topic)
            # Kafka logs these at DEBUG too; the reason is here, the answer carries none (partition_response)
            log.debug("append failed", topic_partition=str(tp), error=error.name, reason=result.error_message)
        if error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE):
            self.broker_topic_stats.record_bytes_rejected(tp.topic, len(records))

    def add_to_action_queue(self, action) -> None:
        self.action_queue.add(action)

    def try_complete_actions(self) -> None:
        """What completing operations queued (KafkaApis calls it at the end of every request)."""
        self.action_queue.try_complete_actions()

    def try_complete_delayed_requests(self, tp: TopicPartition) -> None:
        """The HW of tp moved (or tp went away): waiting produces and fetches may now be done."""
        key = TopicPartitionOperationKey(tp.topic, tp.partition)
        self.delayed_produce_purgatory.check_and_complete(key)
        self.delayed_fetch_purgatory.check_and_complete(key)
        self.delayed_remote_fetch_purgatory.check_and_complete(key)
        self.delayed_remote_list_offsets_purgatory.check_and_complete(key)
        if self.delayed_share_fetch_purgatory is not None:
            self.delayed_share_fetch_purgatory.check_and_complete(key)

    # ------------------------------------------------------------------ what Partitions tell us
    def on_high_watermark_moved(self, tp: TopicPartition) -> None:
        """The HW moved outside a request (an ISR shrink was committed): waiting requests may go."""
        self.try_complete_delayed_requests(tp)

    def on_isr_change(self, tp: TopicPartition, shrink: bool) -> None:
        if shrink:
            self.isr_change_meters.mark_shrink()
        else:
            self.isr_change_meters.mark_expand()

    def on_failed_isr_update(self, tp: TopicPartition) -> None:
        self.isr_change_meters.mark_failed_update()

    def record_follower_append(self, tp: TopicPartition, size: int) -> None:
        """A fetcher copied `size` bytes of tp from its leader (ReplicationBytesInPerSec)."""
        self.broker_topic_stats.record_replication_bytes_in(size)

    def producer_id_count(self) -> int:
        """Producer ids tracked by this broker's partitions (KIP-847's ProducerIdCount gauge)."""
        return sum(partition.producer_id_count for partition in list(self.all_partitions.values()))

    def maybe_shrink_isr(self) -> None:
        """Kafka's isr-expiration task: every leader drops its lagging followers from the ISR."""
        for partition in list(self.all_partitions.values()):
            partition.maybe_shrink_isr()

    def startup(self, scheduler) -> None:
        """Schedule isr-expiration (every half replica.lag.time.max.ms, as Kafka does)."""
        self.scheduler = scheduler
        interval = max(1, self.replica_lag_time_max_ms // 2)
        scheduler.schedule("isr-expiration", self.maybe_shrink_isr, interval, interval)

    def record_expired_produce(self, partitions: list[TopicPartition]) -> None:
        self.expired_produce_count += 1

    # ------------------------------------------------------------------ fetch
    def fetch_messages(self, params: FetchParams,
                       fetch_infos: list[tuple[TopicPartition, FetchPartitionInfo]],
                       response_callback: Callable[[list[tuple[TopicPartition, FetchPartitionData]]], None],
                       ) -> None:
        results = self.read_from_local_log(params, fetch_infos, zero_copy=True)
        bytes_readable = sum(len(data.records) for _, data in results)
        # An error, or a log that diverged, is answered at once (the fetcher must truncate first).
        has_error = any(data.error != Errors.NONE or data.diverging_epoch is not None for _, data in results)
        # Partitions whose records are only in remote storage: read on the reader pool, not here (KIP-405).
        remote_fetch_infos = {tp: data.delayed_remote_storage_fetch for tp, data in results
                              if data.delayed_remote_storage_fetch is not None}
        if remote_fetch_infos:
            process_remote_fetches(self, remote_fetch_infos, params, response_callback, results)
            return
        if params.max_wait_ms <= 0 or not fetch_infos or bytes_readable >= params.min_bytes or has_error:
            response_callback(results)
            return
        release_records(results)  # not enough yet: the DelayedFetch reads again when it completes
        # Kafka's FetchPartitionStatus.startOffsetMetadata: where each read started, to count from.
        fetch_positions = {tp: data.fetch_offset_metadata for tp, data in results
                           if data.fetch_offset_metadata is not None
                           and not data.fetch_offset_metadata.message_offset_only}
        operation = DelayedFetch(params.max_wait_ms, params, fetch_infos, self, response_callback,
                                 fetch_positions)
        keys = [TopicPartitionOperationKey(tp.topic, tp.partition) for tp, _ in fetch_infos]
        self.delayed_fetch_purgatory.try_complete_else_watch(operation, keys)

    def read_from_local_log(self, params: FetchParams,
                            fetch_infos: list[tuple[TopicPartition, FetchPartitionInfo]],
                            zero_copy: bool = False) -> list[tuple[TopicPartition, FetchPartitionData]]:
        """Read each partition in order until the response's max_bytes is spent.

        The first partition with data always gets at least one whole batch, even one larger than
        the limits, so a consumer can never be stuck behind a batch it is not allowed to receive.
        With zero_copy (a response for the network) the records are FileRecords slices, which the
        network thread sends with os.sendfile (seed 002's zero copy)."""
        remaining = params.max_bytes
        min_one_message = True
        results = []
        for tp, info in fetch_infos:
            data = self._read_partition(tp, info, params, remaining, min_one_message, zero_copy)
            if data.error != Errors.UNKNOWN_TOPIC_OR_PARTITION:
                self.broker_topic_stats.record_fetch_request(tp.topic)
                if data.error not in (Errors.NONE, Errors.OFFSET_OUT_OF_RANGE):  # Kafka's "expected" errors
                    self.broker_topic_stats.record_failed_fetch(tp.topic)
            # A remote read may take all the bytes it was given (Kafka's readFromLog counts them so).
            taken = len(data.records) or (data.delayed_remote_storage_fetch.fetch_max_bytes
                                          if data.delayed_remote_storage_fetch is not None else 0)
            if taken:
                remaining -= taken
                min_one_message = False
            results.append((tp, data))
        return results

    def _read_partition(self, tp: TopicPartition, info: FetchPartitionInfo, params: FetchParams,
                        remaining: int, min_one_message: bool, zero_copy: bool = False) -> FetchPartitionData:
        if params.fetch_only_from_leader:
            partition, error = self.get_partition_or_error(tp)
        else:
            partition = self.get_partition(tp)
            error = Errors.NONE if partition is not None else Errors.UNKNOWN_TOPIC_OR_PARTITION
        if partition is None:  # answered as Kafka answers a partition it does not look up: no aborted list
            return FetchPartitionData(error, aborted_transactions=[])
        limit = max(0, min(info.max_bytes, remaining))
        try:
            read, hw_moved = partition.fetch_records(params.replica_id, info.fetch_offset,
                                                     info.current_leader_epoch,
                                                     limit, min_one_message, zero_copy, params.isolation,
                                                     info.last_fetched_epoch)
        except PartitionError as e:  # not the leader (any more), or another leader epoch
            return FetchPartitionData(e.error)
        except OffsetOutOfRangeError:  # below the local log, maybe in remote storage; or out of range
            return self._handle_offset_out_of_range_error(tp, info, params, limit, min_one_message, partition)
        except (OSError, LogDirError) as e:
            if self.get_partition(tp) is None:  # the topic was deleted while we were reading it
                return FetchPartitionData(Errors.UNKNOWN_TOPIC_OR_PARTITION)
            self._errors.error("error reading a log", key="read", topic_partition=str(tp), error=str(e))
            return FetchPartitionData(Errors.KAFKA_STORAGE_ERROR)  # as Kafka answers a read from a failed dir
        if hw_moved:  # a follower's fetch committed records: acks=all produces may be answered now
            self.try_complete_delayed_requests(tp)
        return FetchPartitionData(Errors.NONE, read.high_watermark, read.log_start_offset,
                                  read.last_stable_offset, read.records, read.aborted_transactions,
                                  read.fetch_offset_metadata, read.diverging_epoch)

    def _handle_offset_out_of_range_error(self, tp: TopicPartition, info: FetchPartitionInfo,
                                          params: FetchParams, limit: int, min_one_message: bool,
                                          partition: Partition) -> FetchPartitionData:
        """Kafka's handleOffsetOutOfRangeError: an offset of a tiered log below its local log start is in
        remote storage. A follower is told so (OFFSET_MOVED_TO_TIERED_STORAGE), a consumer's read goes to
        the reader pool. Otherwise a failed read: OFFSET_OUT_OF_RANGE, no offsets at all."""
        log_ = partition.log
        if self.remote_log_manager is None or not log_.remote_log_enabled:  # not tiered: out of range
            return FetchPartitionData(Errors.OFFSET_OUT_OF_RANGE)
        # BEGIN LAB 15 SOLUTION: remote if log start <= offset < local start: tell a follower, or wait
        if not log_.log_start_offset <= info.fetch_offset < log_.local_log_start_offset:
            return FetchPartitionData(Errors.OFFSET_OUT_OF_RANGE)
        if params.is_from_follower:
            return FetchPartitionData(Errors.OFFSET_MOVED_TO_TIERED_STORAGE, log_.high_watermark,
                                      log_.log_start_offset)
        remote = (RemoteStorageFetchInfo(limit, min_one_message, tp, info.fetch_offset, info.max_bytes,
                                         params.isolation) if limit > 0 else None)
        return FetchPartitionData(Errors.NONE, log_.high_watermark, log_.log_start_offset,
                                  log_.last_stable_offset, b"", None, LogOffsetMetadata(info.fetch_offset),
                                  delayed_remote_storage_fetch=remote)
        # END LAB 15 SOLUTION

    def record_expired_fetch(self) -> None:
        self.expired_fetch_count += 1

    # ------------------------------------------------------------------ offsets
    def last_offset_for_leader_epoch(self, tp: TopicPartition, current_leader_epoch: int, leader_epoch: int
                                     ) -> tuple[Errors, int, int]:
        """OffsetsForLeaderEpoch for one partition: (error, epoch, end offset) (Kafka's
        lastOffsetForLeaderEpoch). Only the leader answers: followers ask it before they fetch."""
        partition, error = self.get_partition_or_error(tp)
        if partition is None:
            return error, -1, -1
        try:
            epoch, end_offset = partition.last_offset_for_leader_epoch(current_leader_epoch, leader_epoch)
        except PartitionError as e:
            return e.error, -1, -1
        return Errors.NONE, epoch, end_offset

    def fetch_offset_for_timestamp(self, tp: TopicPartition, timestamp: int, isolation_level: int,
                                   replica_id: int) -> tuple[Errors, int, int]:
        """ListOffsets for one partition: (error, timestamp, offset)."""
        partition, error = self.get_partition_or_error(tp)
        if partition is None:
            return error, -1, -1
        found_timestamp, offset = partition.fetch_offset_for_timestamp(
            timestamp, FetchIsolation.of(replica_id, isolation_level))
        return Errors.NONE, found_timestamp, offset

    def fetch_offset(self, partitions: dict[TopicPartition, int], isolation_level: int, replica_id: int,
                     version: int, timeout_ms: int, response_callback: Callable[[dict], None]) -> None:
        """Kafka's fetchOffset: ListOffsets for every partition of a request (tp -> timestamp), answered
        through response_callback (tp -> partition response). A tiered partition's lookup by time runs
        on the remote reader pool, and the answer waits for it as a DelayedRemoteListOffsets."""
        statuses = {tp: list_offsets_partition_status(self, tp, timestamp, isolation_level, replica_id,
                                                      version) for tp, timestamp in partitions.items()}
        if not any(status.future_holder is not None for status in statuses.values()):
            response_callback({tp: status.response for tp, status in statuses.items()})
            return
        delay_ms = timeout_ms if timeout_ms > 0 else self.config.remote_list_offsets_request_timeout_ms
        operation = DelayedRemoteListOffsets(delay_ms, statuses, self, response_callback)
        keys = [TopicPartitionOperationKey(tp.topic, tp.partition) for tp in statuses]
        self.delayed_remote_list_offsets_purgatory.try_complete_else_watch(operation, keys)

    def delete_records(self, tp: TopicPartition, offset: int) -> tuple[Errors, int]:
        """DeleteRecords for one partition: move the log start offset to `offset` (-1: the high
        watermark). Returns (error, the new low watermark). Kafka waits in a DelayedDeleteRecords
        purgatory for followers to follow; with one replica the answer is immediate."""
        partition, error = self.get_partition_or_error(tp)
        if partition is None:
            return error, -1
        if offset < -1:
            return Errors.OFFSET_OUT_OF_RANGE, -1
        try:
            low_watermark = partition.log.maybe_increment_log_start_offset(
                partition.high_watermark if offset == -1 else offset)
        except OffsetOutOfRangeError:
            return Errors.OFFSET_OUT_OF_RANGE, -1
        return Errors.NONE, low_watermark

    # -- group coordinator: reading __consumer_offsets back at load time
    def read_partition_log(self, tp: TopicPartition, fetch_offset: int, max_bytes: int) -> FetchPartitionData:
        """Batches of one local partition from fetch_offset to its log end. The group and transaction
        coordinators replay their partitions this way (they never see a Log), to the log end as Kafka's
        loads read (FetchIsolation.LOG_END): a new leader's high watermark can lag its log end, since
        the old leader may have died before telling it the last advance, and what is in the log it now
        leads is what its followers will copy. A load bounded by the HW would miss the last writes:
        a transaction's offsets whose COMMIT marker then lands on a group that never knew of them."""
        params = FetchParams(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=max_bytes, to_log_end=True)
        return self._read_partition(tp, FetchPartitionInfo(fetch_offset, max_bytes), params, max_bytes, True)

    def shutdown(self) -> None:
        self.replica_fetcher_manager.shutdown()
        self.delayed_produce_purgatory.shutdown()
        self.delayed_fetch_purgatory.shutdown()
        self.delayed_remote_fetch_purgatory.shutdown()
        self.delayed_remote_list_offsets_purgatory.shutdown()
        if self.delayed_share_fetch_purgatory is not None:
            self.delayed_share_fetch_purgatory.shutdown()
        if self.remote_log_manager is not None:
            self.remote_log_manager.close()
