"""CoordinatorState: where a partition's shard is in its life (Kafka's CoordinatorRuntime.CoordinatorState).

    INITIAL -> LOADING -> ACTIVE -> CLOSED (unloaded)
                  |          |
                  +-> FAILED <+      (a load that failed, or a log out of step with the shard)
    FAILED -> LOADING                (a later leader epoch loads it again)

Only an ACTIVE shard runs reads and writes; a LOADING one answers COORDINATOR_LOAD_IN_PROGRESS, any other
NOT_COORDINATOR.
"""

from __future__ import annotations

from enum import Enum


class CoordinatorState(Enum):
    INITIAL = "initial"
    LOADING = "loading"
    ACTIVE = "active"
    CLOSED = "closed"
    FAILED = "failed"

    def can_transition_from(self, state: CoordinatorState) -> bool:
        return state in _ALLOWED_FROM[self]


_ALLOWED_FROM = {
    CoordinatorState.INITIAL: (),
    CoordinatorState.LOADING: (CoordinatorState.INITIAL, CoordinatorState.FAILED),
    CoordinatorState.ACTIVE: (CoordinatorState.ACTIVE, CoordinatorState.LOADING),
    CoordinatorState.CLOSED: tuple(CoordinatorState),
    CoordinatorState.FAILED: (CoordinatorState.LOADING, CoordinatorState.ACTIVE),
}
