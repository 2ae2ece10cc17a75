"""ClassicGroupState: the five states of a classic group and the moves between them (Kafka's
org.apache.kafka.coordinator.group.classic.ClassicGroupState).

Seed 004: the coordinator "manages the group membership and initiates the rebalance activity"::

    Empty --join--> PreparingRebalance --all joined / rebalance timeout--> CompletingRebalance
    CompletingRebalance --leader's SyncGroup stored--> Stable --join, leave, expiry--> PreparingRebalance
    PreparingRebalance --everyone left--> Empty;   any --deleted / unloaded--> Dead
"""

from __future__ import annotations

from enum import Enum


class ClassicGroupState(Enum):
    """The names are Kafka's: DescribeGroups and ListGroups send them as strings."""

    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"

    def __str__(self) -> str:
        return self.value

    def to_lower_case_string(self) -> str:
        """What ListGroups' states filter is compared with."""
        return self.value.lower()


# The states each state may be entered from (Kafka's ClassicGroupState.validPreviousStates).
VALID_PREVIOUS_STATES: dict[ClassicGroupState, frozenset[ClassicGroupState]] = {
    ClassicGroupState.EMPTY: frozenset({ClassicGroupState.PREPARING_REBALANCE}),
    ClassicGroupState.PREPARING_REBALANCE: frozenset({
        ClassicGroupState.STABLE, ClassicGroupState.COMPLETING_REBALANCE, ClassicGroupState.EMPTY}),
    ClassicGroupState.COMPLETING_REBALANCE: frozenset({ClassicGroupState.PREPARING_REBALANCE}),
    ClassicGroupState.STABLE: frozenset({ClassicGroupState.COMPLETING_REBALANCE}),
    ClassicGroupState.DEAD: frozenset(ClassicGroupState),
}
