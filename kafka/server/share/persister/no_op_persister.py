"""NoOpStatePersister: a Persister that keeps nothing (Kafka's
org.apache.kafka.server.share.persister.NoOpStatePersister).

Every write succeeds and every read finds no state (start offset -1), so a share partition always
starts where share.auto.offset.reset says and forgets its in-flight records when its leader moves.
Useful where durability does not matter: a broker without a share coordinator, a unit test.
"""

from __future__ import annotations

from concurrent.futures import Future

from kafka.server.share.persister.persister import (
    PartitionStateKey,
    Persister,
    PersisterStateBatch,
    ReadShareGroupStateResult,
    ReadShareGroupStateSummaryResult,
)

NONE = 0  # Errors.NONE; the persister speaks error codes, as the *ShareGroupState responses do


def _done(value) -> Future:
    future: Future = Future()
    future.set_result(value)
    return future


class NoOpStatePersister(Persister):
    def initialize_state(self, key: PartitionStateKey, state_epoch: int, start_offset: int) -> Future[int]:
        return _done(NONE)

    def read_state(self, key: PartitionStateKey, leader_epoch: int) -> Future[ReadShareGroupStateResult]:
        return _done(ReadShareGroupStateResult(NONE, None, state_epoch=0, start_offset=-1, state_batches=[]))

    def write_state(self, key: PartitionStateKey, state_epoch: int, leader_epoch: int, start_offset: int,
                    state_batches: list[PersisterStateBatch],
                    delivery_complete_count: int = -1) -> Future[int]:
        return _done(NONE)

    def delete_state(self, key: PartitionStateKey) -> Future[int]:
        return _done(NONE)

    def read_summary(self, key: PartitionStateKey,
                     leader_epoch: int) -> Future[ReadShareGroupStateSummaryResult]:
        return _done(ReadShareGroupStateSummaryResult(NONE, None, state_epoch=0, start_offset=-1))

    def stop(self) -> None:
        pass
