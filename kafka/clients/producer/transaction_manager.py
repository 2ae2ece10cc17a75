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

The Sender thread does all of this work, so there is no lock: the application thread only reads
``last_error`` (in ``KafkaProducer.send``), and that is a single reference read.
Transactions (a transactional id, its coordinator, AddPartitionsToTxn, EndTxn) are not here yet.
The states and request priorities are Kafka's, so they can be added without changing this shape.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections.abc import Callable
from enum import Enum, IntEnum
from typing import Any

import structlog

from kafka.clients.client_request import ClientResponse
from kafka.clients.errors import KafkaError
from kafka.clients.producer.producer_batch import ProducerBatch, increment_sequence
from kafka.clients.producer.producer_id_and_epoch import NO_SEQUENCE, NONE, ProducerIdAndEpoch
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.clients.producer.TransactionManager")

NO_LAST_ACKED_SEQUENCE_NUMBER = -1
INVALID_OFFSET = -1
MAX_PRODUCER_EPOCH = 2**15 - 1
# The errors that end a producer: no retry or epoch bump can help (maybeTransitionToErrorState).
FATAL_ERRORS = frozenset({Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                          Errors.PRODUCER_FENCED, Errors.UNSUPPORTED_VERSION})


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


class Priority(IntEnum):
    """The order pending requests go out in: a coordinator first, then a producer id, ..."""

    FIND_COORDINATOR = 0
    INIT_PRODUCER_ID = 1
    ADD_PARTITIONS_OR_OFFSETS = 2
    END_TXN = 3
    EPOCH_BUMP = 4


def _sequence_key(batch: ProducerBatch) -> int:
    return batch.base_sequence


class TopicPartitionEntry:
    """What the producer knows of its sequences on one partition."""

    __slots__ = ("producer_id_and_epoch", "next_sequence", "last_acked_sequence", "in_flight_batches_by_sequence",
                 "last_acked_offset")

    def __init__(self) -> None:
        self.producer_id_and_epoch = NONE  # the id/epoch this partition's sequences belong to
        self.next_sequence = 0  # the base sequence of the next batch drained for it
        # The last sequence of the last acknowledged batch: with nothing in flight, next_sequence - 1.
        self.last_acked_sequence = NO_LAST_ACKED_SEQUENCE_NUMBER
        # Drained, not yet completed. Sorted by sequence, so a retry waits until it is the first again.
        self.in_flight_batches_by_sequence: list[ProducerBatch] = []
        # Tells UNKNOWN_PRODUCER_ID after retention deleted our batches from real data loss.
        self.last_acked_offset = INVALID_OFFSET

    def reset_sequence_numbers(self, reset_sequence: Callable[[ProducerBatch], None]) -> None:
        for batch in self.in_flight_batches_by_sequence:
            reset_sequence(batch)
        self.in_flight_batches_by_sequence.sort(key=_sequence_key)


class TopicPartitionBookkeeper:
    def __init__(self) -> None:
        self.topic_partitions: dict[TopicPartition, TopicPartitionEntry] = {}

    def get_partition(self, tp: TopicPartition) -> TopicPartitionEntry:
        entry = self.topic_partitions.get(tp)
        if entry is None:
            raise RuntimeError(f"the sequence number of {tp} was never set")
        return entry

    def get_or_create_partition(self, tp: TopicPartition) -> TopicPartitionEntry:
        entry = self.topic_partitions.get(tp)
        if entry is None:
            entry = self.topic_partitions[tp] = TopicPartitionEntry()
        return entry

    def add_partition(self, tp: TopicPartition) -> None:
        self.topic_partitions.setdefault(tp, TopicPartitionEntry())

    def reset(self) -> None:
        self.topic_partitions.clear()

    def last_acked_offset(self, tp: TopicPartition) -> int | None:
        entry = self.topic_partitions.get(tp)
        return entry.last_acked_offset if entry is not None and entry.last_acked_offset != INVALID_OFFSET else None

    def last_acked_sequence(self, tp: TopicPartition) -> int | None:
        entry = self.topic_partitions.get(tp)
        if entry is not None and entry.last_acked_sequence != NO_LAST_ACKED_SEQUENCE_NUMBER:
            return entry.last_acked_sequence
        return None

    def start_sequences_at_beginning(self, tp: TopicPartition, new_producer_id_and_epoch: ProducerIdAndEpoch) -> None:
        """Number the partition's batches in flight again from 0 under a new id/epoch."""
        entry = self.get_partition(tp)
        sequence = 0

        def reset(batch: ProducerBatch) -> None:
            nonlocal sequence
            batch.reset_producer_state(new_producer_id_and_epoch, sequence, batch.is_transactional)
            sequence += batch.record_count

        entry.reset_sequence_numbers(reset)
        entry.producer_id_and_epoch = new_producer_id_and_epoch
        entry.next_sequence = sequence
        entry.last_acked_sequence = NO_LAST_ACKED_SEQUENCE_NUMBER


