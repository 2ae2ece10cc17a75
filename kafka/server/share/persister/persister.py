"""Persister: where a SharePartition keeps its state (Kafka's
org.apache.kafka.server.share.persister.Persister).

A share partition's in-flight records live in the leader's memory; what must survive a new leader is
written through this interface: the share-partition start offset, and the runs of offsets past it
that are not plain "available, never delivered" (PersisterStateBatch). Kafka's DefaultStatePersister
sends these to the share coordinator (ReadShareGroupState, WriteShareGroupState, ...), which keeps
them in __share_group_state; NoOpStatePersister keeps nothing.

Every call answers with a concurrent.futures.Future, completed on whatever thread the answer arrives
on, so a request thread never waits for the coordinator. Kafka batches many partitions per call; here
one call is one partition (an implementation may batch underneath).
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from concurrent.futures import Future
from dataclasses import dataclass, field

# One class for both ends (Kafka's org.apache.kafka.server.share.persister.PersisterStateBatch): a run of
# offsets in one state, 0 AVAILABLE, 2 ACKNOWLEDGED, 4 ARCHIVED (ACQUIRED, 1, is never persisted: a lock
# dies with its leader). The share coordinator, a floor below, owns it; the persister speaks it.
from kafka.coordinator.share.persister_state_batch import PersisterStateBatch


@dataclass(frozen=True)
class PartitionStateKey:
    """Whose state: a share group and one partition of a topic, by topic id (Kafka's
    GroupTopicPartitionData)."""

    group_id: str
    topic_id: uuid.UUID
    partition: int


@dataclass(frozen=True)
class ReadShareGroupStateResult:
    """What read_state answers (Kafka's PartitionAllData). start_offset -1: no state yet, the share
    partition starts where share.auto.offset.reset says."""

    error_code: int = 0
    error_message: str | None = None
    state_epoch: int = 0
    start_offset: int = -1
    state_batches: list[PersisterStateBatch] = field(default_factory=list)
    # KIP-1226 (Kafka 4.4's ReadShareGroupState v1): how many records past the start offset are
    # delivered for good (acknowledged or archived); -1 when the persister does not know.
    delivery_complete_count: int = -1


@dataclass(frozen=True)
class ReadShareGroupStateSummaryResult:
    """What read_summary answers (Kafka's PartitionStateSummaryData)."""

    error_code: int = 0
    error_message: str | None = None
    state_epoch: int = 0
    start_offset: int = -1
    leader_epoch: int = -1  # Kafka 4.4's ReadShareGroupStateSummary v1
    delivery_complete_count: int = -1  # KIP-1226


class Persister(ABC):
    @abstractmethod
    def initialize_state(self, key: PartitionStateKey, state_epoch: int, start_offset: int) -> Future[int]:
        """Start (or restart, with a new state epoch) a share partition's state at start_offset.
        -> error code."""

    @abstractmethod
    def read_state(self, key: PartitionStateKey, leader_epoch: int) -> Future[ReadShareGroupStateResult]:
        """The state a new leader resumes from; `leader_epoch` fences an older leader's later writes."""

    @abstractmethod
    def write_state(self, key: PartitionStateKey, state_epoch: int, leader_epoch: int, start_offset: int,
                    state_batches: list[PersisterStateBatch],
                    delivery_complete_count: int = -1) -> Future[int]:
        """Record a start offset and the batches whose state changed. -> error code (FENCED_LEADER_EPOCH,
        FENCED_STATE_EPOCH, NOT_COORDINATOR, ...). `delivery_complete_count`: KIP-1226, -1 when not kept."""

    @abstractmethod
    def delete_state(self, key: PartitionStateKey) -> Future[int]:
        """Forget the share partition's state (the group or its offsets were deleted). -> error code."""

    @abstractmethod
    def read_summary(self, key: PartitionStateKey,
                     leader_epoch: int) -> Future[ReadShareGroupStateSummaryResult]:
        """The start offset and epochs alone (what DescribeShareGroupOffsets shows)."""

    @abstractmethod
    def stop(self) -> None:
        """Stop sending; answer nothing more."""
