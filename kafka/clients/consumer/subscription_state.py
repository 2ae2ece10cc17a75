"""SubscriptionState: which partitions this consumer reads, and where it is in each
(Kafka's consumer.internals.SubscriptionState).

A consumer either ``assign``s partitions itself or ``subscribe``s to topics and lets its group
hand partitions out. Either way, each assigned partition has a *position* -- the offset of the
next record ``poll()`` returns -- which starts unknown and is filled from the group's committed
offset or, failing that, by ``auto.offset.reset`` (earliest or latest).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from kafka.utils.topic_partition import TopicPartition


@dataclass
class TopicPartitionState:
    position: int | None = None
    paused: bool = False
    reset_strategy: str | None = None  # "earliest" / "latest" while a reset is pending
    high_watermark: int = -1


@dataclass(frozen=True)
class OffsetAndMetadata:
    offset: int
    metadata: str = ""
    leader_epoch: int = -1


class SubscriptionState:
    def __init__(self, default_reset_strategy: str = "latest") -> None:
        self.default_reset_strategy = default_reset_strategy
        self.subscription: set[str] = set()
        self.user_assigned = False
        self._assignment: dict[TopicPartition, TopicPartitionState] = {}
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ what we read
    def assign_from_user(self, partitions: list[TopicPartition]) -> None:
        with self._lock:
            if self.subscription:
                raise RuntimeError("subscribe() and assign() cannot be mixed: call unsubscribe() first")
            self.user_assigned = True
            self._set_assignment(partitions)

    def subscribe(self, topics: list[str]) -> bool:
        """Returns True if the subscription changed (the group must rebalance)."""
        with self._lock:
            if self.user_assigned:
                raise RuntimeError("subscribe() and assign() cannot be mixed: call unsubscribe() first")
            changed = set(topics) != self.subscription
            self.subscription = set(topics)
            return changed

    def assign_from_subscribed(self, partitions: list[TopicPartition]) -> None:
        """The group's assignment arrived (SyncGroup): keep positions of partitions we keep."""
        with self._lock:
            self._set_assignment(partitions)

    def _set_assignment(self, partitions: list[TopicPartition]) -> None:
        self._assignment = {tp: self._assignment.get(tp) or TopicPartitionState() for tp in partitions}

    def unsubscribe(self) -> None:
        with self._lock:
            self.subscription = set()
            self.user_assigned = False
            self._assignment = {}

    def assigned_partitions(self) -> set[TopicPartition]:
        with self._lock:
            return set(self._assignment)

    def is_assigned(self, tp: TopicPartition) -> bool:
        return tp in self._assignment

    # ------------------------------------------------------------------ where we are
    def _state(self, tp: TopicPartition) -> TopicPartitionState:
        state = self._assignment.get(tp)
        if state is None:
            raise KeyError(f"{tp} is not assigned to this consumer")
        return state

    def seek(self, tp: TopicPartition, offset: int) -> None:
        with self._lock:
            state = self._state(tp)
            state.position, state.reset_strategy = offset, None

    def position(self, tp: TopicPartition) -> int | None:
        with self._lock:
            return self._state(tp).position

    def maybe_advance(self, tp: TopicPartition, expected: int, new_position: int) -> bool:
        """Move the position only if nobody seeked meanwhile (records already fetched are dropped)."""
        with self._lock:
            state = self._assignment.get(tp)
            if state is None or state.position != expected:
                return False
            state.position = new_position
            return True

    def request_offset_reset(self, tp: TopicPartition, strategy: str | None = None) -> None:
        with self._lock:
            state = self._state(tp)
            state.position, state.reset_strategy = None, strategy or self.default_reset_strategy

    def partitions_needing_reset(self) -> dict[TopicPartition, str]:
        with self._lock:
            return {tp: s.reset_strategy for tp, s in self._assignment.items() if s.reset_strategy}

    def missing_fetch_positions(self) -> list[TopicPartition]:
        with self._lock:
            return [tp for tp, s in self._assignment.items() if s.position is None and not s.reset_strategy]

    def has_all_fetch_positions(self) -> bool:
        with self._lock:
            return all(s.position is not None for s in self._assignment.values())

    def update_high_watermark(self, tp: TopicPartition, hw: int) -> None:
        with self._lock:
            if tp in self._assignment:
                self._assignment[tp].high_watermark = hw

    def pause(self, tp: TopicPartition) -> None:
        with self._lock:
            self._state(tp).paused = True

    def resume(self, tp: TopicPartition) -> None:
        with self._lock:
            self._state(tp).paused = False

    def paused_partitions(self) -> set[TopicPartition]:
        with self._lock:
            return {tp for tp, s in self._assignment.items() if s.paused}

    def fetchable_partitions(self) -> list[TopicPartition]:
        with self._lock:
            return [tp for tp, s in self._assignment.items() if s.position is not None and not s.paused]

    def all_consumed(self) -> dict[TopicPartition, OffsetAndMetadata]:
        """What auto-commit and ``commit()`` without arguments commit: every known position."""
        with self._lock:
            return {tp: OffsetAndMetadata(s.position) for tp, s in self._assignment.items()
                    if s.position is not None}