class TransactionManager:
    def __init__(self, transactional_id: str | None = None, transaction_timeout_ms: int = 60000,
                 retry_backoff_ms: int = 100) -> None:
        if transactional_id is not None:
            raise NotImplementedError("transactions are not supported yet: only the idempotent producer")
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
        return not self.has_fatal_error()  # a transaction would also need tp added to it

    def can_bump_epoch(self) -> bool:
        # An idempotent producer bumps its own epoch. A transactional one will need its
        # coordinator to speak InitProducerId v3+ (KIP-360), which takes the current id and epoch.
        return not self.is_transactional()

    def fail_if_not_ready_for_send(self) -> None:
        """Called by send(): after a fatal error nothing more can be sent (Java throws too)."""
        error = self.last_error
        if error is not None:
            raise KafkaError(error.error, "cannot perform send because at least one previous transactional or "
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

    def _set_producer_id_and_epoch(self, producer_id_and_epoch: ProducerIdAndEpoch) -> None:
        log.info("producer id set", producer_id=producer_id_and_epoch.producer_id, epoch=producer_id_and_epoch.epoch)
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
        batches = self.topic_partition_bookkeeper.get_partition(batch.topic_partition).in_flight_batches_by_sequence
        bisect.insort(batches, batch, key=_sequence_key)

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
            self.topic_partition_bookkeeper.get_partition(batch.topic_partition).last_acked_offset = last_offset

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
        # A transactional producer would enter ABORTABLE_ERROR here (and maybe bump its epoch).

    def handle_failed_batch(self, batch: ProducerBatch, error: BaseException, adjust_sequence_numbers: bool) -> None:
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
                log.info("no batches in flight and a gap in the sequences: bumping the epoch", partition=str(tp),
                         last_acked_sequence=self.last_acked_sequence(tp), next_sequence=self.sequence_number(tp))
                self.request_epoch_bump_for_partition(tp)
            del self.partitions_with_unresolved_sequences[tp]

    # ------------------------------------------------------------------ requests (InitProducerId)
    def _enqueue_request(self, handler: TxnRequestHandler) -> None:
        heapq.heappush(self._pending_requests, (handler.priority(), next(self._enqueued), handler))

    def next_request(self, now_ms: int) -> TxnRequestHandler | None:
        """The request to send now, if one is pending and not backing off."""
        if not self._pending_requests:
            return None
        handler = self._pending_requests[0][2]
        if handler.retry_at_ms > now_ms:
            return None
        heapq.heappop(self._pending_requests)
        if self.has_error():
            handler.fail(self.last_error)
            return None
        return handler

    def time_to_next_request(self, now_ms: int) -> int | None:
        """How long the first pending request still backs off; None when nothing is pending."""
        if not self._pending_requests:
            return None
        return max(0, self._pending_requests[0][2].retry_at_ms - now_ms)

    def retry(self, handler: TxnRequestHandler, now_ms: int) -> None:
        handler.retry_at_ms = now_ms + self.retry_backoff_ms
        handler.is_retry = True
        self._enqueue_request(handler)

    def set_in_flight_request(self, request) -> None:
        self._in_flight_request = request

    def has_in_flight_request(self) -> bool:
        return self._in_flight_request is not None

    def close(self) -> None:
        self._pending_requests.clear()


class TxnRequestHandler:
    """One request of the TransactionManager and what its answer does (a RequestCompletionHandler)."""

    api_key: int

    def __init__(self, manager: TransactionManager) -> None:
        self.manager = manager
        self.is_retry = False
        self.retry_at_ms = 0

    def priority(self) -> int:
        raise NotImplementedError

    def request_body(self) -> dict[str, Any]:
        raise NotImplementedError

    def handle_response(self, body: Any, now_ms: int) -> None:
        raise NotImplementedError

    def fail(self, error: KafkaError | None) -> None:
        """The request will not be sent (the manager is in an error state)."""

    def fatal_error(self, error: KafkaError) -> None:
        self.fail(error)
        self.manager.transition_to_fatal_error(error)

    def reenqueue(self, now_ms: int) -> None:
        self.manager.retry(self, now_ms)

    def on_complete(self, response: ClientResponse) -> None:
        manager = self.manager
        if response.request is not manager._in_flight_request:
            self.fatal_error(KafkaError(Errors.UNKNOWN_SERVER_ERROR, "detected more than one in-flight "
                                                                     "transactional request"))
            return
        manager.set_in_flight_request(None)
        now_ms = response.received_ms
        if response.disconnected or response.timed_out:
            log.debug("no answer, will retry", api=self.__class__.__name__, node=response.request.node_id,
                      error=str(response.error))
            self.reenqueue(now_ms)
        elif isinstance(response.error, KafkaError) and response.error.error == Errors.UNSUPPORTED_VERSION:
            self.fatal_error(self.unsupported_version_error(response.error))
        elif response.error is not None:
            error = response.error if isinstance(response.error, KafkaError) else KafkaError(message=str(response.error))
            if error.retriable:
                self.reenqueue(now_ms)
            else:
                self.fatal_error(error)
        elif response.body is not None:
            self.handle_response(response.body, now_ms)
        else:
            self.fatal_error(KafkaError(Errors.UNKNOWN_SERVER_ERROR,
                                        "could not execute transactional request for unknown reasons"))

    def unsupported_version_error(self, error: KafkaError) -> KafkaError:
        return error


class InitProducerIdHandler(TxnRequestHandler):
    """InitProducerId (key 22): a producer id and epoch for a producer without one."""

    api_key = ApiKey.INIT_PRODUCER_ID

    def __init__(self, manager: TransactionManager, is_epoch_bump: bool) -> None:
        super().__init__(manager)
        self.is_epoch_bump = is_epoch_bump
        self.producer_id_and_epoch = manager.producer_id_and_epoch if is_epoch_bump else NONE

    def priority(self) -> int:
        return Priority.EPOCH_BUMP if self.is_epoch_bump else Priority.INIT_PRODUCER_ID

    def request_body(self) -> dict[str, Any]:
        manager = self.manager
        # An idempotent producer has no transaction, so no transaction timeout (Java sends MAX_VALUE).
        timeout = manager.transaction_timeout_ms if manager.is_transactional() else 2**31 - 1
        return {"transactional_id": manager.transactional_id, "transaction_timeout_ms": timeout,
                "producer_id": self.producer_id_and_epoch.producer_id,
                "producer_epoch": self.producer_id_and_epoch.epoch}

    def handle_response(self, body: Any, now_ms: int) -> None:
        manager = self.manager
        error = Errors.for_code(body.error_code)
        if error == Errors.NONE:
            manager._set_producer_id_and_epoch(ProducerIdAndEpoch(body.producer_id, body.producer_epoch))
            manager._transition_to(State.READY)
            if self.is_epoch_bump:
                manager._reset_sequence_numbers()
        elif error.retriable:
            # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, ... A
            # transactional producer would look its coordinator up again first.
            log.info("InitProducerId failed, will retry", error=error.name, backoff_ms=manager.retry_backoff_ms)
            self.reenqueue(now_ms)
        else:
            self.fatal_error(KafkaError(error, f"InitProducerId failed: {error.message}"))

    def unsupported_version_error(self, error: KafkaError) -> KafkaError:
        return KafkaError(Errors.UNSUPPORTED_VERSION,
                          f"the broker does not support INIT_PRODUCER_ID, which an idempotent producer needs "
                          f"({error}); set enable.idempotence=false to produce to it without idempotence")
