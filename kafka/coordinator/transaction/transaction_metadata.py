"""TransactionMetadata and TxnTransitMetadata: one transactional id's state, and a transition to a
new state that waits for its log append (Kafka's kafka.coordinator.transaction.TransactionMetadata).

Seed 000: the coordinators append through ReplicaManager. A change to a transaction is therefore
two steps, as in Kafka: ``prepare_*`` computes the target (a frozen TxnTransitMetadata) and sets
``pending_state``, so no second change can start meanwhile (the coordinator answers
CONCURRENT_TRANSACTIONS); the target is appended to ``__transaction_state``; only once that record
is committed does ``complete_transition_to`` make it the state, checking it is the transition that
was prepared. A failed append clears ``pending_state`` and nothing changed.

Epochs follow the client's transaction version (``client_transaction_version``, TransactionVersion).
At TV_0 (librdkafka, aiokafka, kafka-python, our own producer) InitProducerId bumps the epoch and EndTxn
keeps it. At TV_2 (KIP-890 part 2, the Java client on a cluster at transaction.version 2) EndTxn bumps it
too: ``prepare_abort_or_commit`` writes Prepare* with epoch + 1 (and, when that exhausts the epoch, a
``next_producer_id``), the markers carry the new epoch, and ``prepare_complete`` moves to the next
producer id at epoch 0 if there is one. ``lock`` guards every field; the coordinator holds it while it
decides, never while it appends.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from kafka.coordinator.transaction.transaction_state import TransactionState
from kafka.coordinator.transaction.transaction_version import TV_0, supports_epoch_bump
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
SHORT_MAX = 2**15 - 1


def is_epoch_exhausted(producer_epoch: int) -> bool:
    """Kafka never hands out Short.MaxValue, so it can always fence the holder of the last epoch."""
    return producer_epoch >= SHORT_MAX - 1


@dataclass(frozen=True)
class TxnTransitMetadata:
    producer_id: int
    last_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    txn_timeout_ms: int
    txn_state: TransactionState
    topic_partitions: frozenset[TopicPartition]
    txn_start_timestamp: int
    txn_last_update_timestamp: int
    next_producer_id: int = NO_PRODUCER_ID  # TV_2: the id a commit or abort that exhausted the epoch moves to
    client_transaction_version: int = TV_0


class IllegalTransitionError(Exception):
    """A transition Kafka's state machine forbids: a bug in the coordinator, never the client's fault."""


@dataclass(eq=False)
class TransactionMetadata:
    transactional_id: str
    producer_id: int
    last_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    txn_timeout_ms: int
    state: TransactionState
    topic_partitions: set[TopicPartition] = field(default_factory=set)
    txn_start_timestamp: int = -1
    txn_last_update_timestamp: int = -1
    next_producer_id: int = NO_PRODUCER_ID
    client_transaction_version: int = TV_0  # the TransactionVersion of the client's last transition
    pending_state: TransactionState | None = None
    # An epoch fence whose log append failed: the next fence must not bump the epoch again.
    has_failed_epoch_fence: bool = False
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    @property
    def pending_transition_in_progress(self) -> bool:
        return self.pending_state is not None

    @property
    def is_producer_epoch_exhausted(self) -> bool:
        return is_epoch_exhausted(self.producer_epoch)

    def add_partitions(self, partitions) -> None:
        self.topic_partitions.update(partitions)

    def remove_partition(self, tp: TopicPartition) -> None:
        """A partition's marker is written: it no longer waits (only while Prepare*)."""
        if self.state not in (TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT):
            raise IllegalTransitionError(f"removing {tp} from {self.transactional_id} in state {self.state}")
        self.topic_partitions.discard(tp)

    # ------------------------------------------------------------------ preparing a transition
    def prepare_fence_producer_epoch(self) -> TxnTransitMetadata:
        """A newer producer, or the timeout, ends the open transaction: bump the epoch (once: a fence
        whose append failed keeps the epoch it already bumped) and abort under it."""
        if self.producer_epoch == SHORT_MAX:
            raise IllegalTransitionError("cannot fence a producer at epoch Short.MaxValue")
        bumped = self.producer_epoch if self.has_failed_epoch_fence else self.producer_epoch + 1
        return self._prepare_transition_to(TransactionState.PREPARE_EPOCH_FENCE, self.producer_id, bumped,
                                           NO_PRODUCER_EPOCH, self.txn_timeout_ms,
                                           frozenset(self.topic_partitions),
                                           self.txn_start_timestamp, self.txn_last_update_timestamp)

    def prepare_increment_producer_epoch(self, new_txn_timeout_ms: int, expected_producer_epoch: int | None,
                                         now_ms: int):
        """InitProducerId on an id with no open transaction: (error, None) or (None, transit)."""
        if self.is_producer_epoch_exhausted:
            raise IllegalTransitionError(f"no epoch left for producer id {self.producer_id}")
        bumped = self.producer_epoch + 1
        if expected_producer_epoch is None:
            next_epoch, last_epoch = bumped, NO_PRODUCER_EPOCH
        elif self.producer_epoch == NO_PRODUCER_EPOCH or expected_producer_epoch == self.producer_epoch:
            next_epoch, last_epoch = bumped, self.producer_epoch
        elif expected_producer_epoch == self.last_producer_epoch:
            # A retry of a bump that succeeded but whose answer was lost: answer the same epoch again.
            next_epoch, last_epoch = self.producer_epoch, self.last_producer_epoch
        else:
            return Errors.PRODUCER_FENCED, None
        return None, self._prepare_transition_to(TransactionState.EMPTY, self.producer_id, next_epoch,
                                                 last_epoch,
                                                 new_txn_timeout_ms, frozenset(), -1, now_ms)

    def prepare_producer_id_rotation(self, new_producer_id: int, new_txn_timeout_ms: int, now_ms: int,
                                     record_last_epoch: bool) -> TxnTransitMetadata:
        """The epoch is exhausted: a new producer id, at epoch 0."""
        if self.state in (TransactionState.ONGOING, TransactionState.PREPARE_ABORT,
                          TransactionState.PREPARE_COMMIT):
            raise IllegalTransitionError("cannot rotate producer ids while a transaction is pending")
        return self._prepare_transition_to(TransactionState.EMPTY, new_producer_id, 0,
                                           self.producer_epoch if record_last_epoch else NO_PRODUCER_EPOCH,
                                           new_txn_timeout_ms, frozenset(), -1, now_ms)

    def prepare_add_partitions(self, added, now_ms: int,
                               client_transaction_version: int = TV_0) -> TxnTransitMetadata:
        """AddPartitionsToTxn: the first partition starts the transaction (and its timeout clock)."""
        starting = self.state in (TransactionState.EMPTY, TransactionState.COMPLETE_ABORT,
                                  TransactionState.COMPLETE_COMMIT)
        return self._prepare_transition_to(TransactionState.ONGOING, self.producer_id, self.producer_epoch,
                                           self.last_producer_epoch, self.txn_timeout_ms,
                                           frozenset(self.topic_partitions) | frozenset(added),
                                           now_ms if starting else self.txn_start_timestamp, now_ms,
                                           client_transaction_version=client_transaction_version)

    def prepare_abort_or_commit(self, new_state: TransactionState, now_ms: int,
                                client_transaction_version: int = TV_0,
                                next_producer_id: int = NO_PRODUCER_ID,
                                no_partition_added: bool = False) -> TxnTransitMetadata:
        """EndTxn: Prepare*. At TV_2 the epoch goes up by one (the last epoch remembers the old one, so a
        retried EndTxn is recognised); an abort with nothing begun (``no_partition_added``) starts and
        ends an empty transaction, only to bump the epoch."""
        epoch, last_epoch = self.producer_epoch, self.last_producer_epoch
        if supports_epoch_bump(client_transaction_version):
            if not (self.producer_epoch == SHORT_MAX and new_state == TransactionState.PREPARE_ABORT):
                epoch = self.producer_epoch + 1
            last_epoch = self.producer_epoch
        return self._prepare_transition_to(new_state, self.producer_id, epoch, last_epoch,
                                           self.txn_timeout_ms, frozenset(self.topic_partitions),
                                           now_ms if no_partition_added else self.txn_start_timestamp, now_ms,
                                           next_producer_id, client_transaction_version)

    def prepare_complete(self, now_ms: int) -> TxnTransitMetadata:
        """Every marker is written: CompleteCommit or CompleteAbort, with no partitions left."""
        new_state = (TransactionState.COMPLETE_COMMIT if self.state == TransactionState.PREPARE_COMMIT
                     else TransactionState.COMPLETE_ABORT)
        self.has_failed_epoch_fence = False  # the fence's record is in the log now
        producer_id, epoch = self.producer_id, self.producer_epoch
        if supports_epoch_bump(self.client_transaction_version) and self.next_producer_id != NO_PRODUCER_ID:
            producer_id, epoch = self.next_producer_id, 0  # the epoch ran out; the markers are out: move on
        return self._prepare_transition_to(new_state, producer_id, epoch, self.last_producer_epoch,
                                           self.txn_timeout_ms, frozenset(), self.txn_start_timestamp, now_ms,
                                           client_transaction_version=self.client_transaction_version)

    def prepare_dead(self) -> TxnTransitMetadata:
        return self._prepare_transition_to(TransactionState.DEAD, self.producer_id, self.producer_epoch,
                                           self.last_producer_epoch, self.txn_timeout_ms, frozenset(),
                                           self.txn_start_timestamp, self.txn_last_update_timestamp)

    def _prepare_transition_to(self, new_state: TransactionState, producer_id: int, epoch: int,
                               last_epoch: int,
                               txn_timeout_ms: int, partitions: frozenset[TopicPartition],
                               txn_start_timestamp: int,
                               now_ms: int, next_producer_id: int = NO_PRODUCER_ID,
                               client_transaction_version: int | None = None) -> TxnTransitMetadata:
        if self.pending_state is not None:
            raise IllegalTransitionError(f"{self.transactional_id}: preparing {new_state} while "
                                         f"{self.pending_state} is pending")
        if producer_id < 0:
            raise IllegalTransitionError(f"illegal producer id {producer_id}")
        if new_state != TransactionState.DEAD and epoch < 0:
            raise IllegalTransitionError(f"illegal producer epoch {epoch}")
        if self.state not in new_state.valid_previous_states:
            raise IllegalTransitionError(f"{self.transactional_id}: {new_state} cannot follow {self.state}")
        self.pending_state = new_state
        tv = client_transaction_version
        if tv is None:
            tv = self.client_transaction_version
        return TxnTransitMetadata(producer_id, self.producer_id, epoch, last_epoch, txn_timeout_ms, new_state,
                                  partitions, txn_start_timestamp, now_ms, next_producer_id, tv)

    # ------------------------------------------------------------------ completing it, once appended
    def complete_transition_to(self, transit: TxnTransitMetadata) -> None:
        """The record of ``transit`` is committed: make it the state, if it is the prepared one and the
        change is one this state may make (Kafka 4.4's checks); then every field is the transit's."""
        to_state = self.pending_state
        if to_state is None or to_state != transit.txn_state:
            self._fail(transit)
        S = TransactionState
        if to_state == S.EMPTY:  # InitProducerId
            same_epoch = self.producer_epoch == transit.producer_epoch
            epoch_ok = same_epoch or self._valid_producer_epoch_bump(transit)
            if not epoch_ok or transit.topic_partitions or transit.txn_start_timestamp != -1:
                self._fail(transit)
        elif to_state == S.ONGOING:  # AddPartitionsToTxn
            if (not self._valid_producer_epoch(transit)
                or not self.topic_partitions <= transit.topic_partitions
                    or self.txn_timeout_ms != transit.txn_timeout_ms):
                self._fail(transit)
        elif to_state in (S.PREPARE_ABORT, S.PREPARE_COMMIT):  # EndTxn
            # TV_2: an abort with nothing begun starts its (empty) transaction now
            empty_abort = (to_state == S.PREPARE_ABORT
                           and supports_epoch_bump(transit.client_transaction_version)
                           and self.state in (S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT))
            if (not self._valid_producer_epoch(transit)
                or set(self.topic_partitions) != transit.topic_partitions
                    or self.txn_timeout_ms != transit.txn_timeout_ms
                    or not (self.txn_start_timestamp == transit.txn_start_timestamp or empty_abort)):
                self._fail(transit)
        elif to_state in (S.COMPLETE_ABORT, S.COMPLETE_COMMIT):  # markers written
            if (not self._valid_producer_epoch(transit) or self.txn_timeout_ms != transit.txn_timeout_ms
                    or transit.txn_start_timestamp == -1):
                self._fail(transit)
        else:  # PrepareEpochFence becomes PrepareAbort before any append; Dead is removed, not completed
            self._fail(transit)
        self.producer_id, self.last_producer_id = transit.producer_id, transit.last_producer_id
        self.next_producer_id = transit.next_producer_id
        self.producer_epoch, self.last_producer_epoch = transit.producer_epoch, transit.last_producer_epoch
        self.txn_timeout_ms = transit.txn_timeout_ms
        self.topic_partitions = set(transit.topic_partitions)
        self.txn_start_timestamp = transit.txn_start_timestamp
        self.txn_last_update_timestamp = transit.txn_last_update_timestamp
        self.client_transaction_version = transit.client_transaction_version
        self.pending_state = None
        self.state = to_state

    def _valid_producer_epoch(self, transit: TxnTransitMetadata) -> bool:
        """The transit continues this producer: at TV_2 a Prepare* carries the bumped epoch (its last epoch
        is ours), and a Complete* after the epoch ran out a new producer id at epoch 0."""
        S = TransactionState
        tv2 = supports_epoch_bump(transit.client_transaction_version)
        if tv2 and transit.txn_state in (S.COMPLETE_COMMIT, S.COMPLETE_ABORT) and transit.producer_epoch == 0:
            return (transit.last_producer_epoch == self.last_producer_epoch
                    and transit.last_producer_id == self.producer_id)
        if tv2 and transit.txn_state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
            return (transit.last_producer_epoch == self.producer_epoch
                    and transit.producer_id == self.producer_id)
        return transit.producer_epoch == self.producer_epoch and transit.producer_id == self.producer_id

    def _valid_producer_epoch_bump(self, transit: TxnTransitMetadata) -> bool:
        return (transit.producer_epoch == self.producer_epoch + 1
                or (transit.producer_epoch == 0 and transit.producer_id != self.producer_id))

    def _fail(self, transit: TxnTransitMetadata) -> None:
        raise IllegalTransitionError(f"{self.transactional_id}: cannot complete the transition to {transit} "
                                     f"from {self.state} (pending {self.pending_state})")
