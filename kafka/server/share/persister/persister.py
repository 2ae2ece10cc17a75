"""Persister: how a share partition's state is stored and read back (Kafka's
org.apache.kafka.server.share.persister.Persister and the result types around it).

NOTE: this file is the interface of SHARE_GROUPS.md, written here so the DefaultStatePersister can be
built and tested before the share-partition work lands; that work owns this file (keep its version).
The optional fields Kafka 4.4 adds (KIP-1226's delivery complete count, the summary's leader epoch)
are keyword fields with defaults here.

Kafka batches several partitions per call; here one call is one partition. Every method returns a
concurrent.futures.Future and never blocks its caller.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from concurrent.futures import Future
from dataclasses import dataclass, field


@dataclass(frozen=True)
class PersisterStateBatch:
    """A run of offsets in one state (RecordState id: 0 AVAILABLE, 2 ACKNOWLEDGED, 4 ARCHIVED)."""
    first_offset: int
    last_offset: int
    delivery_state: int
    delivery_count: int


@dataclass(frozen=True)
class PartitionStateKey:
    group_id: str
    topic_id: uuid.UUID
    partition: int


@dataclass(frozen=True)
class ReadShareGroupStateResult:
    error_code: int
    error_message: str | None
    state_epoch: int
    start_offset: int
    state_batches: list[PersisterStateBatch] = field(default_factory=list)


@dataclass(frozen=True)
class ReadShareGroupStateSummaryResult:
    error_code: int
    error_message: str | None
    state_epoch: int
    start_offset: int
    leader_epoch: int = -1                # Kafka 4.4's PartitionStateSummaryData
    delivery_complete_count: int = -1     # KIP-1226


class Persister(ABC):
    @abstractmethod
    def initialize_state(self, key: PartitionStateKey, state_epoch: int, start_offset: int) -> Future[int]:
        """-> error code."""

    @abstractmethod
    def read_state(self, key: PartitionStateKey, leader_epoch: int) -> Future[ReadShareGroupStateResult]: ...

    @abstractmethod
    def write_state(self, key: PartitionStateKey, state_epoch: int, leader_epoch: int, start_offset: int,
                    state_batches: list[PersisterStateBatch]) -> Future[int]:
        """-> error code."""

    @abstractmethod
    def delete_state(self, key: PartitionStateKey) -> Future[int]: ...

    @abstractmethod
    def read_summary(self, key: PartitionStateKey, leader_epoch: int) -> Future[ReadShareGroupStateSummaryResult]: ...

    @abstractmethod
    def stop(self) -> None: ...
