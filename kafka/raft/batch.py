"""Batch and LeaderAndEpoch: what the raft client hands its listeners (Kafka's raft.Batch, LeaderAndEpoch).

A Batch is one committed RecordBatch of __cluster_metadata: its offsets, the leader epoch that wrote
it, and its records' values (serialized metadata records; raft itself knows only bytes).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Batch:
    base_offset: int
    last_offset: int
    epoch: int
    append_timestamp: int
    size_in_bytes: int
    records: list[bytes] = field(default_factory=list)


@dataclass(frozen=True)
class LeaderAndEpoch:
    leader_id: int | None
    epoch: int


class NotLeaderError(Exception):
    """schedule_append on a node that is not the leader of that epoch (Kafka's NotLeaderException)."""


@dataclass(frozen=True)
class SnapshotReader:
    """A snapshot handed to a listener (Kafka's SnapshotReader): where it ends, and its batches."""
    snapshot_id: object  # OffsetAndEpoch: the snapshot holds everything below snapshot_id.offset
    last_contained_log_timestamp: int
    batches: list[Batch] = field(default_factory=list)

    def __iter__(self):
        return iter(self.batches)
