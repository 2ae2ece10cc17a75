"""TransactionManager: an idempotent producer's id, epoch and sequence numbers
(Kafka's producer.internals.TransactionManager; the idempotent part of KIP-98, with KIP-360's recovery).

Seed 004: "Duplicate data can be written if replication is done but the Produce Response does not
reach the producer (which retries). This is why using idempotency operations is important." The
cure has three parts:

* **A name.** Before its first batch the producer asks any broker (the least loaded node) for a
  producer id and epoch with InitProducerId. ``transactional_id`` is null: an idempotent producer
  does not need a coordinator. Retriable errors (the coordinator is loading or moved, the
  connection broke) are retried after ``retry.backoff.ms``. A broker that does not speak
  InitProducerId is a fatal error, as in the Java client (UnsupportedVersionException).
* **A number per batch.** Each partition has a next sequence. The RecordAccumulator stamps a
  batch with (producer id, epoch, sequence) when it drains it, and the next sequence moves on by
  the batch's record count. A retry keeps its number, so the leader recognises a batch it has
  already written (DUPLICATE_SEQUENCE_NUMBER, or simply the original offset) and does not write it
  twice. The batches in flight are kept sorted by sequence, so a retry is sent again only once it
  is the first of its partition: batches reach the log in the order they were numbered.
* **A way back** (KIP-360). OUT_OF_ORDER_SEQUENCE_NUMBER with no earlier batch still pending means
  a gap, and UNKNOWN_PRODUCER_ID means the leader lost this producer's state (retention deleted
  its last batches). Either way the producer bumps its epoch and numbers the partition's batches
  in flight again from 0, then retries them. The broker accepts a higher epoch that starts at
  sequence 0, so an idempotent producer bumps its epoch locally, without a request, as the Java
  client does. Only when the epoch is exhausted does it ask InitProducerId for a new producer id.

With a ``transactional.id`` (KIP-98's transactions) the same manager also runs the transaction:
InitProducerId goes to the transaction coordinator (fencing older instances of the id), each new
partition is added with AddPartitionsToTxn before its first batch is drained, offsets go with
AddOffsetsToTxn and TxnOffsetCommit, and EndTxn ends it once every batch is answered. The
requests and their answers are in ``transactional_request_handlers.py``. The application thread
starts these (init, begin, send_offsets, commit, abort) while the Sender thread sends them, so the
request queue and the transitions are under ``_lock``; the result objects carry the answers back.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import threading
from enum import Enum

import structlog

from kafka.clients.errors import KafkaError
from kafka.clients.metadata import Node
from kafka.clients.producer.producer_batch import ProducerBatch, increment_sequence
from kafka.clients.producer.producer_id_and_epoch import NO_SEQUENCE, NONE, ProducerIdAndEpoch
from kafka.clients.producer.topic_partition_bookkeeper import (
    INVALID_OFFSET,
    NO_LAST_ACKED_SEQUENCE_NUMBER,
    TopicPartitionBookkeeper,
    sequence_key,
)
from kafka.clients.producer.transactional_request_handlers import (
    GROUP,
    TRANSACTION,
    AddOffsetsToTxnHandler,
    AddPartitionsToTxnHandler,
    EndTxnHandler,
    FindCoordinatorHandler,
    InitProducerIdHandler,
    TxnRequestHandler,
)
from kafka.clients.producer.transactional_request_result import TransactionalRequestResult
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.clients.producer.TransactionManager")

MAX_PRODUCER_EPOCH = 2**15 - 1
# The errors that end a producer: no retry or epoch bump can help (maybeTransitionToErrorState).
FATAL_ERRORS = frozenset({Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                          Errors.PRODUCER_FENCED, Errors.UNSUPPORTED_VERSION,
                          Errors.INVALID_PRODUCER_ID_MAPPING})


class State(Enum):
    UNINITIALIZED = "UNINITIALIZED"
    INITIALIZING = "INITIALIZING"
    READY = "READY"
    IN_TRANSACTION = "IN_TRANSACTION"
    COMMITTING_TRANSACTION = "COMMITTING_TRANSACTION"
    ABORTING_TRANSACTION = "ABORTING_TRANSACTION"
    ABORTABLE_ERROR = "ABORTABLE_ERROR"
    FATAL_ERROR = "FATAL_ERROR"


# target -> the states it may be entered from (State.isTransitionValid); FATAL_ERROR from any.
_VALID_SOURCES = {
    State.UNINITIALIZED: {State.READY},
    State.INITIALIZING: {State.UNINITIALIZED, State.ABORTING_TRANSACTION},
    State.READY: {State.INITIALIZING, State.COMMITTING_TRANSACTION, State.ABORTING_TRANSACTION},
    State.IN_TRANSACTION: {State.READY},
    State.COMMITTING_TRANSACTION: {State.IN_TRANSACTION},
    State.ABORTING_TRANSACTION: {State.IN_TRANSACTION, State.ABORTABLE_ERROR},
    State.ABORTABLE_ERROR: {State.IN_TRANSACTION, State.COMMITTING_TRANSACTION, State.ABORTABLE_ERROR},
}


class TransactionManager:
    def __init__(self, transactional_id: str | None = None, transaction_timeout_ms: int = 60000,
                 retry_backoff_ms: int = 100) -> None:
        self.transactional_id = transactional_id
        self.transaction_timeout_ms = transaction_timeout_ms
        self.retry_backoff_ms = retry_backoff_ms
        self.topic_partition_bookkeeper = TopicPartitionBookkeeper()
        # A batch that expired here after being sent at least once leaves its partition unresolved:
        # no new sequence is handed out there until later batches show whether it was written.
        # The value is the sequence that would follow the expired batch.
        self.partitions_with_unresolved_sequences: dict[TopicPartition, int] = {}
        # Partitions whose error asked for an epoch bump: their batches in flight are renumbered.
        self.partitions_to_rewrite_sequences: set[TopicPartition] = set()
        self._pending_requests: list[tuple[int, int, TxnRequestHandler]] = []  # a heap by priority
        self._enqueued = itertools.count()  # FIFO among equal priorities
        self._in_flight_request = None  # the ClientRequest of the one request we wait for
        self.current_state = State.UNINITIALIZED
        self.last_error: KafkaError | None = None
        self.producer_id_and_epoch = NONE
        self.epoch_bump_required = False
        # Transactions: the coordinators (by key type), and the partitions of the transaction --
        # new (not asked for yet), pending (AddPartitionsToTxn in flight), and added.
        self._lock = threading.RLock()
        self.coordinators: dict[int, Node | None] = {GROUP: None, TRANSACTION: None}
        self.new_partitions_in_transaction: set[TopicPartition] = set()
        self.pending_partitions_in_transaction: set[TopicPartition] = set()
        self.partitions_in_transaction: set[TopicPartition] = set()
        self.transaction_started = False

    # ------------------------------------------------------------------ state
    def is_transactional(self) -> bool:
        return self.transactional_id is not None

    def has_producer_id(self) -> bool:
        return self.producer_id_and_epoch.is_valid

    def has_producer_id_and_epoch(self, producer_id: int, producer_epoch: int) -> bool:
        return self.producer_id_and_epoch == (producer_id, producer_epoch)

    def has_error(self) -> bool:
        return self.current_state in (State.ABORTABLE_ERROR, State.FATAL_ERROR)

    def has_fatal_error(self) -> bool:
        return self.current_state == State.FATAL_ERROR

    def is_send_to_partition_allowed(self, tp: TopicPartition) -> bool:
        """A transaction's batch waits until AddPartitionsToTxn has put its partition in the transaction."""
        if self.has_fatal_error():
            return False
        return not self.is_transactional() or tp in self.partitions_in_transaction

    def has_abortable_error(self) -> bool:
        return self.current_state == State.ABORTABLE_ERROR

    # ---------------------------------------------------------- the transactional API (application thread)
    def initialize_transactions(self) -> TransactionalRequestResult:
        with self._lock:
            self._ensure_transactional()
            self._transition_to(State.INITIALIZING)
            self._set_producer_id_and_epoch(NONE)
            result = TransactionalRequestResult("InitProducerId")
            self.enqueue(InitProducerIdHandler(self, is_epoch_bump=False, result=result))
            return result

    def begin_transaction(self) -> None:
        with self._lock:
            self._ensure_transactional()
            self._maybe_fail_with_error()
            self._transition_to(State.IN_TRANSACTION)

    def maybe_add_partition(self, tp: TopicPartition) -> None:
        """send() to ``tp`` in a transaction: add it before its first batch goes (Kafka's
        maybeAddPartition)."""
        with self._lock:
            self._maybe_fail_with_error()
            if self.current_state != State.IN_TRANSACTION:
                raise KafkaError(Errors.INVALID_TXN_STATE,
                                 f"cannot call send in state {self.current_state.name}")
            if tp not in self.partitions_in_transaction and tp not in self.pending_partitions_in_transaction:
                self.new_partitions_in_transaction.add(tp)

    def send_offsets_to_transaction(self, offsets: dict, group_metadata) -> TransactionalRequestResult:
        with self._lock:
            self._ensure_transactional()
            self._maybe_fail_with_error()
            if self.current_state != State.IN_TRANSACTION:
                raise KafkaError(Errors.INVALID_TXN_STATE,
                                 "cannot send offsets if a transaction is not in progress "
                                 f"(currentState={self.current_state.name})")
            result = TransactionalRequestResult("AddOffsetsToTxn")
            self.transaction_started = True
            self.enqueue(AddOffsetsToTxnHandler(self, dict(offsets), group_metadata, result))
            return result

    def begin_commit(self) -> TransactionalRequestResult:
        with self._lock:
            self._ensure_transactional()
            self._maybe_fail_with_error()
            self._transition_to(State.COMMITTING_TRANSACTION)
            return self._begin_completing_transaction(committed=True)

    def begin_abort(self) -> TransactionalRequestResult:
        with self._lock:
            self._ensure_transactional()
            if self.has_fatal_error():
                raise self.last_error
            self._transition_to(State.ABORTING_TRANSACTION)
            self.new_partitions_in_transaction.clear()  # never added: nothing there to abort
            return self._begin_completing_transaction(committed=False)

    def _begin_completing_transaction(self, committed: bool) -> TransactionalRequestResult:
        result = TransactionalRequestResult("EndTxn")
        if not self.transaction_started and not self.new_partitions_in_transaction:
            # Nothing reached a broker in this transaction: no coordinator has anything to end.
            self.complete_transaction()
            result.done()
            return result
        self.enqueue(EndTxnHandler(self, committed, result))
        return result

    def complete_transaction(self) -> None:
        with self._lock:
            self._transition_to(State.READY)
            self.transaction_started = False
            self.new_partitions_in_transaction.clear()
            self.pending_partitions_in_transaction.clear()
            self.partitions_in_transaction.clear()

    def transition_to_abortable_error(self, error: KafkaError) -> None:
        with self._lock:
            if self.current_state == State.ABORTING_TRANSACTION:
                return  # already on the way out
            if self.current_state in _VALID_SOURCES[State.ABORTABLE_ERROR]:
                log.info("transiting to abortable error state", error=str(error))
                self._transition_to(State.ABORTABLE_ERROR, error)

    def _ensure_transactional(self) -> None:
        if not self.is_transactional():
            raise KafkaError(Errors.INVALID_TXN_STATE, "transactional method invoked on a non-transactional "
                                                       "producer (set transactional.id)")

    def _maybe_fail_with_error(self) -> None:
        if self.has_error():
            raise self.last_error

    # ------------------------------------------------------ coordinators and partitions (Sender thread)
    def coordinator(self, coordinator_type: int) -> Node | None:
        return self.coordinators[coordinator_type]

    def set_coordinator(self, coordinator_type: int, node: Node) -> None:
        log.info("discovered coordinator", type="transaction" if coordinator_type == TRANSACTION else "group",
                 node=node.node_id)
        self.coordinators[coordinator_type] = node

    def lookup_coordinator(self, coordinator_type: int, key: str) -> None:
        self.coordinators[coordinator_type] = None
        with self._lock:
            if not any(isinstance(h, FindCoordinatorHandler) and h.key_type == coordinator_type
                       for _, _, h in self._pending_requests):
                self.enqueue(FindCoordinatorHandler(self, coordinator_type, key))

    def partitions_added(self, partitions: set[TopicPartition]) -> None:
        with self._lock:
            self.pending_partitions_in_transaction -= partitions
            self.partitions_in_transaction |= partitions

    def fail_if_not_ready_for_send(self) -> None:
        """Called by send(): after a fatal error nothing more can be sent (Java throws too)."""
        error = self.last_error
        if error is not None:
            raise KafkaError(error.error,
                             "cannot perform send because at least one previous transactional or "
                             f"idempotent request has failed with errors: {error}")

    def transition_to_fatal_error(self, error: KafkaError) -> None:
        log.info("transiting to fatal error state", error=str(error))
        self._transition_to(State.FATAL_ERROR, error)

    def _transition_to(self, target: State, error: KafkaError | None = None) -> None:
        if target != State.FATAL_ERROR and self.current_state not in _VALID_SOURCES[target]:
            raise RuntimeError(f"invalid transition attempted from state {self.current_state.name} "
                               f"to state {target.name}")
        if target in (State.FATAL_ERROR, State.ABORTABLE_ERROR):
            if error is None:
                raise ValueError(f"cannot transition to {target.name} without an error")
            self.last_error = error
        else:
            self.last_error = None
        self.current_state = target

    def complete_init_producer_id(self, producer_id_and_epoch: ProducerIdAndEpoch,
                                  reset_sequence_numbers: bool) -> None:
        """InitProducerId answered: the producer has its id and epoch and is ready to send."""
        self._set_producer_id_and_epoch(producer_id_and_epoch)
        self._transition_to(State.READY)
        if reset_sequence_numbers:
            self._reset_sequence_numbers()

    def _set_producer_id_and_epoch(self, producer_id_and_epoch: ProducerIdAndEpoch) -> None:
        log.info("producer id set", producer_id=producer_id_and_epoch.producer_id,
                 epoch=producer_id_and_epoch.epoch)
        self.producer_id_and_epoch = producer_id_and_epoch

    # ------------------------------------------------------------------ producer id and epoch
    def bump_idempotent_epoch_and_reset_id_if_needed(self) -> None:
        """Each Sender loop: bump the epoch if an error asked for it; ask for an id if we have none."""
        if self.is_transactional():
            return
        if self.epoch_bump_required:
            self._bump_idempotent_producer_epoch()
        if self.current_state != State.INITIALIZING and not self.has_producer_id():
            self._transition_to(State.INITIALIZING)
            self._enqueue_request(InitProducerIdHandler(self, is_epoch_bump=False))

    def _bump_idempotent_producer_epoch(self) -> None:
        if self.producer_id_and_epoch.epoch == MAX_PRODUCER_EPOCH:
            self._reset_idempotent_producer_id()  # a new id from InitProducerId, epoch 0
        else:
            pid, epoch = self.producer_id_and_epoch
            self._set_producer_id_and_epoch(ProducerIdAndEpoch(pid, epoch + 1))
        # Renumber the batches in flight of the partitions that asked: their retries start at 0.
        for tp in self.partitions_to_rewrite_sequences:
            self.topic_partition_bookkeeper.start_sequences_at_beginning(tp, self.producer_id_and_epoch)
            self.partitions_with_unresolved_sequences.pop(tp, None)
        self.partitions_to_rewrite_sequences.clear()
        self.epoch_bump_required = False

    def _reset_idempotent_producer_id(self) -> None:
        log.debug("resetting the idempotent producer id", before=str(self.producer_id_and_epoch))
        self._set_producer_id_and_epoch(NONE)
        self._transition_to(State.UNINITIALIZED)

    def request_epoch_bump_for_partition(self, tp: TopicPartition) -> None:
        self.epoch_bump_required = True
        self.partitions_to_rewrite_sequences.add(tp)

    def maybe_update_producer_id_and_epoch(self, tp: TopicPartition) -> None:
        """Before numbering a new batch: a partition whose sequences belong to an older id/epoch,
        and that has nothing left in flight, starts the current epoch at sequence 0."""
        if self.has_stale_producer_id_and_epoch(tp) and not self.has_in_flight_batches(tp):
            self.topic_partition_bookkeeper.start_sequences_at_beginning(tp, self.producer_id_and_epoch)

    def has_stale_producer_id_and_epoch(self, tp: TopicPartition) -> bool:
        entry = self.topic_partition_bookkeeper.get_or_create_partition(tp)
        return self.producer_id_and_epoch != entry.producer_id_and_epoch

    # ------------------------------------------------------------------ sequence numbers
    def sequence_number(self, tp: TopicPartition) -> int:
        return self.topic_partition_bookkeeper.get_or_create_partition(tp).next_sequence

    def increment_sequence_number(self, tp: TopicPartition, increment: int) -> None:
        entry = self.topic_partition_bookkeeper.get_partition(tp)
        entry.next_sequence = increment_sequence(entry.next_sequence, increment)

    def add_in_flight_batch(self, batch: ProducerBatch) -> None:
        if not batch.has_sequence:
            raise RuntimeError(f"cannot track a batch for {batch.topic_partition} without a sequence")
        partition = self.topic_partition_bookkeeper.get_partition(batch.topic_partition)
        bisect.insort(partition.in_flight_batches_by_sequence, batch, key=sequence_key)

    def has_in_flight_batches(self, tp: TopicPartition) -> bool:
        return bool(self.topic_partition_bookkeeper.get_or_create_partition(tp).in_flight_batches_by_sequence)

    def first_in_flight_sequence(self, tp: TopicPartition) -> int:
        """The lowest sequence in flight on ``tp``, or NO_SEQUENCE."""
        entry = self.topic_partition_bookkeeper.topic_partitions.get(tp)
        if entry is None or not entry.in_flight_batches_by_sequence:
            return NO_SEQUENCE
        return entry.in_flight_batches_by_sequence[0].base_sequence

    def remove_in_flight_batch(self, batch: ProducerBatch) -> None:
        entry = self.topic_partition_bookkeeper.topic_partitions.get(batch.topic_partition)
        if entry is not None and batch in entry.in_flight_batches_by_sequence:
            entry.in_flight_batches_by_sequence.remove(batch)

    def last_acked_sequence(self, tp: TopicPartition) -> int | None:
        return self.topic_partition_bookkeeper.last_acked_sequence(tp)

    def last_acked_offset(self, tp: TopicPartition) -> int | None:
        return self.topic_partition_bookkeeper.last_acked_offset(tp)

    def _maybe_update_last_acked_sequence(self, tp: TopicPartition, sequence: int) -> int:
        last = self.last_acked_sequence(tp)
        last = NO_LAST_ACKED_SEQUENCE_NUMBER if last is None else last
        if sequence > last:
            self.topic_partition_bookkeeper.get_partition(tp).last_acked_sequence = sequence
            return sequence
        return last

    def _update_last_acked_offset(self, base_offset: int, batch: ProducerBatch) -> None:
        if base_offset == INVALID_OFFSET:
            return
        last_offset = base_offset + batch.record_count - 1
        last_acked = self.last_acked_offset(batch.topic_partition)
        # The sequences may have been reset while this batch was retried: track the partition again.
        if last_acked is None and not self.is_transactional():
            self.topic_partition_bookkeeper.add_partition(batch.topic_partition)
        if last_offset > (INVALID_OFFSET if last_acked is None else last_acked):
            partition = self.topic_partition_bookkeeper.get_partition(batch.topic_partition)
            partition.last_acked_offset = last_offset

    def _reset_sequence_for_partition(self, tp: TopicPartition) -> None:
        self.topic_partition_bookkeeper.topic_partitions.pop(tp, None)
        self.partitions_with_unresolved_sequences.pop(tp, None)

    def _reset_sequence_numbers(self) -> None:
        self.topic_partition_bookkeeper.reset()
        self.partitions_with_unresolved_sequences.clear()

    def _is_next_sequence(self, tp: TopicPartition, sequence: int) -> bool:
        last = self.last_acked_sequence(tp)
        return sequence - (NO_LAST_ACKED_SEQUENCE_NUMBER if last is None else last) == 1

    # ------------------------------------------------------------------ batch outcomes
    def handle_completed_batch(self, batch: ProducerBatch, base_offset: int) -> None:
        self._maybe_update_last_acked_sequence(batch.topic_partition, batch.last_sequence)
        self._update_last_acked_offset(base_offset, batch)
        self.remove_in_flight_batch(batch)

    def _maybe_transition_to_error_state(self, error: KafkaError) -> None:
        if error.error in FATAL_ERRORS:
            self.transition_to_fatal_error(error)
        elif self.is_transactional():
            # A batch of the transaction is lost: the transaction can only be aborted (KIP-588
            # counts a Produce's INVALID_PRODUCER_EPOCH here too).
            self.transition_to_abortable_error(error)

    def handle_failed_batch(self, batch: ProducerBatch, error: BaseException,
                            adjust_sequence_numbers: bool) -> None:
        """A batch failed for good. Its sequence may leave a gap that later batches would trip on."""
        if isinstance(error, KafkaError):
            self._maybe_transition_to_error_state(error)
        self.remove_in_flight_batch(batch)
        if self.has_fatal_error():
            return
        code = error.error if isinstance(error, KafkaError) else None
        tp = batch.topic_partition
        if code == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER and not self.is_transactional():
            # A gap in the log: a new epoch starts the partition again at sequence 0.
            self.request_epoch_bump_for_partition(tp)
        elif code == Errors.UNKNOWN_PRODUCER_ID:
            # The leader has no state for us and will accept sequence 0 again.
            self._reset_sequence_for_partition(tp)
        elif adjust_sequence_numbers:
            # The broker refused the batch (it was not written), so its sequence is a gap. A
            # transactional producer would shift the later batches' sequences down instead.
            self.request_epoch_bump_for_partition(tp)

    def can_retry(self, error: Errors, log_start_offset: int, batch: ProducerBatch) -> bool:
        """May a batch answered with ``error`` be sent again? UNKNOWN_PRODUCER_ID and
        OUT_OF_ORDER_SEQUENCE_NUMBER are not retriable errors, but an idempotent producer can
        recover from them (KIP-360): it asks for an epoch bump and retries."""
        tp = batch.topic_partition
        if error == Errors.UNKNOWN_PRODUCER_ID:
            if log_start_offset == -1:
                # The leader did not know its log start offset when it answered: ask again.
                return True
            if batch.sequence_has_been_reset:
                # An earlier batch's failure already renumbered this one: just send it again.
                return True
            last_acked = self.last_acked_offset(tp)
            if (NO_LAST_ACKED_SEQUENCE_NUMBER if last_acked is None else last_acked) < log_start_offset:
                # Retention deleted our last batches, and with them the leader's memory of us.
                self.request_epoch_bump_for_partition(tp)
                return True
            if not self.is_transactional():
                self.request_epoch_bump_for_partition(tp)
                return True
        elif error == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER:
            if not self.has_unresolved_sequence(tp) and (
                    batch.sequence_has_been_reset or not self._is_next_sequence(tp, batch.base_sequence)):
                # Not the next batch: an earlier one is still to be answered (or retried). Wait.
                return True
            if not self.is_transactional():
                # The next batch, and it is out of order: a real gap. Bump the epoch, unless an
                # expired batch leaves the partition unresolved and this is not the batch after it.
                if (not self.has_unresolved_sequence(tp)
                        or self._is_next_sequence_for_unresolved_partition(tp, batch.base_sequence)):
                    self.request_epoch_bump_for_partition(tp)
                return True
        return error.retriable

    # ------------------------------------------------------------------ unresolved sequences
    def has_unresolved_sequence(self, tp: TopicPartition) -> bool:
        return tp in self.partitions_with_unresolved_sequences

    def _is_next_sequence_for_unresolved_partition(self, tp: TopicPartition, sequence: int) -> bool:
        return self.partitions_with_unresolved_sequences.get(tp) == sequence

    def mark_sequence_unresolved(self, batch: ProducerBatch) -> None:
        """The batch expired here after being sent: was it written? Later answers will tell."""
        next_sequence = batch.last_sequence + 1
        tp = batch.topic_partition
        self.partitions_with_unresolved_sequences[tp] = max(
            self.partitions_with_unresolved_sequences.get(tp, next_sequence), next_sequence)

    def maybe_resolve_sequences(self) -> None:
        """Each Sender loop: a partition with nothing left in flight is resolved. If the last
        acknowledged sequence is right behind the next one, the expired batch was written;
        otherwise nobody knows, and a new epoch starts the partition over."""
        if not self.partitions_with_unresolved_sequences:
            return
        for tp in list(self.partitions_with_unresolved_sequences):
            if self.has_in_flight_batches(tp):
                continue
            if not self._is_next_sequence(tp, self.sequence_number(tp)):
                log.info("no batches in flight and a gap in the sequences: bumping the epoch",
                         partition=str(tp),
                         last_acked_sequence=self.last_acked_sequence(tp),
                         next_sequence=self.sequence_number(tp))
                self.request_epoch_bump_for_partition(tp)
            del self.partitions_with_unresolved_sequences[tp]

    # ------------------------------------------------------------------ requests (InitProducerId)
    def _enqueue_request(self, handler: TxnRequestHandler) -> None:
        with self._lock:
            heapq.heappush(self._pending_requests, (handler.priority(), next(self._enqueued), handler))

    enqueue = _enqueue_request

    def next_request(self, now_ms: int, has_incomplete_batches: bool = False) -> TxnRequestHandler | None:
        """The request to send now, if one is pending and not backing off. EndTxn waits until every
        batch of the transaction is answered."""
        with self._lock:
            if self.new_partitions_in_transaction and not self.has_error():
                partitions = set(self.new_partitions_in_transaction)
                self.pending_partitions_in_transaction |= partitions
                self.new_partitions_in_transaction.clear()
                self.transaction_started = True
                self._enqueue_request(AddPartitionsToTxnHandler(self, partitions))
            if not self._pending_requests:
                return None
            handler = self._pending_requests[0][2]
            if handler.retry_at_ms > now_ms or (handler.is_end_txn and has_incomplete_batches):
                return None
            heapq.heappop(self._pending_requests)
            if self.has_fatal_error() or (self.has_abortable_error() and not handler.is_end_txn):
                handler.fail(self.last_error)
                return None
            return handler

    def time_to_next_request(self, now_ms: int, has_incomplete_batches: bool = False) -> int | None:
        """How long the first pending request still backs off; None when nothing is pending (or
        the next one waits for batches, which the Sender must go on sending)."""
        with self._lock:
            if not self._pending_requests:
                return None
            handler = self._pending_requests[0][2]
            if handler.is_end_txn and has_incomplete_batches:
                return None
            return max(0, handler.retry_at_ms - now_ms)

    def retry(self, handler: TxnRequestHandler, now_ms: int) -> None:
        handler.retry_at_ms = now_ms + self.retry_backoff_ms
        handler.is_retry = True
        self._enqueue_request(handler)

    def set_in_flight_request(self, request) -> None:
        self._in_flight_request = request

    def in_flight_request(self):
        return self._in_flight_request

    def has_in_flight_request(self) -> bool:
        return self._in_flight_request is not None

    def close(self) -> None:
        self._pending_requests.clear()
