"""TransactionStateManager: the transaction coordinator's cache and its log (Kafka's
kafka.coordinator.transaction.TransactionStateManager).

Seed 000: "the coordinators append through ReplicaManager". Every change of a transactional id is
a record appended to its partition of the internal, compacted ``__transaction_state`` topic with
acks=-1 (``append_transaction_to_log``), and the cached TransactionMetadata changes only in the
append's callback, once the record is committed. Which partition holds a transactional id is
``abs(java_hash(transactional_id)) % transaction.state.log.num.partitions`` (the group coordinator's
rule); the leader of that partition is the id's coordinator.

A broker that becomes leader of a partition loads it (``load_transactions_for_txn_topic_partition``):
meanwhile its ids answer COORDINATOR_LOAD_IN_PROGRESS, and once loaded every transaction found in
PrepareCommit or PrepareAbort has its markers sent again, since the previous coordinator may have
died between the two records. A broker that stops leading it drops its ids (NOT_COORDINATOR). The
cache entry remembers the coordinator epoch -- the partition's leader epoch when it was loaded -- so
an append begun under an older leadership is never applied to a newer one.

Housekeeping: ``timed_out_transactions`` lists Ongoing transactions past their timeout (the
coordinator aborts them every transaction.abort.timed.out.transaction.cleanup.interval.ms), and
``remove_expired_transactional_ids`` writes tombstones for ids idle for transactional.id.expiration.ms.

Locks, as Kafka orders them: ``_state_lock`` (the cache and the loading set) before a metadata's
lock; neither is held while ``ReplicaManager.append_records`` runs, because its callback may run on
this thread (the append committed at once) or on another that holds the purgatory's locks.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

from kafka.coordinator.transaction import transaction_log
from kafka.coordinator.transaction.transaction_log import (
    ENFORCED_REQUIRED_ACKS,
    TRANSACTION_STATE_TOPIC_NAME,
)
from kafka.coordinator.transaction.transaction_metadata import TransactionMetadata, TxnTransitMetadata
from kafka.coordinator.transaction.transaction_state import TransactionState
from kafka.coordinator.transaction.transaction_version import TV_0
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import DefaultRecord, build_batch, iter_batches
from kafka.utils.java_hash import java_string_hash, kafka_abs
from kafka.utils.kafka_scheduler import KafkaScheduler
from kafka.utils.re2_pattern import compile_re2
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.coordinator.transaction.TransactionStateManager")


@dataclass(frozen=True)
class TransactionConfig:
    """The transaction.* broker settings (Kafka's TransactionConfig), with Kafka's defaults."""

    transactional_id_expiration_ms: int = 7 * 24 * 3600 * 1000
    transaction_max_timeout_ms: int = 15 * 60 * 1000
    transaction_log_num_partitions: int = 50
    transaction_log_replication_factor: int = 3
    transaction_log_segment_bytes: int = 100 * 1024 * 1024
    transaction_log_load_buffer_size: int = 5 * 1024 * 1024
    transaction_log_min_insync_replicas: int = 2
    abort_timed_out_transactions_interval_ms: int = 10_000
    remove_expired_transactional_ids_interval_ms: int = 3_600_000
    request_timeout_ms: int = 30_000

    @classmethod
    def from_kafka_config(cls, config) -> TransactionConfig:
        return cls(config.transactional_id_expiration_ms, config.transaction_max_timeout_ms,
                   config.transaction_state_log_num_partitions,
                   config.transaction_state_log_replication_factor,
                   config.transaction_state_log_segment_bytes, config.transaction_state_log_load_buffer_size,
                   config.transaction_state_log_min_isr,
                   config.transaction_abort_timed_out_transaction_cleanup_interval_ms,
                   config.transaction_remove_expired_transaction_cleanup_interval_ms)


@dataclass
class TxnMetadataCacheEntry:
    coordinator_epoch: int
    metadata_per_transactional_id: dict[str, TransactionMetadata] = field(default_factory=dict)


@dataclass(frozen=True)
class CoordinatorEpochAndTxnMetadata:
    coordinator_epoch: int
    transaction_metadata: TransactionMetadata


@dataclass(frozen=True)
class TransactionalIdAndProducerIdEpoch:
    transactional_id: str
    producer_id: int
    producer_epoch: int


@dataclass(frozen=True)
class ListedTransaction:
    transactional_id: str
    producer_id: int
    state: TransactionState


def append_error_to_coordinator_error(error: Errors) -> Errors:
    """Kafka's mapping of a failed append to what a transactional client should hear."""
    if error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS,
                 Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.REQUEST_TIMED_OUT):
        return Errors.COORDINATOR_NOT_AVAILABLE  # retriable: the client tries again
    if error in (Errors.NOT_LEADER_OR_FOLLOWER, Errors.KAFKA_STORAGE_ERROR):
        return Errors.NOT_COORDINATOR  # the client looks the coordinator up again
    if error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE):
        return Errors.UNKNOWN_SERVER_ERROR
    return error


