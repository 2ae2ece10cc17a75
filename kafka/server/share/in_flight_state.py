"""InFlightState: the state, delivery count and holder of a batch or a single offset in flight
(Kafka's org.apache.kafka.server.share.fetch.InFlightState and DeliveryCountOps).

A change that must be persisted first is made in two steps: start_state_transition applies it and
remembers what it replaced; complete_state_transition(True) keeps it once the persister has written
it, complete_state_transition(False) puts the old state back if the write failed. While a transition
is pending, no other change is allowed (a second acknowledgement of the same records is refused).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import structlog

from kafka.server.share.acquisition_lock_timer_task import AcquisitionLockTimerTask
from kafka.server.share.record_state import InvalidStateTransitionError, RecordState

log = structlog.get_logger("kafka.server.share.InFlightState")

EMPTY_MEMBER_ID = ""  # held by nobody


class DeliveryCountOps(Enum):
    INCREASE = "increase"  # an acquire: one more delivery
    DECREASE = "decrease"
    NO_OP = "no_op"  # a release, an acknowledgement, a lock timeout


@dataclass(frozen=True)
class _RollbackState:
    state: RecordState
    delivery_count: int
    member_id: str
    max_delivery_count: int


class InFlightState:
    def __init__(self, state: RecordState, delivery_count: int, member_id: str,
                 acquisition_lock_timeout_task: AcquisitionLockTimerTask | None = None) -> None:
        self.state = state
        self.delivery_count = delivery_count
        self.member_id = member_id
        self.acquisition_lock_timeout_task = acquisition_lock_timeout_task
        self._rollback: _RollbackState | None = None
        self._is_terminal = False  # archived outside a transition (the log start moved past it)

    def update_acquisition_lock_timeout_task(self, task: AcquisitionLockTimerTask | None) -> None:
        if self.acquisition_lock_timeout_task is not None and task is not None:
            raise ValueError("Existing acquisition lock timeout exists, cannot override.")
        self.acquisition_lock_timeout_task = task

    def cancel_and_clear_acquisition_lock_timeout_task(self) -> None:
        if self.acquisition_lock_timeout_task is not None:
            self.acquisition_lock_timeout_task.cancel()
            self.acquisition_lock_timeout_task = None

    def has_ongoing_state_transition(self) -> bool:
        return self._rollback is not None

    def try_update_state(self, new_state: RecordState, ops: DeliveryCountOps, max_delivery_count: int,
                         new_member_id: str, dlq_enabled: bool = False) -> InFlightState | None:
        """Move to new_state, or None if that is not a legal move now. Making a record AVAILABLE that
        has been delivered max_delivery_count times archives it instead: the poison record stops here
        (ARCHIVING, on its way to the dead-letter queue, when the group has one: `dlq_enabled`)."""
        if self.has_ongoing_state_transition():
            log.info("ongoing state transition, cannot update", state=str(self), new_state=new_state.name)
            return None
        if (new_state is RecordState.AVAILABLE and ops is not DeliveryCountOps.DECREASE
                and self.delivery_count >= max_delivery_count):
            new_state = RecordState.ARCHIVING if dlq_enabled else RecordState.ARCHIVED
        try:
            self.state = self.state.validate_transition(new_state)
        except InvalidStateTransitionError as e:
            log.error("failed to update state of the records", error=str(e), state=str(self))
            return None
        if new_state is not RecordState.ARCHIVED:
            self.delivery_count += {DeliveryCountOps.INCREASE: 1, DeliveryCountOps.DECREASE: -1}.get(ops, 0)
        self.member_id = new_member_id
        return self

    def archive(self) -> None:
        self._is_terminal = True
        self.state = RecordState.ARCHIVED
        self.member_id = EMPTY_MEMBER_ID
        self.cancel_and_clear_acquisition_lock_timeout_task()

    def start_state_transition(self, new_state: RecordState, ops: DeliveryCountOps, max_delivery_count: int,
                               new_member_id: str, dlq_enabled: bool = False) -> InFlightState | None:
        before = _RollbackState(self.state, self.delivery_count, self.member_id, max_delivery_count)
        updated = self.try_update_state(new_state, ops, max_delivery_count, new_member_id, dlq_enabled)
        if updated is not None:
            self._rollback = before
        return updated

    def complete_state_transition(self, commit: bool) -> None:
        if commit or self._is_terminal:
            self.cancel_and_clear_acquisition_lock_timeout_task()
            self._rollback = None
            return
        before = self._rollback
        task = self.acquisition_lock_timeout_task
        if task is not None and task.has_expired:
            # The lock ran out while the write was in flight: the records are not the member's any more.
            last_delivery = before.delivery_count >= before.max_delivery_count
            self.state = RecordState.ARCHIVED if last_delivery else RecordState.AVAILABLE
            self.member_id = EMPTY_MEMBER_ID
            self.cancel_and_clear_acquisition_lock_timeout_task()
        else:
            self.state = before.state
            self.member_id = before.member_id
        self._rollback = None

    def __repr__(self) -> str:
        return (f"InFlightState(state={self.state.name}, deliveryCount={self.delivery_count}, "
                f"memberId={self.member_id})")
