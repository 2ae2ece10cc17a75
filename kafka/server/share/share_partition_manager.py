"""SharePartitionManager: the share partitions this broker leads, and the share sessions of their
consumers (Kafka's kafka.server.share.SharePartitionManager, with its SharePartitionCache and
SharePartitionListener).

    ShareFetch       -> new_context (share session epochs)  -> fetch_messages -> DelayedShareFetch
    ShareAcknowledge -> acknowledge_session_update           -> acknowledge   -> SharePartition.acknowledge

Share partitions are made on first use, keyed by (group, topic id, partition), and loaded from the
persister. One is dropped (fenced) when this broker stops leading its partition (the partition
listener hears it), when its leader epoch moved under it, when the persister answers that it was
fenced, or when its group's last member leaves. Every answer is a Future completed from a callback:
no request thread waits on the persister or the purgatory.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future

import structlog

from kafka.coordinator.group.group_config_manager import GroupConfigManager
from kafka.metrics import metric_names as m
from kafka.protocol.errors import Errors
from kafka.purgatory.delayed_operation_key import TopicPartitionOperationKey
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory
from kafka.server.inter_broker_send_thread import InterBrokerSendThread
from kafka.server.replica_manager import FetchParams
from kafka.server.share.delayed_share_fetch import DelayedShareFetch
from kafka.server.share.delayed_share_fetch_key import DelayedShareFetchGroupKey
from kafka.server.share.dlq.default_share_group_dlq_manager import DefaultShareGroupDLQManager
from kafka.server.share.dlq.share_group_dlq_manager import NoOpShareGroupDLQManager, ShareGroupDLQManager
from kafka.server.share.dlq.share_group_dlq_metadata_cache_helper import ShareGroupDLQMetadataCacheHelper
from kafka.server.share.log_reader import ReplicaManagerLogReader
from kafka.server.share.partition_metadata_provider import ReplicaManagerPartitionMetadataProvider
from kafka.server.share.persister.persister import Persister
from kafka.server.share.session.share_fetch_context import (
    FinalContext,
    ShareFetchContext,
    ShareSessionContext,
)
from kafka.server.share.session.share_session import FINAL_EPOCH, INITIAL_EPOCH, ShareSessionKey, next_epoch
from kafka.server.share.session.share_session_cache import ShareSessionCache
from kafka.server.share.share_acknowledgement_batch import ShareAcknowledgementBatch
from kafka.server.share.share_errors import ShareError, error_of
from kafka.server.share.share_fetch import ShareFetch
from kafka.server.share.share_group_config_provider import ShareGroupConfigProvider
from kafka.server.share.share_group_metrics import ShareGroupMetrics
from kafka.server.share.share_partition import SharePartition
from kafka.server.share.share_partition_key import SharePartitionKey
from kafka.utils.time import Time
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.timer.system_timer_reaper import SystemTimerReaper
from kafka.utils.timer.timer import Timer
from kafka.utils.timer.timer_task import TimerTask
from kafka.utils.topic_id_partition import TopicIdPartition

log = structlog.get_logger("kafka.server.share.SharePartitionManager")
SHARE_VERSION = "share.version"  # level 2: share groups' dead-letter queues (Kafka's supportsShareGroupDLQ)

# The errors after which a share partition's view can no longer be trusted (Kafka's
# fencedSharePartitionHandler).
FENCING_ERRORS = (Errors.NOT_LEADER_OR_FOLLOWER, Errors.FENCED_STATE_EPOCH, Errors.GROUP_ID_NOT_FOUND,
                  Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.FENCED_LEADER_EPOCH)


class SharePartitionListener:
    """Kafka's SharePartitionManager.SharePartitionListener: the partition tells its share partitions
    that this broker no longer leads it (on_failed: it became a follower) or no longer hosts it."""

    def __init__(self, key: SharePartitionKey, manager: SharePartitionManager) -> None:
        self.key = key
        self.manager = manager

    def on_high_watermark_updated(self, tp, offset: int) -> None:
        pass  # new records reach waiting fetches through the purgatory's partition key

    def on_failed(self, tp) -> None:
        self.manager.remove_share_partition(self.key)

    def on_deleted(self, tp) -> None:
        self.manager.remove_share_partition(self.key)


class SharePartitionManager:
    def __init__(self, *, log_reader, metadata_provider, time: Time, timer: Timer,
                 purgatory: DelayedOperationPurgatory, action_queue: Callable[[Callable[[], None]], None],
                 persister: Persister, config_provider, metrics: ShareGroupMetrics,
                 session_cache: ShareSessionCache,
                 record_lock_duration_ms: int = 30000, max_delivery_count: int = 5,
                 max_in_flight_records: int = 2000, dlq_enabled: Callable[[], bool] = lambda: False,
                 dlq_manager: ShareGroupDLQManager | None = None) -> None:
        """`timer`: the share-group-lock-timeout timer (a SystemTimerReaper in the broker).
        `purgatory`: where DelayedShareFetch waits; the broker passes the ReplicaManager's fetch
        purgatory, whose partition keys every append checks. `action_queue`: where checks go that must
        not run under a delayed operation's lock (the ReplicaManager's add_to_action_queue). The ints:
        group.share.record.lock.duration.ms, group.share.delivery.count.limit and
        group.share.partition.max.record.locks. `dlq_enabled`: share.version 2 or more is finalized, so the
        share partitions of a group with a DLQ topic write to it through `dlq_manager`."""
        self.log_reader = log_reader
        self.metadata_provider = metadata_provider
        self.time = time
        self.timer = timer
        self.purgatory = purgatory
        self.action_queue = action_queue
        self.persister = persister
        self.config_provider = config_provider
        self.metrics = metrics
        self.cache = session_cache
        self.record_lock_duration_ms = record_lock_duration_ms
        self.max_delivery_count = max_delivery_count
        self.max_in_flight_records = max_in_flight_records
        self.dlq_enabled = dlq_enabled
        self.dlq_manager = dlq_manager or NoOpShareGroupDLQManager()
        self._partitions: dict[SharePartitionKey, SharePartition] = {}  # Kafka's SharePartitionCache
        self._lock = threading.Lock()
        self.cache.register_share_group_listener(self)
        metrics.register_gauges(self._in_flight_samples, self.cache.size, self.cache.total_partitions)

    @classmethod
    def build(cls, node_id: int, config, replica_manager, persister: Persister, time: Time,
              metrics_group=None, group_config_manager: GroupConfigManager | None = None,
              metadata_cache=None) -> SharePartitionManager:
        """Kafka's SharePartitionManager as the BrokerServer builds it, from the broker's group.share.*
        keys (`config`, a KafkaConfig): reads and leader epochs through the ReplicaManager, a share-session
        cache of group.share.max.share.sessions, the acquisition locks on a timer reaper of their own,
        DelayedShareFetch in a ShareFetch purgatory that the ReplicaManager checks where a high watermark
        moves, and each group's own configs from the broker's GroupConfigManager (none without one). With
        the `metadata_cache`, a DefaultShareGroupDLQManager writes to groups' DLQ topics once share.version
        2 is finalized (else no DLQ: Kafka's NoOpShareGroupDLQManager)."""
        metrics = ShareGroupMetrics(time, metrics_group)
        replica_manager.delayed_share_fetch_purgatory = DelayedOperationPurgatory(
            "ShareFetch", broker_id=node_id, time=time,
            purge_interval=config.share_fetch_purgatory_purge_interval_requests)
        log_reader = ReplicaManagerLogReader(replica_manager)
        dlq_manager = None
        if metadata_cache is not None:
            dlq_manager = _dlq_manager(node_id, config, metadata_cache, group_config_manager, log_reader,
                                       time)

        def dlq_enabled() -> bool:  # Kafka's ShareVersion.supportsShareGroupDLQ of the finalized level
            features = metadata_cache.finalized_features if metadata_cache is not None else {}
            return features.get(SHARE_VERSION, 0) >= 2
        return cls(log_reader=log_reader,
                   metadata_provider=ReplicaManagerPartitionMetadataProvider(replica_manager), time=time,
                   timer=SystemTimerReaper(f"share-group-lock-timeout-reaper-{node_id}",
                                           SystemTimer("share-group-lock-timeout", time=time)),
                   purgatory=replica_manager.delayed_share_fetch_purgatory,
                   action_queue=replica_manager.add_to_action_queue, persister=persister,
                   config_provider=ShareGroupConfigProvider.for_manager(group_config_manager)
                   if group_config_manager is not None else ShareGroupConfigProvider(), metrics=metrics,
                   session_cache=ShareSessionCache(config.group_share_max_share_sessions,
                                                   on_eviction=metrics.session_evictions.inc),
                   record_lock_duration_ms=config.group_share_record_lock_duration_ms,
                   max_delivery_count=config.group_share_delivery_count_limit,
                   max_in_flight_records=config.group_share_partition_max_record_locks,
                   dlq_enabled=dlq_enabled, dlq_manager=dlq_manager)

    # ------------------------------------------------------------------ the share partition cache
    def share_partition(self, group_id: str, tip: TopicIdPartition) -> SharePartition | None:
        return self._partitions.get(SharePartitionKey(group_id, tip))

    def _get_or_create_share_partition(self, key: SharePartitionKey) -> SharePartition:
        with self._lock:
            share_partition = self._partitions.get(key)
            if share_partition is not None:
                return share_partition
            tip = key.topic_id_partition
            leader_epoch = self.metadata_provider.leader_epoch(tip)  # raises unless this broker leads it
            listener = SharePartitionListener(key, self)
            share_partition = SharePartition(
                key.group_id, tip, leader_epoch, max_in_flight_records=self.max_in_flight_records,
                max_delivery_count=self.max_delivery_count,
                record_lock_duration_ms=self.record_lock_duration_ms,
                timer=self.timer, time=self.time, persister=self.persister,
                metadata_provider=self.metadata_provider,
                config_provider=self.config_provider,
                metrics=self.metrics.for_partition(key.group_id, tip.topic, tip.partition),
                delayed_request_notifier=self._notify, listener=listener, dlq_enabled=self.dlq_enabled,
                dlq_manager=self.dlq_manager)
            self._partitions[key] = share_partition
        self.metadata_provider.add_partition_listener(tip, listener)
        return share_partition

    def remove_share_partition(self, key: SharePartitionKey) -> None:
        """Fence and forget it; fetches waiting on it are answered (Kafka's removeSharePartitionFromCache)."""
        with self._lock:
            share_partition = self._partitions.pop(key, None)
            last_of_its_group = not any(k.group_id == key.group_id for k in self._partitions)
        if share_partition is None:
            return
        share_partition.mark_fenced()
        share_partition.metrics.close()
        if last_of_its_group:
            self.metrics.remove_group(key.group_id)
        self.metadata_provider.remove_partition_listener(key.topic_id_partition, share_partition.listener)
        # Queued: a DelayedShareFetch that met the fencing error holds its own lock while it calls us.
        self.action_queue(lambda: self._notify(share_partition))
        log.info("share partition removed", group=key.group_id, partition=str(key.topic_id_partition))

    def _fence_if_needed(self, share_partition: SharePartition, error: BaseException) -> None:
        if error_of(error) in FENCING_ERRORS:
            self.remove_share_partition(SharePartitionKey(share_partition.group_id, share_partition.tip))

    def _fence_if_stale(self, share_partition: SharePartition) -> SharePartition | None:
        """A share partition of an older leadership (the partition moved and came back) is dropped."""
        try:
            current = self.metadata_provider.leader_epoch(share_partition.tip)
        except Exception:  # noqa: BLE001  (not the leader any more)
            current = None
        if current == share_partition.leader_epoch:
            return share_partition
        self.remove_share_partition(SharePartitionKey(share_partition.group_id, share_partition.tip))
        return None

    def _notify(self, share_partition: SharePartition) -> None:
        """A share partition's state changed: fetches waiting on it look again."""
        tip = share_partition.tip
        self.purgatory.check_and_complete(DelayedShareFetchGroupKey(share_partition.group_id, tip.topic_id,
                                                                    tip.partition))

    def _in_flight_samples(self):
        return [((key.group_id, key.topic_id_partition.topic, str(key.topic_id_partition.partition)),
                 sp.num_in_flight_records(), len(sp.cached)) for key, sp in list(self._partitions.items())]

    # ------------------------------------------------------------------ share sessions
    def new_context(self, group_id: str, share_fetch_data: list[TopicIdPartition],
                    to_forget: list[TopicIdPartition],
                    member_id: str, share_session_epoch: int, is_acknowledge_data_present: bool,
                    connection_id: str) -> ShareFetchContext:
        """The share session this ShareFetch uses, opened, moved to its next epoch or closed; raises
        ShareError SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH, SHARE_SESSION_LIMIT_REACHED or
        INVALID_REQUEST (acknowledgements in an opening request: it holds nothing yet)."""
        key = ShareSessionKey(group_id, member_id)
        if share_session_epoch == FINAL_EPOCH:
            if self.cache.get(key) is None:
                raise ShareError(Errors.SHARE_SESSION_NOT_FOUND)
            return FinalContext()
        if share_session_epoch == INITIAL_EPOCH:
            if is_acknowledge_data_present:
                raise ShareError(Errors.INVALID_REQUEST, "Acknowledge data present in Initial Fetch Request")
            self.cache.remove(key)  # a member re-opening its session starts afresh
            if self.cache.maybe_create_session(group_id, member_id, share_fetch_data, connection_id) is None:
                raise ShareError(Errors.SHARE_SESSION_LIMIT_REACHED)
            return ShareSessionContext(share_session_epoch, share_fetch_data=share_fetch_data)
        session = self.cache.get(key)
        if session is None:
            raise ShareError(Errors.SHARE_SESSION_NOT_FOUND)
        with session.lock:
            if session.epoch != share_session_epoch:
                raise ShareError(Errors.INVALID_SHARE_SESSION_EPOCH)
        session.update(share_fetch_data, to_forget)
        self.cache.update_num_partitions(session)
        with session.lock:
            session.epoch = next_epoch(session.epoch)
        return ShareSessionContext(share_session_epoch, session=session)

    def acknowledge_session_update(self, group_id: str, member_id: str, share_session_epoch: int) -> None:
        """A ShareAcknowledge moves its session's epoch on too (epoch 0 is refused: nothing to
        acknowledge yet)."""
        if share_session_epoch == INITIAL_EPOCH:
            raise ShareError(Errors.INVALID_SHARE_SESSION_EPOCH)
        session = self.cache.get(ShareSessionKey(group_id, member_id))
        if session is None:
            raise ShareError(Errors.SHARE_SESSION_NOT_FOUND)
        if share_session_epoch == FINAL_EPOCH:
            return
        with session.lock:
            if session.epoch != share_session_epoch:
                raise ShareError(Errors.INVALID_SHARE_SESSION_EPOCH)
            session.epoch = next_epoch(session.epoch)
        self.cache.update_num_partitions(session)

    def release_session(self, group_id: str, member_id: str) -> Future:
        """Close the member's session and release what it holds: {partition: error or None}."""
        key = ShareSessionKey(group_id, member_id)
        session = self.cache.remove(key)
        if session is None:
            return _failed(ShareError(Errors.SHARE_SESSION_NOT_FOUND))
        futures: dict[TopicIdPartition, Future] = {}
        for tip in session.partitions():
            share_partition = self.share_partition(group_id, tip)
            if share_partition is None:
                continue
            futures[tip] = share_partition.release_acquired_records(member_id)
            self._notify(share_partition)
        return self._gather(futures, group_id)

    # the ShareGroupListener the session cache calls
    def on_member_leave(self, group_id: str, member_id: str) -> None:
        self.release_session(group_id, member_id)

    def on_group_empty(self, group_id: str) -> None:
        for key in [key for key in list(self._partitions) if key.group_id == group_id]:
            self.remove_share_partition(key)

    # ------------------------------------------------------------------ fetch
    def fetch_messages(self, group_id: str, member_id: str, params: FetchParams, acquire_mode: int,
                       session_epoch: int, max_fetch_records: int, batch_size: int,
                       partitions: list[TopicIdPartition]) -> Future:
        """A future of {partition: ShareFetch PartitionData}, completed from the purgatory. The partitions
        are rotated by the session epoch, so no partition always comes first (Kafka's round robin)."""
        future: Future = Future()
        if partitions:
            shift = max(session_epoch, 0) % len(partitions)
            partitions = partitions[shift:] + partitions[:shift]
        share_fetch = ShareFetch(params, group_id, member_id, future, partitions, acquire_mode, batch_size,
                                 max_fetch_records, on_failed_topics=self._mark_failed_share_fetch)
        self._process_share_fetch(share_fetch)
        return future

    def _process_share_fetch(self, share_fetch: ShareFetch) -> None:
        if (not share_fetch.topic_id_partitions or share_fetch.max_fetch_records == 0
                or share_fetch.fetch_params.max_bytes == 0):
            share_fetch.maybe_complete({})
            return
        share_partitions: dict[TopicIdPartition, SharePartition] = {}
        keys: list = []
        for tip in share_fetch.topic_id_partitions:
            key = SharePartitionKey(share_fetch.group_id, tip)
            try:
                share_partition = self._get_or_create_share_partition(key)
                # a leadership ago: start again from the persister
                if self._fence_if_stale(share_partition) is None:
                    share_partition = self._get_or_create_share_partition(key)
            except Exception as e:  # noqa: BLE001  (not the leader: that partition's answer)
                share_fetch.add_erroneous(tip,
                                          ShareError(getattr(e, "error", Errors.UNKNOWN_SERVER_ERROR),
                                                     str(e)))
                continue
            keys += [DelayedShareFetchGroupKey(share_fetch.group_id, tip.topic_id, tip.partition),
                     TopicPartitionOperationKey(tip.topic, tip.partition)]
            self._maybe_initialize(key, share_partition, share_fetch)
            share_partitions[tip] = share_partition
        self.metrics.mark_topic(m.TOTAL_SHARE_FETCH_REQUESTS,
                                {tip.topic for tip in share_fetch.topic_id_partitions})
        if share_fetch.error_in_all_partitions():
            share_fetch.maybe_complete({})
            return
        operation = DelayedShareFetch(share_fetch, self.log_reader, self.metadata_provider,
                                      self._fence_if_needed,
                                      share_partitions, self.metrics, self.time, self._notify_released)
        self.purgatory.try_complete_else_watch(operation, keys)

    def _mark_failed_share_fetch(self, topics: set[str]) -> None:
        self.metrics.mark_topic(m.FAILED_SHARE_FETCH_REQUESTS, topics)

    def _maybe_initialize(self, key: SharePartitionKey, share_partition: SharePartition,
                          share_fetch: ShareFetch) -> None:
        initialization = share_partition.maybe_initialize()
        already = initialization.done()

        def initialized(done: Future) -> None:
            error = done.exception()
            # still loading: retry later
            if error is not None and error_of(error) != Errors.LEADER_NOT_AVAILABLE:
                self.remove_share_partition(key)
                share_fetch.add_erroneous(key.topic_id_partition, error)
            if not already:
                self.metrics.partition_load_time_ms(share_partition.load_start_time_ms)
                self._notify(share_partition)

        initialization.add_done_callback(initialized)

    def _notify_released(self, group_id: str, tips: list[TopicIdPartition]) -> None:
        """A finished fetch let its fetch locks go: fetches of the group waiting on them may take them now.
        Queued, not run (Kafka's releasePartitionLocksAndAddToActionQueue): the finished fetch holds its
        own lock, and a waiting fetch completing at the same moment would check it back."""
        def check_waiting_fetches() -> None:
            for tip in tips:
                self.purgatory.check_and_complete(DelayedShareFetchGroupKey(group_id, tip.topic_id,
                                                                            tip.partition))
        self.action_queue(check_waiting_fetches)

    # ------------------------------------------------------------------ acknowledge
    def acknowledge(self, member_id: str, group_id: str,
                    acknowledge_topics: dict[TopicIdPartition, list[ShareAcknowledgementBatch]]) -> Future:
        """A future of {partition: error (Errors.NONE when accepted)}."""
        futures: dict[TopicIdPartition, Future] = {}
        for tip, batches in acknowledge_topics.items():
            share_partition = self.share_partition(group_id, tip)
            if share_partition is None:
                futures[tip] = _failed(ShareError(Errors.UNKNOWN_TOPIC_OR_PARTITION))
                continue
            futures[tip] = share_partition.acknowledge(member_id, batches)
            for batch in batches:
                for ack_type in batch.acknowledge_types if len(batch.acknowledge_types) > 1 else ():
                    self.metrics.record_acknowledgement(ack_type)
                if len(batch.acknowledge_types) == 1:
                    self.metrics.record_acknowledgement(batch.acknowledge_types[0],
                                                        batch.last_offset - batch.first_offset + 1)
            self._notify(share_partition)
        self.metrics.mark_topic(m.TOTAL_SHARE_ACKNOWLEDGEMENT_REQUESTS,
                                {tip.topic for tip in acknowledge_topics})
        return self._gather(futures, group_id, failed_meter=m.FAILED_SHARE_ACKNOWLEDGEMENT_REQUESTS)

    def _gather(self, futures: dict[TopicIdPartition, Future], group_id: str, failed_meter=None) -> Future:
        """One future of {partition: (error, message)} once each partition's has completed."""
        result: Future = Future()
        answers: dict[TopicIdPartition, tuple[Errors, str | None]] = {}
        lock = threading.Lock()
        if not futures:
            result.set_result(answers)
            return result

        def one_done(tip: TopicIdPartition, done: Future) -> None:
            error = done.exception()
            if error is not None:
                share_partition = self.share_partition(group_id, tip)
                if share_partition is not None:
                    self._fence_if_needed(share_partition, error)
            with lock:
                answers[tip] = (Errors.NONE, None) if error is None else (error_of(error), str(error))
                finished = len(answers) == len(futures)
            if finished:
                if failed_meter is not None:
                    self.metrics.mark_topic(failed_meter,
                                            {t.topic for t, (e, _) in answers.items() if e != Errors.NONE})
                result.set_result(answers)

        for tip, future in futures.items():
            future.add_done_callback(lambda done, tip=tip: one_done(tip, done))
        return result

    def create_idle_share_fetch_timer_task(self, max_wait_ms: int) -> Future:
        """A future done after max_wait_ms (a request refused for now is answered no sooner, so that the
        client does not retry in a tight loop: Kafka's IdleShareFetchTimerTask)."""
        future: Future = Future()
        self.timer.add(_IdleShareFetchTimerTask(max_wait_ms, future))
        return future

    def on_share_version_toggle(self, enabled: bool) -> None:
        """share.version went to 0 (Kafka's onShareVersionToggle): every share session and share partition
        goes, so nothing of share groups stays in memory while they are off."""
        if enabled:
            return
        self.cache.remove_all_sessions()
        for key in list(self._partitions):
            self.remove_share_partition(key)

    def shutdown(self) -> None:
        self.timer.shutdown()
        self.dlq_manager.stop()


class _IdleShareFetchTimerTask(TimerTask):
    def __init__(self, delay_ms: int, future: Future) -> None:
        super().__init__(delay_ms)
        self.future = future

    def run(self) -> None:
        self.future.set_result(None)


def _dlq_manager(node_id: int, config, metadata_cache, group_config_manager, log_reader,
                 time: Time) -> DefaultShareGroupDLQManager:
    """Kafka's BrokerServer.createShareGroupDLQManager: Produce requests to the DLQ partitions' leaders on
    the inter-broker listener, from a send thread of its own, retries on a timer of its own."""
    listener = config.inter_broker_listener_name
    channel = InterBrokerSendThread(f"ShareGroupDLQStateManager-{node_id}", node_id, 30_000, time,
                                    config.client_configs(listener))
    group_configs = group_config_manager.group_props if group_config_manager is not None else (lambda g: {})
    helper = ShareGroupDLQMetadataCacheHelper(metadata_cache, group_configs, config, listener)
    timer = SystemTimerReaper(f"share-group-dlq-reaper-{node_id}", SystemTimer("share-group-dlq", time=time))
    return DefaultShareGroupDLQManager.instance(channel, helper, time, timer, log_reader)


def _failed(error: BaseException) -> Future:
    future: Future = Future()
    future.set_exception(error)
    return future

