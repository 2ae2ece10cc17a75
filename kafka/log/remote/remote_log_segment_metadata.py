"""RemoteLogSegmentMetadata and its neighbours: what a broker knows about one segment in remote storage
(Kafka's org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata, RemoteLogSegmentId,
RemoteLogSegmentState, RemoteLogSegmentMetadataUpdate and RemotePartitionDeleteMetadata; KIP-405).

A segment's copy moves through four states, each one a record in `__remote_log_metadata`:

    COPY_SEGMENT_STARTED -> COPY_SEGMENT_FINISHED -> DELETE_SEGMENT_STARTED -> DELETE_SEGMENT_FINISHED

Only a COPY_SEGMENT_FINISHED segment may be read, and only once its copy is finished may the local
segment be deleted. A deleted topic's partition moves the same way through RemotePartitionDeleteState.
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass
from enum import Enum

from kafka.utils.topic_id_partition import TopicIdPartition


class RemoteLogSegmentState(Enum):
    COPY_SEGMENT_STARTED = 0
    COPY_SEGMENT_FINISHED = 1
    DELETE_SEGMENT_STARTED = 2
    DELETE_SEGMENT_FINISHED = 3

    def is_valid_transition(self, target: RemoteLogSegmentState) -> bool:
        """Kafka's RemoteLogSegmentState.isValidTransition: forwards only, a copy may be abandoned."""
        return target in _NEXT_SEGMENT_STATES[self]


_NEXT_SEGMENT_STATES = {
    RemoteLogSegmentState.COPY_SEGMENT_STARTED: {RemoteLogSegmentState.COPY_SEGMENT_FINISHED,
                                                 RemoteLogSegmentState.DELETE_SEGMENT_STARTED},
    RemoteLogSegmentState.COPY_SEGMENT_FINISHED: {RemoteLogSegmentState.DELETE_SEGMENT_STARTED},
    RemoteLogSegmentState.DELETE_SEGMENT_STARTED: {RemoteLogSegmentState.DELETE_SEGMENT_FINISHED},
    RemoteLogSegmentState.DELETE_SEGMENT_FINISHED: set(),
}


class RemotePartitionDeleteState(Enum):
    DELETE_PARTITION_MARKED = 0
    DELETE_PARTITION_STARTED = 1
    DELETE_PARTITION_FINISHED = 2


@dataclass(frozen=True)
class RemoteLogSegmentId:
    """A remote segment's identity: its partition and a fresh UUID, so a segment copied twice (after a
    leader change) is two remote segments, never one overwritten."""

    topic_id_partition: TopicIdPartition
    id: uuid.UUID

    @classmethod
    def generate_new(cls, topic_id_partition: TopicIdPartition) -> RemoteLogSegmentId:
        return cls(topic_id_partition, uuid.uuid4())

    def __str__(self) -> str:
        return f"{self.topic_id_partition}:{self.id}"


@dataclass(frozen=True)
class RemoteLogSegmentMetadata:
    """One remote segment: its offsets, size, the leader epochs its records were written in (epoch ->
    first offset of that epoch in the segment, as the leader-epoch checkpoint has them) and its state."""

    remote_log_segment_id: RemoteLogSegmentId
    start_offset: int
    end_offset: int  # inclusive: the last offset in the segment
    max_timestamp_ms: int
    broker_id: int  # the broker that wrote this state
    event_timestamp_ms: int
    segment_size_in_bytes: int
    segment_leader_epochs: dict[int, int]
    state: RemoteLogSegmentState = RemoteLogSegmentState.COPY_SEGMENT_STARTED
    custom_metadata: bytes | None = None
    txn_index_empty: bool = False

    def __post_init__(self) -> None:
        if self.start_offset < 0 or self.end_offset < self.start_offset:
            raise ValueError(f"bad offsets {self.start_offset}..{self.end_offset} "
                             f"for {self.remote_log_segment_id}")
        if not self.segment_leader_epochs:
            raise ValueError(f"segment_leader_epochs of {self.remote_log_segment_id} must not be empty")

    @property
    def topic_id_partition(self) -> TopicIdPartition:
        return self.remote_log_segment_id.topic_id_partition

    def create_with_update(self, update: RemoteLogSegmentMetadataUpdate) -> RemoteLogSegmentMetadata:
        """This metadata moved to the update's state (Kafka's createWithUpdates)."""
        if update.remote_log_segment_id != self.remote_log_segment_id:
            raise ValueError(f"update of {update.remote_log_segment_id} "
                             f"applied to {self.remote_log_segment_id}")
        return dataclasses.replace(self, state=update.state, broker_id=update.broker_id,
                                   event_timestamp_ms=update.event_timestamp_ms,
                                   custom_metadata=update.custom_metadata or self.custom_metadata)


@dataclass(frozen=True)
class RemoteLogSegmentMetadataUpdate:
    """A remote segment's move to a new state, written by the broker that made it."""

    remote_log_segment_id: RemoteLogSegmentId
    event_timestamp_ms: int
    custom_metadata: bytes | None
    state: RemoteLogSegmentState
    broker_id: int

    def __post_init__(self) -> None:
        if self.state is RemoteLogSegmentState.COPY_SEGMENT_STARTED:
            raise ValueError("an update cannot move a segment to COPY_SEGMENT_STARTED: "
                             "add its metadata instead")


@dataclass(frozen=True)
class RemotePartitionDeleteMetadata:
    """A partition of a deleted topic (or one whose remote data is deleted when tiering is disabled)."""

    topic_id_partition: TopicIdPartition
    state: RemotePartitionDeleteState
    event_timestamp_ms: int
    broker_id: int
