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

from kafka.server.share.acquisition_lock_timer_task import AcquisitionLockTimerTask
from kafka.server.share.in_flight_state import EMPTY_MEMBER_ID, DeliveryCountOps, InFlightState
from kafka.server.share.record_state import RecordState
from kafka.utils.time import Time
from kafka.utils.timer.timer import Timer

# (member id, first offset, last offset, delay ms) -> a new AcquisitionLockTimerTask, not yet on the timer
LockTaskFactory = Callable[[str, int, int, int], AcquisitionLockTimerTask]


class InFlightBatch:
    def __init__(self, timer: Timer, time: Time, member_id: str, first_offset: int, last_offset: int,
                 state: RecordState, delivery_count: int, acquisition_lock_timeout_task: AcquisitionLockTimerTask | None,
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

    def start_batch_state_transition(self, new_state: RecordState, ops: DeliveryCountOps, max_delivery_count: int,
                                     new_member_id: str) -> InFlightState | None:
        return self._state().start_state_transition(new_state, ops, max_delivery_count, new_member_id)

    def update_acquisition_lock_timeout(self, task: AcquisitionLockTimerTask) -> None:
        self._state().update_acquisition_lock_timeout_task(task)

    def cancel_and_clear_acquisition_lock_timeout_task(self) -> None:
        self._state().cancel_and_clear_acquisition_lock_timeout_task()

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
            if task is not None:
                offset_task = self.lock_task_factory(batch.member_id, offset, offset,
                                                     task.expiration_ms - self.time.hi_res_clock_ms())
            self.offset_state[offset] = InFlightState(batch.state, batch.delivery_count, batch.member_id, offset_task)
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
                self.offset_state[offset] = InFlightState(batch.state, batch.delivery_count, batch.member_id, task)
                self.timer.add(task)
            else:
                self.offset_state[offset] = InFlightState(RecordState.AVAILABLE, batch.delivery_count - 1,
                                                          EMPTY_MEMBER_ID)
        self.batch_state = None

    def __repr__(self) -> str:
        return (f"InFlightBatch(firstOffset={self.first_offset}, lastOffset={self.last_offset}, "
                f"inFlightState={self.batch_state}, offsetState={self.offset_state})")
