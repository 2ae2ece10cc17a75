"""InMemoryPersister: a real implementation of the Persister interface that keeps the state in memory.

The share coordinator's DefaultStatePersister is another helper's work; until it lands, these tests
need a persister that really keeps what SharePartition writes, merges the batches the way the share
coordinator does (a later batch's state wins for its offsets; offsets below the start offset are
forgotten), fences writes from an older leader epoch, and gives the state back to a new leader.
It answers on the caller's thread, or, with `hold()`, only when the test calls `release()`.
"""

from __future__ import annotations

from concurrent.futures import Future

from kafka.protocol.errors import Errors
from kafka.server.share.persister.persister import (
    PartitionStateKey,
    Persister,
    PersisterStateBatch,
    ReadShareGroupStateResult,
    ReadShareGroupStateSummaryResult,
)


class InMemoryPersister(Persister):
    def __init__(self) -> None:
        self.states: dict[PartitionStateKey, dict] = {}
        self.writes: list[tuple[PartitionStateKey, int, list[PersisterStateBatch]]] = []
        self.delivery_complete_counts: list[int] = []  # each write's, KIP-1226
        self._held: list | None = None
        self.fail_writes_with: Errors | None = None

    def hold(self) -> None:
        """Answer nothing until release(): a write in flight."""
        self._held = []

    def release(self) -> None:
        held, self._held = self._held or [], None
        for future, value in held:
            future.set_result(value)

    def _answer(self, value) -> Future:
        future: Future = Future()
        if self._held is not None:
            self._held.append((future, value))
        else:
            future.set_result(value)
        return future

    def initialize_state(self, key, state_epoch, start_offset):
        self.states[key] = dict(state_epoch=state_epoch, start_offset=start_offset, leader_epoch=-1,
                                offsets={})
        return self._answer(Errors.NONE)

    def read_state(self, key, leader_epoch):
        state = self.states.get(key)
        if state is None:
            return self._answer(ReadShareGroupStateResult())
        state["leader_epoch"] = max(state["leader_epoch"], leader_epoch)
        return self._answer(ReadShareGroupStateResult(Errors.NONE, None, state["state_epoch"],
                                                      state["start_offset"],
                                                      self.state_batches(key)))

    def write_state(self, key, state_epoch, leader_epoch, start_offset, state_batches,
                    delivery_complete_count=-1):
        if self.fail_writes_with is not None:
            return self._answer(self.fail_writes_with)
        state = self.states.setdefault(key, dict(state_epoch=state_epoch, start_offset=-1, leader_epoch=-1,
                                                 offsets={}))
        if leader_epoch < state["leader_epoch"]:
            return self._answer(Errors.FENCED_LEADER_EPOCH)
        state["leader_epoch"] = leader_epoch
        state["start_offset"] = start_offset
        for batch in state_batches:
            for offset in range(batch.first_offset, batch.last_offset + 1):
                state["offsets"][offset] = (batch.delivery_state, batch.delivery_count)
        state["offsets"] = {o: v for o, v in state["offsets"].items() if o >= start_offset}
        self.writes.append((key, start_offset, list(state_batches)))
        self.delivery_complete_counts.append(delivery_complete_count)
        return self._answer(Errors.NONE)

    def state_batches(self, key) -> list[PersisterStateBatch]:
        """The kept offsets as runs of one state and delivery count."""
        runs: list[PersisterStateBatch] = []
        for offset, (state, count) in sorted(self.states[key]["offsets"].items()):
            last = runs[-1] if runs else None
            if last and last.last_offset + 1 == offset and (last.delivery_state,
                                                            last.delivery_count) == (state, count):
                runs[-1] = PersisterStateBatch(last.first_offset, offset, state, count)
            else:
                runs.append(PersisterStateBatch(offset, offset, state, count))
        return runs

    def delete_state(self, key):
        self.states.pop(key, None)
        return self._answer(Errors.NONE)

    def read_summary(self, key, leader_epoch):
        state = self.states.get(key)
        return self._answer(ReadShareGroupStateSummaryResult(Errors.NONE, None, state["state_epoch"] if state
                                                             else 0,
                                                             state["start_offset"] if state else -1))

    def stop(self) -> None:
        pass
