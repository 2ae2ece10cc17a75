r"""RecordState: where one in-flight record is in its life (Kafka's
org.apache.kafka.server.share.fetch.RecordState).

    AVAILABLE --acquire--> ACQUIRED --accept--> ACKNOWLEDGED        (terminal)
        ^                    |  |----reject / last delivery---> ARCHIVED   (terminal)
        +---release / lock timeout---+  \                          ^
                                         +--(group has a DLQ)--> ARCHIVING --written to the DLQ topic--+

A record may only be acquired from AVAILABLE, and only an ACQUIRED record may be acknowledged,
released or archived by its member; ACKNOWLEDGED and ARCHIVED are final. ARCHIVING (KIP-1191, share.version
2) is where a rejected or over-delivered record of a group with a dead-letter queue waits while the
ShareGroupDLQManager writes it to that topic: not deliverable, not yet done with (the start offset stops
before it). The ids are what the persister stores.
"""

from __future__ import annotations

from enum import IntEnum


class InvalidStateTransitionError(Exception):
    """Kafka's IllegalStateException from validateTransition."""


class RecordState(IntEnum):
    AVAILABLE = 0
    ACQUIRED = 1
    ACKNOWLEDGED = 2
    ARCHIVING = 3
    ARCHIVED = 4

    def validate_transition(self, new_state: RecordState) -> RecordState:
        if self is new_state:
            raise InvalidStateTransitionError("the new state is the same as the current state")
        if self in (RecordState.ACKNOWLEDGED, RecordState.ARCHIVED):
            raise InvalidStateTransitionError("the state transition is invalid "
                                              f"from the current state: {self.name}")
        if self is RecordState.AVAILABLE and new_state is not RecordState.ACQUIRED:
            raise InvalidStateTransitionError("the state can only be transitioned to ACQUIRED from AVAILABLE")
        return new_state

    @property
    def is_terminal(self) -> bool:
        """Delivered for good: the share-partition start offset may move past it."""
        return self in (RecordState.ACKNOWLEDGED, RecordState.ARCHIVED)
