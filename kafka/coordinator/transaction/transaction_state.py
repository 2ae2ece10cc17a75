"""TransactionState: the states of a transactional id (Kafka's
kafka.coordinator.transaction.TransactionState).

Seed 004 asks for idempotent writes; KIP-98's second half makes several writes one atomic unit.
The coordinator keeps one state per transactional id, written to ``__transaction_state`` before
every step, so a new coordinator (after a failover) knows exactly where each transaction stood:

    Empty -> Ongoing (AddPartitionsToTxn / AddOffsetsToTxn) -> PrepareCommit | PrepareAbort (EndTxn,
    written and answered) -> markers on every partition -> CompleteCommit | CompleteAbort -> Ongoing ...

PrepareEpochFence is a newer producer's InitProducerId meeting an open transaction: the epoch is
bumped and the transaction aborted. Dead is a transactional id expiring. Each state names the states
it may follow (``valid_previous_states``): any other transition is a bug, and is refused. The ids
and names are Kafka's: the id is what the log stores, the name what DescribeTransactions shows.
"""

from __future__ import annotations

from enum import Enum


class TransactionState(Enum):
    EMPTY = (0, "Empty")
    ONGOING = (1, "Ongoing")
    PREPARE_COMMIT = (2, "PrepareCommit")
    PREPARE_ABORT = (3, "PrepareAbort")
    COMPLETE_COMMIT = (4, "CompleteCommit")
    COMPLETE_ABORT = (5, "CompleteAbort")
    DEAD = (6, "Dead")
    PREPARE_EPOCH_FENCE = (7, "PrepareEpochFence")

    def __init__(self, state_id: int, state_name: str) -> None:
        self.id = state_id
        self.state_name = state_name

    def __str__(self) -> str:
        return self.state_name

    @property
    def valid_previous_states(self) -> frozenset[TransactionState]:
        return _VALID_PREVIOUS[self]

    @property
    def is_expiration_allowed(self) -> bool:
        """Only an id with no transaction in flight may expire (transactional.id.expiration.ms)."""
        return self in (TransactionState.EMPTY, TransactionState.COMPLETE_COMMIT,
                        TransactionState.COMPLETE_ABORT)

    @classmethod
    def from_id(cls, state_id: int) -> TransactionState:
        for state in cls:
            if state.id == state_id:
                return state
        raise ValueError(f"unknown transaction state id {state_id} in the transaction log")

    @classmethod
    def from_name(cls, name: str) -> TransactionState | None:
        return next((s for s in cls if s.state_name == name), None)


S = TransactionState
_VALID_PREVIOUS: dict[TransactionState, frozenset[TransactionState]] = {
    S.EMPTY: frozenset({S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT}),
    S.ONGOING: frozenset({S.ONGOING, S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT}),
    S.PREPARE_COMMIT: frozenset({S.ONGOING}),
    # TV_2: an abort with nothing begun (from Empty or a completed transaction) bumps the epoch
    S.PREPARE_ABORT: frozenset({S.ONGOING, S.PREPARE_EPOCH_FENCE,
                                S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT}),
    S.COMPLETE_COMMIT: frozenset({S.PREPARE_COMMIT}),
    S.COMPLETE_ABORT: frozenset({S.PREPARE_ABORT}),
    S.DEAD: frozenset({S.EMPTY, S.COMPLETE_ABORT, S.COMPLETE_COMMIT}),
    S.PREPARE_EPOCH_FENCE: frozenset({S.ONGOING}),
}
del S