# send_txn_markers(coordinator_epoch, committed, metadata, transit): the marker channel's door
SendTxnMarkers = Callable[[int, bool, TransactionMetadata, TxnTransitMetadata], None]


class TransactionStateManager:
    def __init__(self, broker_id: int, config: TransactionConfig, replica_manager, time: Time) -> None:
        self.broker_id = broker_id
        self.config = config
        self.replica_manager = replica_manager  # append_records and read_partition_log only
        self.transaction_version_level: Callable[[], int] = lambda: TV_0  # the cluster's transaction.version
        self.time = time
        self._state_lock = threading.RLock()
        self.loading_partitions: set[tuple[int, int]] = set()  # (partition, coordinator epoch)
        self.transaction_metadata_cache: dict[int, TxnMetadataCacheEntry] = {}
        self.scheduler = KafkaScheduler(time, thread_name=f"transaction-state-manager-{broker_id}")
        self._shutting_down = False
        self.partition_load_time_max_ms = 0  # Kafka's partition-load-time-max
        self.last_partition_load_time_ms = 0

    def startup(self, enable_transactional_id_expiration: bool = True) -> None:
        self.scheduler.startup()
        if enable_transactional_id_expiration:
            interval = self.config.remove_expired_transactional_ids_interval_ms
            self.scheduler.schedule("transactionalId-expiration", self.remove_expired_transactional_ids,
                                    delay_ms=interval, period_ms=interval)

    def shutdown(self) -> None:
        self._shutting_down = True
        self.scheduler.shutdown()
        with self._state_lock:
            self.loading_partitions.clear()
            self.transaction_metadata_cache.clear()

    # ------------------------------------------------------------------ where an id lives
    def partition_for(self, transactional_id: str) -> int:
        return kafka_abs(java_string_hash(transactional_id)) % self.config.transaction_log_num_partitions

    def validate_transaction_timeout_ms(self, txn_timeout_ms: int) -> bool:
        return 0 < txn_timeout_ms <= self.config.transaction_max_timeout_ms

    def transaction_topic_configs(self) -> dict[str, str]:
        """How __transaction_state is created: compacted, uncompressed, no unclean elections."""
        return {"unclean.leader.election.enable": "false", "compression.type": "uncompressed",
                "cleanup.policy": "compact",
                "min.insync.replicas": str(self.config.transaction_log_min_insync_replicas),
                "segment.bytes": str(self.config.transaction_log_segment_bytes)}

    def owned_partitions(self) -> dict[int, int]:
        """Loaded partitions and their coordinator epochs."""
        with self._state_lock:
            return {p: e.coordinator_epoch for p, e in self.transaction_metadata_cache.items()}

    # ------------------------------------------------------------------ the cache
    def get_transaction_state(self,
                              transactional_id: str) -> tuple[Errors, CoordinatorEpochAndTxnMetadata | None]:
        """(NONE, entry or None when unknown), or (COORDINATOR_LOAD_IN_PROGRESS | NOT_COORDINATOR, None)."""
        return self._get_and_maybe_add_transaction_state(transactional_id, None)

    def put_transaction_state_if_not_exists(self, metadata: TransactionMetadata
                                            ) -> tuple[Errors, CoordinatorEpochAndTxnMetadata | None]:
        return self._get_and_maybe_add_transaction_state(metadata.transactional_id, metadata)

    def _get_and_maybe_add_transaction_state(self, transactional_id: str,
                                             created: TransactionMetadata | None):
        with self._state_lock:
            partition = self.partition_for(transactional_id)
            if any(p == partition for p, _ in self.loading_partitions):
                return Errors.COORDINATOR_LOAD_IN_PROGRESS, None
            entry = self.transaction_metadata_cache.get(partition)
            if entry is None:
                return Errors.NOT_COORDINATOR, None
            metadata = entry.metadata_per_transactional_id.get(transactional_id)
            if metadata is None and created is not None:
                metadata = entry.metadata_per_transactional_id.setdefault(transactional_id, created)
            if metadata is None:
                return Errors.NONE, None
            return Errors.NONE, CoordinatorEpochAndTxnMetadata(entry.coordinator_epoch, metadata)

    def list_transaction_states(
            self, filter_producer_ids: set[int], filter_state_names: set[str], filter_duration_ms: int = -1,
            transactional_id_pattern: str | None = None) -> tuple[Errors, list[str], list[ListedTransaction]]:
        """ListTransactions: (error, unknown state filters, transactions). The pattern (v2, KIP-1152) must
        match a whole transactional id; empty or null matches all, one RE2/J refuses fails the request."""
        with self._state_lock:
            if self.loading_partitions:
                return Errors.COORDINATOR_LOAD_IN_PROGRESS, [], []
            states = {TransactionState.from_name(n) for n in filter_state_names} - {None}
            unknown = sorted(n for n in filter_state_names if TransactionState.from_name(n) is None)
            try:
                pattern = compile_re2(transactional_id_pattern) if transactional_id_pattern else None
            except re.error:
                return Errors.INVALID_REGULAR_EXPRESSION, [], []  # Kafka's error response: nothing else
            now = self.time.milliseconds()
            listed = []
            for entry in self.transaction_metadata_cache.values():
                for metadata in entry.metadata_per_transactional_id.values():
                    with metadata.lock:
                        if metadata.state == TransactionState.DEAD:  # being expired: already gone
                            continue
                        if filter_producer_ids and metadata.producer_id not in filter_producer_ids:
                            continue
                        if filter_state_names and metadata.state not in states:
                            continue
                        running_ms = now - metadata.txn_start_timestamp
                        if filter_duration_ms >= 0 and running_ms <= filter_duration_ms:
                            continue
                        if pattern is not None and not pattern.fullmatch(metadata.transactional_id):
                            continue
                        listed.append(ListedTransaction(metadata.transactional_id, metadata.producer_id,
                                                        metadata.state))
            return Errors.NONE, unknown, listed

    # ------------------------------------------------------------------ appending a transition
    def append_transaction_to_log(self, transactional_id: str, coordinator_epoch: int,
                                  new_metadata: TxnTransitMetadata,
                                  response_callback: Callable[[Errors], None],
                                  retry_on_error: Callable[[Errors], bool] = lambda e: False) -> None:
        """Write ``new_metadata`` (acks=-1); once committed, complete the transition in the cache --
        unless the coordinator epoch changed meanwhile -- and call back with the client's error."""
        now = self.time.milliseconds()
        value = transaction_log.value_to_bytes(new_metadata, self.transaction_version_level())
        record = DefaultRecord(0, now, transaction_log.key_to_bytes(transactional_id), value)
        tp = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, self.partition_for(transactional_id))

        def update_cache_callback(statuses: dict) -> None:
            status = statuses.get(tp)
            error = append_error_to_coordinator_error(Errors.UNKNOWN_TOPIC_OR_PARTITION if status is None
                                                      else status.error)
            if error == Errors.NONE:
                error = self._complete_transition(transactional_id, coordinator_epoch, new_metadata)
            else:
                self._reset_pending_state(transactional_id, coordinator_epoch, new_metadata, error,
                                          retry_on_error)
            response_callback(error)

        error, epoch_and_metadata = self.get_transaction_state(transactional_id)
        if error != Errors.NONE:
            response_callback(error)
            return
        if epoch_and_metadata is None or epoch_and_metadata.coordinator_epoch != coordinator_epoch:
            response_callback(Errors.NOT_COORDINATOR)  # the partition moved away (and maybe back) meanwhile
            return
        self.replica_manager.append_records(new_metadata.txn_timeout_ms, ENFORCED_REQUIRED_ACKS, True,
                                            {tp: build_batch([record], timestamp=now)}, update_cache_callback)

    def _complete_transition(self, transactional_id: str, coordinator_epoch: int,
                             new_metadata: TxnTransitMetadata) -> Errors:
        error, epoch_and_metadata = self.get_transaction_state(transactional_id)
        if error != Errors.NONE:
            log.info("transaction metadata appended but no longer ours", transactional_id=transactional_id,
                     error=error.name)
            return error
        if epoch_and_metadata is None or epoch_and_metadata.coordinator_epoch != coordinator_epoch:
            log.info("coordinator epoch changed while appending; not applying",
                     transactional_id=transactional_id,
                     coordinator_epoch=coordinator_epoch)
            return Errors.NOT_COORDINATOR
        metadata = epoch_and_metadata.transaction_metadata
        with metadata.lock:
            metadata.complete_transition_to(new_metadata)
        log.debug("transaction state updated", transactional_id=transactional_id,
                  state=str(new_metadata.txn_state),
                  producer_id=new_metadata.producer_id, producer_epoch=new_metadata.producer_epoch)
        return Errors.NONE

    def _reset_pending_state(self, transactional_id: str, coordinator_epoch: int,
                             new_metadata: TxnTransitMetadata,
                             error: Errors, retry_on_error: Callable[[Errors], bool]) -> None:
        """A failed append changed nothing: clear the pending state so the client may try again
        (unless the caller retries the very same append)."""
        lookup_error, epoch_and_metadata = self.get_transaction_state(transactional_id)
        log.info("appending transaction metadata failed", transactional_id=transactional_id, error=error.name,
                 state=str(new_metadata.txn_state))
        if lookup_error != Errors.NONE or epoch_and_metadata is None:
            return
        if epoch_and_metadata.coordinator_epoch == coordinator_epoch and not retry_on_error(error):
            with epoch_and_metadata.transaction_metadata.lock:
                epoch_and_metadata.transaction_metadata.pending_state = None

    # ------------------------------------------------------------------ loading and unloading
    def load_transactions_for_txn_topic_partition(self, partition: int, coordinator_epoch: int,
                                                  send_txn_markers: SendTxnMarkers,
                                                  now: bool = False) -> None:
        """This broker leads the partition from ``coordinator_epoch`` on: read it in the background
        (or ``now``); its ids answer COORDINATOR_LOAD_IN_PROGRESS until done."""
        with self._state_lock:
            self.loading_partitions.add((partition, coordinator_epoch))
        scheduled_ms = self.time.hi_res_clock_ms()
        load = lambda: self._load_transactions(partition, coordinator_epoch, send_txn_markers, scheduled_ms)  # noqa: E731
        if now:
            load()
        else:
            name = f"load-txns-for-partition-{TRANSACTION_STATE_TOPIC_NAME}-{partition}"
            self.scheduler.schedule_once(name, load)

    def _load_transactions(self, partition: int, coordinator_epoch: int, send_txn_markers: SendTxnMarkers,
                           scheduled_ms: int) -> None:
        tp = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition)
        try:
            loaded = self._load_transaction_metadata(tp, coordinator_epoch)
        except Exception:
            log.exception("failed to load transactions", topic_partition=str(tp))
            loaded = {}
        took_ms = self.time.hi_res_clock_ms() - scheduled_ms
        self.last_partition_load_time_ms = took_ms
        self.partition_load_time_max_ms = max(self.partition_load_time_max_ms, took_ms)
        pending: list[tuple[bool, TransactionMetadata, TxnTransitMetadata]] = []
        with self._state_lock:
            if (partition, coordinator_epoch) not in self.loading_partitions:
                return  # leadership moved on while we read
            self.transaction_metadata_cache[partition] = TxnMetadataCacheEntry(coordinator_epoch, loaded)
            for metadata in loaded.values():
                with metadata.lock:
                    # The previous coordinator wrote Prepare* but maybe not every marker: finish its work.
                    if metadata.state in (TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT):
                        committed = metadata.state == TransactionState.PREPARE_COMMIT
                        pending.append((committed, metadata,
                                        metadata.prepare_complete(self.time.milliseconds())))
            self.loading_partitions.discard((partition, coordinator_epoch))
        log.info("loaded transaction metadata", topic_partition=str(tp), coordinator_epoch=coordinator_epoch,
                 transactional_ids=len(loaded), took_ms=took_ms)
        for committed, metadata, transit in pending:
            log.info("sending the markers of a transaction found prepared",
                     transactional_id=metadata.transactional_id,
                     state=str(metadata.state))
            send_txn_markers(coordinator_epoch, committed, metadata, transit)

    def _load_transaction_metadata(self, tp: TopicPartition,
                                   coordinator_epoch: int) -> dict[str, TransactionMetadata]:
        loaded: dict[str, TransactionMetadata] = {}
        position = 0
        while not self._shutting_down:
            with self._state_lock:
                if (tp.partition, coordinator_epoch) not in self.loading_partitions:
                    break
            data = self.replica_manager.read_partition_log(tp, position,
                                                           self.config.transaction_log_load_buffer_size)
            if data.error == Errors.OFFSET_OUT_OF_RANGE and position < data.log_start_offset:
                position = data.log_start_offset  # compaction or retention moved the start
                continue
            if data.error != Errors.NONE or not data.records:
                break
            for batch in iter_batches(data.records):
                if not batch.is_control_batch:
                    for record in batch:
                        self._replay(record, loaded)
                position = batch.next_offset
        return loaded

    @staticmethod
    def _replay(record: DefaultRecord, loaded: dict[str, TransactionMetadata]) -> None:
        if record.key is None:
            return
        key = transaction_log.read_txn_record_key(record.key)
        if key is None:
            log.warning("unknown key version in the transaction log; skipped")
            return
        metadata = transaction_log.read_txn_record_value(key.transactional_id, record.value)
        if metadata is None:
            loaded.pop(key.transactional_id, None)
        else:
            loaded[key.transactional_id] = metadata

    def remove_transactions_for_txn_topic_partition(self, partition: int,
                                                    coordinator_epoch: int | None = None) -> None:
        """This broker no longer leads the partition: forget its ids (their clients get NOT_COORDINATOR)."""
        with self._state_lock:
            self.loading_partitions = {(p, e) for p, e in self.loading_partitions
                                       if p != partition
                                       or (coordinator_epoch is not None and e != coordinator_epoch)}
            entry = self.transaction_metadata_cache.pop(partition, None)
        if entry is not None:
            log.info("unloaded transaction metadata", partition=partition,
                     transactional_ids=len(entry.metadata_per_transactional_id))

    # ------------------------------------------------------------------ housekeeping
    def timed_out_transactions(self) -> list[TransactionalIdAndProducerIdEpoch]:
        """Ongoing transactions open longer than their timeout (best effort: the abort re-checks)."""
        now = self.time.milliseconds()
        with self._state_lock:
            return [TransactionalIdAndProducerIdEpoch(m.transactional_id, m.producer_id, m.producer_epoch)
                    for entry in self.transaction_metadata_cache.values()
                    for m in entry.metadata_per_transactional_id.values()
                    if m.pending_state is None and m.state == TransactionState.ONGOING
                    and m.txn_start_timestamp + m.txn_timeout_ms < now]

    def remove_expired_transactional_ids(self) -> None:
        """transactional.id.expiration.ms after its last update, an id with no transaction in flight
        is forgotten: a tombstone in its partition, then out of the cache."""
        now = self.time.milliseconds()
        with self._state_lock:
            entries = list(self.transaction_metadata_cache.items())
        for partition, entry in entries:
            expired: list[tuple[TransactionMetadata, TxnTransitMetadata]] = []
            for metadata in list(entry.metadata_per_transactional_id.values()):
                with metadata.lock:
                    if metadata.pending_state is None and self._should_expire(metadata, now):
                        expired.append((metadata, metadata.prepare_dead()))
            if expired:
                self._write_tombstones_for_expired_transactional_ids(partition, entry.coordinator_epoch,
                                                                     expired, now)

    def _should_expire(self, metadata: TransactionMetadata, now: int) -> bool:
        """Kafka's shouldExpire: a state that may expire, not updated for transactional.id.expiration.ms."""
        return (metadata.state.is_expiration_allowed
                and metadata.txn_last_update_timestamp <= now - self.config.transactional_id_expiration_ms)

    def _write_tombstones_for_expired_transactional_ids(self, partition: int, coordinator_epoch: int,
                                                        expired: list, now: int) -> None:
        tp = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition)
        records = [DefaultRecord(i, now, transaction_log.key_to_bytes(m.transactional_id), None)
                   for i, (m, _) in enumerate(expired)]

        def remove_from_cache_callback(statuses: dict) -> None:
            status = statuses.get(tp)
            error = Errors.UNKNOWN_TOPIC_OR_PARTITION if status is None else status.error
            with self._state_lock:
                entry = self.transaction_metadata_cache.get(partition)
                for metadata, transit in expired:
                    with metadata.lock:
                        if (error == Errors.NONE and entry is not None
                            and entry.coordinator_epoch == coordinator_epoch
                                and metadata.pending_state == TransactionState.DEAD
                                and metadata.producer_epoch == transit.producer_epoch):
                            entry.metadata_per_transactional_id.pop(metadata.transactional_id, None)
                            log.info("transactional id expired", transactional_id=metadata.transactional_id)
                        else:
                            metadata.pending_state = None
                            log.warning("could not expire a transactional id",
                                        transactional_id=metadata.transactional_id,
                                        error=error.name)

        self.replica_manager.append_records(self.config.request_timeout_ms, ENFORCED_REQUIRED_ACKS, True,
                                            {tp: build_batch(records, timestamp=now)},
                                            remove_from_cache_callback)
