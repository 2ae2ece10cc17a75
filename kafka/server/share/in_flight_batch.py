"""InFlightBatch: a run of offsets fetched and handed out together (Kafka's
org.apache.kafka.server.share.fetch.InFlightBatch).

While every offset of the batch is in the same state, one InFlightState (the batch state) holds it,
with one acquisition lock: a thousand records acquired in one fetch are one entry and one timer task.
The moment some offsets need a state of their own (a member acknowledges part of the batch, or the
start offset moves into it), the batch "explodes" into offset_state, one InFlightState per offset,
each with its own lock due when the batch's was (maybe_initialize_offset_state_update).
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.protocol.errors import Errors
from kafka.server.share.acquisition_lock_timer_task import AcquisitionLockTimerTask
from kafka.server.share.in_flight_state import EMPTY_MEMBER_ID, DeliveryCountOps, InFlightState
from kafka.server.share.record_state import RecordState
from kafka.server.share.share_acquired_records import AcquiredRecords
from kafka.server.share.share_errors import ShareError
from kafka.utils.time import Time
from kafka.utils.timer.timer import Timer

# (member id, first offset, last offset, delay ms) -> a new AcquisitionLockTimerTask, not yet on the timer
LockTaskFactory = Callable[[str, int, int, int], AcquisitionLockTimerTask]
# (member id, first offset, last offset) -> a lock for the share partition's lock duration, on the timer
LockScheduler = Callable[[str, int, int], AcquisitionLockTimerTask]
_ONGOING = "The record state is invalid. The acknowledgement of delivery could not be completed."


class InFlightBatch:
    def __init__(self, timer: Timer, time: Time, member_id: str, first_offset: int, last_offset: int,
                 state: RecordState, delivery_count: int,
                 acquisition_lock_timeout_task: AcquisitionLockTimerTask | None,
                 lock_task_factory: LockTaskFactory) -> None:
        self.timer = timer
        self.time = time
        self.first_offset = first_offset
        self.last_offset = last_offset
        self.lock_task_factory = lock_task_factory
        self.batch_state: InFlightState | None = InFlightState(state, delivery_count, member_id,
                                                               acquisition_lock_timeout_task)
        self.offset_state: dict[int, InFlightState] | None = None  # offset -> state, in offset order

    def _state(self) -> InFlightState:
        if self.batch_state is None:
            raise RuntimeError("The batch state is not available as the offset state is maintained")
        return self.batch_state

    # the batch as a whole (only while offset_state is None)
    @property
    def state(self) -> RecordState:
        return self._state().state

    @property
    def member_id(self) -> str:
        return self._state().member_id

    @property
    def delivery_count(self) -> int:
        return self._state().delivery_count

    @property
    def acquisition_lock_timeout_task(self) -> AcquisitionLockTimerTask | None:
        return self._state().acquisition_lock_timeout_task

    def has_ongoing_state_transition(self) -> bool:
        return self._state().has_ongoing_state_transition()

    def archive_batch(self) -> None:
        self._state().archive()

    def try_update_batch_state(self, new_state: RecordState, ops: DeliveryCountOps, max_delivery_count: int,
                               new_member_id: str) -> InFlightState | None:
        return self._state().try_update_state(new_state, ops, max_delivery_count, new_member_id)

    def start_batch_state_transition(self, new_state: RecordState, ops: DeliveryCountOps,
                                     max_delivery_count: int,
                                     new_member_id: str) -> InFlightState | None:
        return self._state().start_state_transition(new_state, ops, max_delivery_count, new_member_id)

    def update_acquisition_lock_timeout(self, task: AcquisitionLockTimerTask) -> None:
        self._state().update_acquisition_lock_timeout_task(task)

    def cancel_and_clear_acquisition_lock_timeout_task(self) -> None:
        self._state().cancel_and_clear_acquisition_lock_timeout_task()

    def states(self) -> list[tuple[int, InFlightState]]:
        """(first offset, state) of the whole batch, or of each offset once it has its own."""
        if self.offset_state is None:
            return [(self.first_offset, self._state())]
        return list(self.offset_state.items())

    def acquired_states(self, start_offset: int, first: int,
                        last: int) -> list[tuple[int, int, InFlightState]]:
        """(first, last, state) of the ACQUIRED records in [first, last]; a batch the start offset has moved
        into is split first, since its records before the start offset will be archived, not released."""
        if (self.offset_state is None and self.state is RecordState.ACQUIRED
                and self.first_offset < start_offset <= self.last_offset):
            self.maybe_initialize_offset_state_update()
        if self.offset_state is None:
            if self.state is not RecordState.ACQUIRED:
                return []
            return [(self.first_offset, self.last_offset, self._state())]
        return [(o, o, s) for o, s in self.offset_state.items()
                if first <= o <= last and s.state is RecordState.ACQUIRED]

    def archive_records(self, first: int, last: int, initial: RecordState) -> bool:
        """Archive the records in [first, last] that are in `initial` state (Kafka's archiveCompleteBatch and
        archivePerOffsetBatchRecords); True if any were."""
        if self.offset_state is None and self.first_offset >= first and self.last_offset <= last:
            if self.state is not initial:
                return False
            self.archive_batch()
            return True
        if self.offset_state is None:
            if self.state is not initial:
                return False
            self.maybe_initialize_offset_state_update()
        archived = False
        for offset, state in self.offset_state.items():
            if first <= offset <= last and state.state is initial:
                state.archive()
                archived = True
        return archived

    def acquire_available(self, member_id: str, request_first: int, request_last: int, limit: int | None,
                          max_delivery_count: int, schedule_lock: LockScheduler) -> list[AcquiredRecords]:
        """Acquire this batch's AVAILABLE records in [request_first, request_last] (at most `limit` in
        record_limit mode): the whole batch at once when it fits, else offset by offset."""
        full_match = self.first_offset >= request_first and self.last_offset <= request_last
        too_big = limit is not None and self.last_offset - self.first_offset + 1 > limit
        if self.offset_state is None and (self.state is not RecordState.AVAILABLE
                                          or self.has_ongoing_state_transition()):
            return []
        if full_match and self.offset_state is None and not too_big:
            updated = self.try_update_batch_state(RecordState.ACQUIRED, DeliveryCountOps.INCREASE,
                                                  max_delivery_count, member_id)
            if updated is None or updated.state is not RecordState.ACQUIRED:
                return []
            self.update_acquisition_lock_timeout(schedule_lock(member_id, self.first_offset,
                                                               self.last_offset))
            return [AcquiredRecords(self.first_offset, self.last_offset, self.delivery_count)]
        self.maybe_initialize_offset_state_update()
        acquired: list[AcquiredRecords] = []
        for offset, state in self.offset_state.items():
            if offset < request_first or state.state is not RecordState.AVAILABLE:
                continue
            if state.has_ongoing_state_transition():
                continue
            if offset > request_last or limit is not None and len(acquired) >= limit:
                break
            updated = state.try_update_state(RecordState.ACQUIRED, DeliveryCountOps.INCREASE,
                                             max_delivery_count,
                                             member_id)
            if updated is None or updated.state is not RecordState.ACQUIRED:
                continue
            state.update_acquisition_lock_timeout_task(schedule_lock(member_id, offset, offset))
            acquired.append(AcquiredRecords(offset, offset, state.delivery_count))
        return acquired

    def acknowledgeable_states(self, member_id: str, first: int, last: int, per_offset: bool,
                               start_offset: int
                               ) -> list[tuple[int, int, InFlightState]]:
        """(first, last, state) of what member_id may acknowledge in [first, last]: the whole batch, or each
        offset; raises INVALID_RECORD_STATE when it holds not all of it (Kafka's acknowledgeBatchRecords)."""
        if self.offset_state is None:
            if self.member_id == EMPTY_MEMBER_ID:
                raise ShareError(Errors.INVALID_RECORD_STATE,
                                 "The batch cannot be acknowledged. The batch is not in the acquired state.")
            if self.member_id != member_id:
                raise ShareError(Errors.INVALID_RECORD_STATE, "Member is not the owner of batch record")
            if self.has_ongoing_state_transition():
                raise ShareError(Errors.INVALID_RECORD_STATE, _ONGOING)
            full_match = self.first_offset >= first and self.last_offset <= last
            if full_match and not per_offset and not self.first_offset < start_offset <= self.last_offset:
                if self.state is not RecordState.ACQUIRED:
                    raise ShareError(Errors.INVALID_RECORD_STATE,
                                     "The batch cannot be acknowledged. The "
                                     "batch is not in the acquired state.")
                return [(self.first_offset, self.last_offset, self._state())]
            if self.state is not RecordState.ACQUIRED:
                raise ShareError(Errors.INVALID_RECORD_STATE,
                                 "The batch cannot be acknowledged. The "
                                 "subset batch is not in the acquired state.")
            self.maybe_initialize_offset_state_update()
        result = []
        for offset, state in self.offset_state.items():
            if offset < first or offset < start_offset:
                continue
            if offset > last:
                break
            if state.state is not RecordState.ACQUIRED:
                raise ShareError(Errors.INVALID_RECORD_STATE,
                                 "The offset cannot be acknowledged. The offset is not acquired.")
            if state.has_ongoing_state_transition():
                raise ShareError(Errors.INVALID_RECORD_STATE, _ONGOING)
            if state.member_id != member_id:
                raise ShareError(Errors.INVALID_RECORD_STATE, "Member is not the owner of offset")
            result.append((offset, offset, state))
        return result

    # the batch offset by offset
    def maybe_initialize_offset_state_update(self) -> None:
        """Give each offset its own state, copied from the batch's (each with its own lock, due when the
        batch's lock was); from now on the batch is read offset by offset."""
        if self.offset_state is not None:
            return
        batch = self._state()
        task = batch.acquisition_lock_timeout_task
        self.offset_state = {}
        for offset in range(self.first_offset, self.last_offset + 1):
            offset_task = None
            if task is not None and not task.has_expired:  # a lock that fired is being released: not copied
                offset_task = self.lock_task_factory(batch.member_id, offset, offset,
                                                     max(1, task.expiration_ms - self.time.hi_res_clock_ms()))
            self.offset_state[offset] = InFlightState(batch.state, batch.delivery_count, batch.member_id,
                                                      offset_task)
            if offset_task is not None:
                self.timer.add(offset_task)
        batch.cancel_and_clear_acquisition_lock_timeout_task()
        self.batch_state = None

    def initialize_offset_state_up_to(self, target_offset: int, delay_ms: int) -> None:
        """Kafka's maybeInitializeOffsetStateUpdate(targetOffset, delayMs), for a record_limit acquire that
        takes only part of a new batch: offsets up to target_offset acquired with locks, the rest left
        AVAILABLE as if never delivered."""
        if self.offset_state is not None:
            return
        batch = self._state()
        self.offset_state = {}
        for offset in range(self.first_offset, self.last_offset + 1):
            if offset <= target_offset:
                task = self.lock_task_factory(batch.member_id, offset, offset, delay_ms)
                self.offset_state[offset] = InFlightState(batch.state, batch.delivery_count, batch.member_id,
                                                          task)
                self.timer.add(task)
            else:
                self.offset_state[offset] = InFlightState(RecordState.AVAILABLE, batch.delivery_count - 1,
                                                          EMPTY_MEMBER_ID)
        self.batch_state = None

    def __repr__(self) -> str:
        return (f"InFlightBatch(firstOffset={self.first_offset}, lastOffset={self.last_offset}, "
                f"inFlightState={self.batch_state}, offsetState={self.offset_state})")
