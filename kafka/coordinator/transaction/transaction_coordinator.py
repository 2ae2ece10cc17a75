"""TransactionCoordinator: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn and the
views of transactions (Kafka's kafka.coordinator.transaction.TransactionCoordinator).

Seed 004: "Duplicate data can be written if replication is done but the Produce Response does not
reach the producer (which retries). This is why using idempotency operations is important." An
idempotent producer needs only an id (any broker hands one out, ``transactional_id`` null). A
transactional producer (KIP-98) names itself with a transactional.id and goes to the leader of that
id's ``__transaction_state`` partition; seed 000: that coordinator appends through ReplicaManager.

    InitProducerId(tid)     new id at epoch 0, or the same id at epoch + 1: older instances of the
                            producer are fenced (PRODUCER_FENCED). A transaction left open is
                            aborted first (PrepareEpochFence), and the caller told to retry
                            (CONCURRENT_TRANSACTIONS) until its markers are written
    AddPartitionsToTxn      Ongoing, with these partitions (the first one starts the timeout clock)
    AddOffsetsToTxn         the same, for the group's __consumer_offsets partition
    EndTxn(commit|abort)    PrepareCommit/PrepareAbort written -> answered -> the
                            TransactionMarkerChannelManager writes the markers -> CompleteCommit/
                            CompleteAbort. EndTxn with nothing begun is INVALID_TXN_STATE
    EndTxn v5 (TV_2)        the same, with the epoch bumped in Prepare* (the markers carry it) and the
                            new id and epoch in the answer: a producer that committed can no longer
                            write under its old epoch (KIP-890 part 2). An abort with nothing begun
                            is allowed, to bump the epoch

Every change is prepared on the TransactionMetadata (its pending state blocks a concurrent one),
appended by the TransactionStateManager, and completed in the append's callback. A transaction
open past its transaction.timeout.ms is aborted by the "transaction-abort" task as if a newer
producer had fenced it. Without a TransactionStateManager (an idempotence-only broker) a
transactional InitProducerId is refused with INVALID_REQUEST.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from kafka.coordinator.group.group_coordinator_records import GROUP_METADATA_TOPIC_NAME
from kafka.coordinator.transaction.producer_id_manager import (
    ProducerIdsUnavailableError,
    RPCProducerIdManager,
)
from kafka.coordinator.transaction.transaction_log import TRANSACTION_STATE_TOPIC_NAME
from kafka.coordinator.transaction.transaction_marker_channel_manager import (
    LeaderFor,
    SendRequest,
    TransactionMarkerChannelManager,
)
from kafka.coordinator.transaction.transaction_metadata import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    SHORT_MAX,
    TransactionMetadata,
    TxnTransitMetadata,
    is_epoch_exhausted,
)
from kafka.coordinator.transaction.transaction_state import TransactionState
from kafka.coordinator.transaction.transaction_state_manager import (
    CoordinatorEpochAndTxnMetadata,
    TransactionalIdAndProducerIdEpoch,
    TransactionConfig,
    TransactionStateManager,
)
from kafka.coordinator.transaction.transaction_version import TV_0, TV_2, finalized_level, supports_epoch_bump
from kafka.protocol.errors import Errors
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.coordinator.transaction.TransactionCoordinator")

__all__ = ["NO_PRODUCER_EPOCH", "NO_PRODUCER_ID", "InitProducerIdResult", "TransactionCoordinator"]

S = TransactionState
EndTxnCallback = Callable[[Errors, int, int], None]  # (error, producer id, producer epoch)


@dataclass(frozen=True)
class InitProducerIdResult:
    producer_id: int
    producer_epoch: int
    error: Errors


def init_transaction_error(error: Errors) -> InitProducerIdResult:
    return InitProducerIdResult(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, error)


class TransactionCoordinator:
    def __init__(self, producer_id_manager: RPCProducerIdManager,
                 txn_manager: TransactionStateManager | None = None,
                 txn_marker_channel_manager: TransactionMarkerChannelManager | None = None, *, time: Time,
                 group_partition_for: Callable[[str], int] | None = None) -> None:
        self.producer_id_manager = producer_id_manager
        self.txn_manager = txn_manager
        self.txn_marker_channel_manager = txn_marker_channel_manager
        self.time = time
        self.group_partition_for = group_partition_for  # the GroupCoordinator's partition_for
        self.is_active = threading.Event()

    @classmethod
    def build(cls, node_id: int, config, replica_manager, producer_id_manager: RPCProducerIdManager,
              leader_for: LeaderFor, send_markers: SendRequest, group_partition_for: Callable[[str], int],
              time: Time) -> TransactionCoordinator:
        """Kafka's TransactionCoordinator.apply: the state manager over the broker's ReplicaManager, and
        the marker channel, whose WriteTxnMarkers go where `leader_for` says, sent by `send_markers`."""
        txn_manager = TransactionStateManager(node_id, TransactionConfig.from_kafka_config(config),
                                              replica_manager, time)
        txn_manager.transaction_version_level = lambda: finalized_level(  # from the metadata image
            replica_manager.metadata_cache.finalized_features)
        marker_channel = TransactionMarkerChannelManager(node_id, txn_manager, leader_for, send_markers, time)
        return cls(producer_id_manager, txn_manager, marker_channel, time=time,
                   group_partition_for=group_partition_for)

    # ------------------------------------------------------------------ lifecycle
    def startup(self, enable_transactional_id_expiration: bool = True) -> None:
        if self.txn_manager is None:
            return
        self.txn_manager.startup(enable_transactional_id_expiration)
        interval = self.txn_manager.config.abort_timed_out_transactions_interval_ms
        self.txn_manager.scheduler.schedule("transaction-abort", self.abort_timed_out_transactions,
                                            delay_ms=interval, period_ms=interval)
        if self.txn_marker_channel_manager is not None:
            self.txn_marker_channel_manager.start()
        self.is_active.set()
        log.info("started up")

    def shutdown(self) -> None:
        self.is_active.clear()
        if self.txn_manager is not None:
            self.txn_manager.shutdown()
        if self.txn_marker_channel_manager is not None:
            self.txn_marker_channel_manager.shutdown()

    def partition_for(self, transactional_id: str) -> int:
        return self.txn_manager.partition_for(transactional_id)

    def transaction_topic_configs(self) -> dict[str, str]:
        return self.txn_manager.transaction_topic_configs()

    def on_election(self, txn_topic_partition: int, coordinator_epoch: int, load_now: bool = False) -> None:
        """This broker leads the partition at this leader epoch: drop whatever an earlier leadership
        left behind, then load it and finish the transactions it finds prepared."""
        log.info("elected as the transaction coordinator for a partition", partition=txn_topic_partition,
                 coordinator_epoch=coordinator_epoch)
        self.txn_marker_channel_manager.remove_markers_for_txn_topic_partition(txn_topic_partition)
        self.txn_manager.load_transactions_for_txn_topic_partition(
            txn_topic_partition, coordinator_epoch, self.txn_marker_channel_manager.add_txn_markers_to_send,
            now=load_now)

    def on_resignation(self, txn_topic_partition: int, coordinator_epoch: int | None = None) -> None:
        log.info("resigned as the transaction coordinator for a partition", partition=txn_topic_partition,
                 coordinator_epoch=coordinator_epoch)
        self.txn_manager.remove_transactions_for_txn_topic_partition(txn_topic_partition, coordinator_epoch)
        self.txn_marker_channel_manager.remove_markers_for_txn_topic_partition(txn_topic_partition)

    # ------------------------------------------------------------------ InitProducerId
    def handle_init_producer_id(self, transactional_id: str | None, transaction_timeout_ms: int,
                                expected_producer_id_and_epoch: tuple[int, int] | None,
                                response_callback: Callable[[InitProducerIdResult], None]) -> None:
        """Answer through response_callback, now or later (a block of ids on its way, a log append)."""
        if transactional_id is None:
            # No transactional id: always accept, and hand out a new id (Kafka: "blindly accept").
            def on_producer_id(producer_id: int, error: Errors) -> None:
                if error != Errors.NONE:
                    response_callback(init_transaction_error(error))
                else:
                    response_callback(InitProducerIdResult(producer_id, 0, Errors.NONE))
            self.producer_id_manager.generate_producer_id_or_wait(on_producer_id)
        elif transactional_id == "":
            response_callback(init_transaction_error(Errors.INVALID_REQUEST))
        elif self.txn_manager is None:
            log.warning("InitProducerId with a transactional id refused: this broker has no transaction "
                        "coordinator",
                        transactional_id=transactional_id)
            response_callback(init_transaction_error(Errors.INVALID_REQUEST))
        elif not self.txn_manager.validate_transaction_timeout_ms(transaction_timeout_ms):
            response_callback(init_transaction_error(Errors.INVALID_TRANSACTION_TIMEOUT))
        else:
            error, existing = self.txn_manager.get_transaction_state(transactional_id)
            if error != Errors.NONE:
                response_callback(init_transaction_error(error))
            elif existing is not None:
                self._init_with_metadata(transactional_id, transaction_timeout_ms, existing,
                                         expected_producer_id_and_epoch, response_callback)
            else:
                def on_new_producer_id(producer_id: int, id_error: Errors) -> None:
                    if id_error != Errors.NONE:
                        response_callback(init_transaction_error(id_error))
                        return
                    created = TransactionMetadata(transactional_id, producer_id, NO_PRODUCER_ID,
                                                  NO_PRODUCER_EPOCH,
                                                  NO_PRODUCER_EPOCH, transaction_timeout_ms, S.EMPTY,
                                                  txn_last_update_timestamp=self.time.milliseconds())
                    put_error, entry = self.txn_manager.put_transaction_state_if_not_exists(created)
                    if put_error != Errors.NONE:
                        response_callback(init_transaction_error(put_error))
                    else:
                        self._init_with_metadata(transactional_id, transaction_timeout_ms, entry,
                                                 expected_producer_id_and_epoch, response_callback)
                self.producer_id_manager.generate_producer_id_or_wait(on_new_producer_id)

    def _init_with_metadata(self, transactional_id: str, transaction_timeout_ms: int,
                            entry: CoordinatorEpochAndTxnMetadata, expected: tuple[int, int] | None,
                            response_callback: Callable[[InitProducerIdResult], None]) -> None:
        metadata = entry.transaction_metadata
        with metadata.lock:
            error, new_metadata = self._prepare_init_producer_id_transit(transaction_timeout_ms, metadata,
                                                                         expected)
        if error is not None:
            response_callback(init_transaction_error(error))
            return
        if new_metadata.txn_state == S.PREPARE_EPOCH_FENCE:
            # Abort the open transaction under the bumped epoch; the producer retries until it is done.
            def send_retriable_error_callback(end_error: Errors, _pid: int, _epoch: int) -> None:
                response_callback(init_transaction_error(
                    end_error if end_error != Errors.NONE else Errors.CONCURRENT_TRANSACTIONS))
            self._end_transaction(transactional_id, new_metadata.producer_id, new_metadata.producer_epoch,
                                  False, False, send_retriable_error_callback,
                                  self.txn_manager.transaction_version_level())  # the server's, as Kafka
            return

        def send_pid_response_callback(append_error: Errors) -> None:
            if append_error == Errors.NONE:
                log.info("initialized transactional id", transactional_id=transactional_id,
                         producer_id=new_metadata.producer_id, producer_epoch=new_metadata.producer_epoch,
                         partition=f"{TRANSACTION_STATE_TOPIC_NAME}-{self.partition_for(transactional_id)}")
                response_callback(InitProducerIdResult(new_metadata.producer_id, new_metadata.producer_epoch,
                                                       Errors.NONE))
            else:
                response_callback(init_transaction_error(append_error))

        self.txn_manager.append_transaction_to_log(transactional_id, entry.coordinator_epoch, new_metadata,
                                                   send_pid_response_callback)

    def _prepare_init_producer_id_transit(self, transaction_timeout_ms: int, metadata: TransactionMetadata,
                                          expected: tuple[int, int] | None
                                          ) -> tuple[Errors | None, TxnTransitMetadata | None]:
        def is_valid_producer_id(producer_id: int, epoch: int) -> bool:
            # A producer recovering after an error may name the id it had: fine if it is the current
            # one, or the previous one whose epoch ran out (a retry after a rotation it never heard of).
            return (metadata.producer_epoch == NO_PRODUCER_EPOCH or producer_id == metadata.producer_id
                    or (producer_id == metadata.last_producer_id and is_epoch_exhausted(epoch)))

        if metadata.pending_transition_in_progress:
            return Errors.CONCURRENT_TRANSACTIONS, None
        if expected is not None and not is_valid_producer_id(*expected):
            return Errors.PRODUCER_FENCED, None
        if metadata.state in (S.PREPARE_ABORT, S.PREPARE_COMMIT):
            return Errors.CONCURRENT_TRANSACTIONS, None  # its markers are on their way: retry soon
        if metadata.state in (S.COMPLETE_ABORT, S.COMPLETE_COMMIT, S.EMPTY):
            now = self.time.milliseconds()
            if metadata.is_producer_epoch_exhausted and (expected is None
                                                         or expected[1] == metadata.producer_epoch):
                try:
                    new_id = self.producer_id_manager.generate_producer_id()
                except ProducerIdsUnavailableError as e:
                    return e.error, None
                return None, metadata.prepare_producer_id_rotation(new_id, transaction_timeout_ms, now,
                                                                   expected is not None)
            return metadata.prepare_increment_producer_epoch(transaction_timeout_ms,
                                                             None if expected is None else expected[1], now)
        if metadata.state == S.ONGOING:
            # The epoch bumped here is never handed out: the abort runs under it and the producer's
            # retry bumps it again, so no two instances ever hold the same epoch.
            return None, metadata.prepare_fence_producer_epoch()
        raise RuntimeError(f"transactional id {metadata.transactional_id} found in state {metadata.state}")

    # ------------------------------------------------------------------ AddPartitionsToTxn / AddOffsetsToTxn
    def handle_add_partitions_to_transaction(self, transactional_id: str, producer_id: int,
                                             producer_epoch: int,
                                             partitions: set[TopicPartition],
                                             response_callback: Callable[[Errors], None],
                                             client_transaction_version: int = TV_0) -> None:
        if not transactional_id:
            response_callback(Errors.INVALID_REQUEST)
            return
        error, entry = self.txn_manager.get_transaction_state(transactional_id)
        if error == Errors.NONE and entry is None:
            error = Errors.INVALID_PRODUCER_ID_MAPPING
        if error != Errors.NONE:
            response_callback(error)
            return
        metadata = entry.transaction_metadata
        with metadata.lock:  # Kafka 4.4's order: a change in flight first, then who is asking
            if metadata.pending_transition_in_progress:
                error = Errors.CONCURRENT_TRANSACTIONS
            elif metadata.producer_id != producer_id:
                error = Errors.INVALID_PRODUCER_ID_MAPPING
            elif metadata.producer_epoch != producer_epoch:
                error = Errors.PRODUCER_FENCED
            elif metadata.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
                error = Errors.CONCURRENT_TRANSACTIONS
            elif metadata.state == S.ONGOING and set(partitions) <= metadata.topic_partitions:
                response_callback(Errors.NONE)  # already in: nothing to write
                return
            else:
                new_metadata = metadata.prepare_add_partitions(partitions, self.time.milliseconds(),
                                                               client_transaction_version)
        if error != Errors.NONE:
            response_callback(error)
            return
        self.txn_manager.append_transaction_to_log(transactional_id, entry.coordinator_epoch, new_metadata,
                                                   response_callback)

    def handle_verify_partitions_in_transaction(
            self, transactional_id: str, producer_id: int, producer_epoch: int,
            partitions: set[TopicPartition]) -> dict[TopicPartition, Errors]:
        """KIP-890 part 1: before a partition leader appends a transactional batch, are its partitions in
        this producer's open transaction? Read-only, from memory: an error for every partition when the
        producer does not own the transactional id (or is fenced), else per partition."""
        error, entry = self.txn_manager.get_transaction_state(transactional_id)
        if error == Errors.NONE and entry is None:
            error = Errors.INVALID_PRODUCER_ID_MAPPING
        if error == Errors.NONE:
            metadata = entry.transaction_metadata
            with metadata.lock:
                if metadata.producer_id != producer_id:
                    error = Errors.INVALID_PRODUCER_ID_MAPPING
                elif metadata.producer_epoch != producer_epoch:
                    error = Errors.PRODUCER_FENCED
                elif metadata.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
                    error = Errors.CONCURRENT_TRANSACTIONS
                else:  # only a committed AddPartitionsToTxn puts a partition in the set
                    return {tp: Errors.NONE if tp in metadata.topic_partitions
                            else Errors.TRANSACTION_ABORTABLE for tp in partitions}
        return dict.fromkeys(partitions, error)

    def handle_add_offsets_to_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                          group_id: str, response_callback: Callable[[Errors], None]) -> None:
        """The group's offsets will be committed in this transaction: its __consumer_offsets
        partition joins the transaction, and gets a marker like any other."""
        offsets_partition = TopicPartition(GROUP_METADATA_TOPIC_NAME, self.group_partition_for(group_id))
        self.handle_add_partitions_to_transaction(transactional_id, producer_id, producer_epoch,
                                                  {offsets_partition},
                                                  response_callback)

    # ------------------------------------------------------------------ EndTxn
    def handle_end_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                               committed: bool, response_callback: EndTxnCallback,
                               client_transaction_version: int = TV_0) -> None:
        """EndTxn; `client_transaction_version` is TransactionVersion.for_end_txn of the request's version."""
        self._end_transaction(transactional_id, producer_id, producer_epoch, committed, True,
                              response_callback, client_transaction_version)

    def _end_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int, committed: bool,
                         is_from_client: bool, response_callback: EndTxnCallback,
                         client_transaction_version: int = TV_0) -> None:
        if not transactional_id:
            response_callback(Errors.INVALID_REQUEST, NO_PRODUCER_ID, NO_PRODUCER_EPOCH)
            return
        error, entry = self.txn_manager.get_transaction_state(transactional_id)
        if error == Errors.NONE and entry is None:
            error = Errors.INVALID_PRODUCER_ID_MAPPING
        if error != Errors.NONE:
            response_callback(error, NO_PRODUCER_ID, NO_PRODUCER_EPOCH)
            return
        metadata, coordinator_epoch = entry.transaction_metadata, entry.coordinator_epoch
        is_epoch_fence = False
        with metadata.lock:
            current_id, current_epoch = metadata.producer_id, metadata.producer_epoch
            is_epoch_fence = metadata.pending_state == S.PREPARE_EPOCH_FENCE and not committed
            if supports_epoch_bump(client_transaction_version):
                error, new_metadata = self._prepare_end_transaction_v2(
                    metadata, producer_id, producer_epoch, committed, is_from_client, is_epoch_fence)
            else:
                error, new_metadata = self._prepare_end_transaction_v1(metadata, producer_id, producer_epoch,
                                                                       committed, is_from_client)
            if error == Errors.NONE:  # a retry of an EndTxn that is done: its answer again
                response_callback(Errors.NONE, current_id, current_epoch)
                return
        if error is not None:
            log.debug("EndTxn refused", transactional_id=transactional_id, error=error.name,
                      state=str(metadata.state))
            response_callback(error, NO_PRODUCER_ID, NO_PRODUCER_EPOCH)
            return
        self._append_end_transaction(transactional_id, producer_id, producer_epoch, committed,
                                     coordinator_epoch, new_metadata, is_epoch_fence, response_callback,
                                     supports_epoch_bump(client_transaction_version))

    def _prepare_end_transaction_v1(self, metadata: TransactionMetadata, producer_id: int,
                                    producer_epoch: int, committed: bool, is_from_client: bool
                                    ) -> tuple[Errors | None, TxnTransitMetadata | None]:
        """Kafka's endTransactionWithTV1: (None, Prepare*) to append, or the error (NONE: already done)."""
        error, new_metadata = None, None
        # Transaction version 0: a client must send exactly the current epoch; the coordinator's
        # own abort (a fence, a timeout) comes with the bumped one.
        valid_epoch = (not is_from_client or producer_epoch == metadata.producer_epoch) and \
            producer_epoch >= metadata.producer_epoch
        if metadata.producer_id != producer_id:
            error = Errors.INVALID_PRODUCER_ID_MAPPING
        elif not valid_epoch:
            error = Errors.PRODUCER_FENCED
        elif metadata.pending_transition_in_progress and metadata.pending_state != S.PREPARE_EPOCH_FENCE:
            error = Errors.CONCURRENT_TRANSACTIONS
        elif metadata.state == S.ONGOING:
            next_state = S.PREPARE_COMMIT if committed else S.PREPARE_ABORT
            if next_state == S.PREPARE_ABORT and metadata.pending_state == S.PREPARE_EPOCH_FENCE:
                # The fence becomes the abort: its bumped epoch is the one the markers carry.
                metadata.pending_state = None
                metadata.producer_epoch = producer_epoch
                metadata.last_producer_epoch = NO_PRODUCER_EPOCH
            new_metadata = metadata.prepare_abort_or_commit(next_state, self.time.milliseconds())
        else:
            error = self._end_transaction_in_state(metadata.state, committed)
        return error, new_metadata

    @staticmethod
    def _end_transaction_in_state(state: TransactionState, committed: bool, is_retry: bool = True) -> Errors:
        """EndTxn meeting a transaction that is not Ongoing: NONE for a retry of what is done, a retry
        later while its markers are on their way, INVALID_TXN_STATE for the other outcome."""
        if state in (S.COMPLETE_COMMIT, S.COMPLETE_ABORT):
            same = committed == (state == S.COMPLETE_COMMIT)
            return Errors.NONE if same and is_retry else Errors.INVALID_TXN_STATE
        if state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
            same = committed == (state == S.PREPARE_COMMIT)
            return Errors.CONCURRENT_TRANSACTIONS if same else Errors.INVALID_TXN_STATE
        if state == S.EMPTY:
            return Errors.INVALID_TXN_STATE  # nothing was begun: there is nothing to end
        raise RuntimeError(f"transactional id found in state {state} at EndTxn")

    def _prepare_end_transaction_v2(self, metadata: TransactionMetadata, producer_id: int,
                                    producer_epoch: int, committed: bool, is_from_client: bool,
                                    is_epoch_fence: bool
                                    ) -> tuple[Errors | None, TxnTransitMetadata | None]:
        """Kafka 4.4's endTransaction at TV_2. The same epoch is the next EndTxn, not a retry: a retry
        carries the epoch before the bump (or, after the epoch ran out, the previous producer id)."""
        retry_on_overflow = (not is_epoch_fence and metadata.last_producer_id == producer_id
                             and producer_epoch == SHORT_MAX - 1 and metadata.producer_epoch == 0)
        retry_on_epoch_bump = not is_epoch_fence and metadata.producer_epoch == producer_epoch + 1
        is_retry = retry_on_epoch_bump or retry_on_overflow
        if is_epoch_fence:
            valid_epoch = (not is_from_client or producer_epoch == metadata.producer_epoch) and \
                producer_epoch >= metadata.producer_epoch
        elif metadata.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
            valid_epoch = retry_on_epoch_bump
        elif metadata.state in (S.COMPLETE_COMMIT, S.COMPLETE_ABORT):
            valid_epoch = is_retry or producer_epoch == metadata.producer_epoch
        else:
            valid_epoch = producer_epoch == metadata.producer_epoch
        if metadata.pending_transition_in_progress and not is_epoch_fence:
            return Errors.CONCURRENT_TRANSACTIONS, None
        if metadata.producer_id != producer_id and not retry_on_overflow:
            return Errors.INVALID_PRODUCER_ID_MAPPING, None
        if not valid_epoch:
            return Errors.PRODUCER_FENCED, None
        if metadata.state == S.ONGOING:
            next_state, no_partition_added = (S.PREPARE_COMMIT if committed else S.PREPARE_ABORT), False
        elif not committed and not is_retry and metadata.state.is_expiration_allowed:  # nothing in flight
            next_state, no_partition_added = S.PREPARE_ABORT, True  # an abort of nothing: bump the epoch
        else:
            return self._end_transaction_in_state(metadata.state, committed, is_retry), None
        next_producer_id = NO_PRODUCER_ID
        if metadata.is_producer_epoch_exhausted:
            try:
                next_producer_id = self.producer_id_manager.generate_producer_id()
            except ProducerIdsUnavailableError as e:
                return e.error, None
        if next_state == S.PREPARE_ABORT and is_epoch_fence:
            metadata.pending_state = None  # the fence becomes this abort, whose bump is the fence's epoch
        return None, metadata.prepare_abort_or_commit(next_state, self.time.milliseconds(), TV_2,
                                                      next_producer_id, no_partition_added)

    def _append_end_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                committed: bool, coordinator_epoch: int, new_metadata: TxnTransitMetadata,
                                is_epoch_fence: bool, response_callback: EndTxnCallback,
                                bumped: bool) -> None:
        """Prepare* in the log: answer with the id and epoch the producer goes on with, then the markers."""
        def send_txn_markers_callback(append_error: Errors) -> None:
            if append_error != Errors.NONE:
                if is_epoch_fence:
                    self._mark_failed_epoch_fence(transactional_id, coordinator_epoch)
                response_callback(append_error, NO_PRODUCER_ID, NO_PRODUCER_EPOCH)
                return
            pre_send_error, metadata, complete = self._prepare_complete_after_prepare(
                transactional_id, producer_id, producer_epoch, committed, coordinator_epoch, bumped)
            if pre_send_error != Errors.NONE:
                response_callback(pre_send_error, NO_PRODUCER_ID, NO_PRODUCER_EPOCH)
                return
            # The outcome is in the log: answer now, the markers follow.
            response_callback(Errors.NONE, complete.producer_id, complete.producer_epoch)
            self.txn_marker_channel_manager.add_txn_markers_to_send(coordinator_epoch, committed, metadata,
                                                                    complete)

        self.txn_manager.append_transaction_to_log(transactional_id, coordinator_epoch, new_metadata,
                                                   send_txn_markers_callback)

    def _prepare_complete_after_prepare(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                        committed: bool, coordinator_epoch: int, bumped: bool):
        """(error, metadata, the Complete* transit); at TV_2 the epoch is the asked one + 1 (the bump)."""
        error, entry = self.txn_manager.get_transaction_state(transactional_id)
        if error != Errors.NONE:
            return error, None, None
        if entry is None or entry.coordinator_epoch != coordinator_epoch:
            return Errors.NOT_COORDINATOR, None, None
        metadata = entry.transaction_metadata
        with metadata.lock:
            if metadata.producer_id != producer_id:
                return Errors.INVALID_PRODUCER_ID_MAPPING, None, None
            if metadata.producer_epoch != producer_epoch and not (
                    bumped and metadata.producer_epoch == producer_epoch + 1):
                return Errors.PRODUCER_FENCED, None, None
            if metadata.pending_transition_in_progress:
                return Errors.CONCURRENT_TRANSACTIONS, None, None
            expected = S.PREPARE_COMMIT if committed else S.PREPARE_ABORT
            if metadata.state != expected:
                return Errors.INVALID_TXN_STATE, None, None
            return Errors.NONE, metadata, metadata.prepare_complete(self.time.milliseconds())

    def _mark_failed_epoch_fence(self, transactional_id: str, coordinator_epoch: int) -> None:
        error, entry = self.txn_manager.get_transaction_state(transactional_id)
        if error == Errors.NONE and entry is not None and entry.coordinator_epoch == coordinator_epoch:
            with entry.transaction_metadata.lock:
                entry.transaction_metadata.has_failed_epoch_fence = True
            log.warning("could not write an epoch fence; the bumped epoch was not handed out",
                        transactional_id=transactional_id)

    # ------------------------------------------------------------------ timeouts
    def abort_timed_out_transactions(self) -> None:
        """Every transaction.abort.timed.out.transaction.cleanup.interval.ms: abort each transaction
        open past its transaction.timeout.ms, fencing its producer (a later send gets PRODUCER_FENCED
        / INVALID_PRODUCER_EPOCH)."""
        for txn in self.txn_manager.timed_out_transactions():
            error, entry = self.txn_manager.get_transaction_state(txn.transactional_id)
            if error != Errors.NONE or entry is None:
                continue
            metadata = entry.transaction_metadata
            with metadata.lock:
                if metadata.producer_id != txn.producer_id or metadata.pending_transition_in_progress:
                    continue
                transit = metadata.prepare_fence_producer_epoch()
            log.info("aborting a transaction open past its timeout", transactional_id=txn.transactional_id,
                     producer_id=txn.producer_id, timeout_ms=metadata.txn_timeout_ms)
            self._end_transaction(txn.transactional_id, transit.producer_id, transit.producer_epoch, False,
                                  False, self._on_end_transaction_complete(txn),
                                  self.txn_manager.transaction_version_level())

    @staticmethod
    def _on_end_transaction_complete(txn: TransactionalIdAndProducerIdEpoch) -> EndTxnCallback:
        def callback(error: Errors, _pid: int, _epoch: int) -> None:
            if error == Errors.NONE:
                log.info("rolled back a transaction that timed out", transactional_id=txn.transactional_id)
            elif error in (Errors.INVALID_PRODUCER_ID_MAPPING, Errors.PRODUCER_FENCED,
                           Errors.CONCURRENT_TRANSACTIONS):
                log.debug("rollback of a timed-out transaction cancelled",
                          transactional_id=txn.transactional_id,
                          error=error.name)
            else:
                log.warning("rollback of a timed-out transaction failed",
                            transactional_id=txn.transactional_id,
                            error=error.name)
        return callback

    # ------------------------------------------------------------------ DescribeTransactions/ListTransactions
    def handle_describe_transactions(self, transactional_id: str) -> dict:
        """One entry of a DescribeTransactionsResponse."""
        # an error's entry carries the schema's zeros, as Kafka's does (not -1: no producer, no time)
        described = dict(transactional_id=transactional_id, transaction_state="", transaction_timeout_ms=0,
                         transaction_start_time_ms=0, producer_id=0, producer_epoch=0, topics=[])
        if self.txn_manager is None or not self.is_active.is_set():
            return {**described, "error_code": Errors.COORDINATOR_NOT_AVAILABLE}
        if not transactional_id:
            return {**described, "error_code": Errors.INVALID_REQUEST}
        error, entry = self.txn_manager.get_transaction_state(transactional_id)
        if error != Errors.NONE:
            return {**described, "error_code": error}
        if entry is None:
            return {**described, "error_code": Errors.TRANSACTIONAL_ID_NOT_FOUND}
        metadata = entry.transaction_metadata
        with metadata.lock:
            if metadata.state == S.DEAD:
                return {**described, "error_code": Errors.TRANSACTIONAL_ID_NOT_FOUND}
            by_topic: dict[str, list[int]] = {}
            for tp in sorted(metadata.topic_partitions):
                by_topic.setdefault(tp.topic, []).append(tp.partition)
            return dict(error_code=Errors.NONE, transactional_id=transactional_id,
                        transaction_state=str(metadata.state), transaction_timeout_ms=metadata.txn_timeout_ms,
                        transaction_start_time_ms=metadata.txn_start_timestamp,
                        producer_id=metadata.producer_id,
                        producer_epoch=metadata.producer_epoch,
                        topics=[dict(topic=t, partitions=ps) for t, ps in by_topic.items()])

    def handle_list_transactions(self, filtered_producer_ids: set[int], filtered_states: set[str],
                                 filtered_duration_ms: int = -1, pattern: str | None = None) -> dict:
        """A ListTransactionsResponse's body."""
        if self.txn_manager is None or not self.is_active.is_set():
            return dict(error_code=Errors.COORDINATOR_NOT_AVAILABLE, unknown_state_filters=[],
                        transaction_states=[])
        error, unknown, listed = self.txn_manager.list_transaction_states(
            filtered_producer_ids, filtered_states, filtered_duration_ms, pattern)
        return dict(error_code=error, unknown_state_filters=unknown, transaction_states=[
            dict(transactional_id=t.transactional_id, producer_id=t.producer_id,
                 transaction_state=str(t.state))
            for t in listed])
