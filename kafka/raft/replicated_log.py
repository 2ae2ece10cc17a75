"""ReplicatedLog: the log the raft core replicates (Kafka's org.apache.kafka.raft.ReplicatedLog).

The core asks only this of its storage, so the same core runs over KafkaMetadataLog (segment files,
our UnifiedLog) in a broker and over an in-memory log in the seeded simulation. Entries are whole
RecordBatch v2 batches whose partition leader epoch is the epoch of the leader that appended them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol


@dataclass(frozen=True, order=True)
class OffsetAndEpoch:
    offset: int
    epoch: int


@dataclass(frozen=True)
class LogAppendInfo:
    first_offset: int
    last_offset: int


@dataclass(frozen=True)
class LogFetchInfo:
    records: bytes  # whole batches, possibly none
    start_offset: int


@dataclass(frozen=True)
class ValidOffsetAndEpoch:
    """Whether a follower's (fetch offset, last fetched epoch) agrees with the leader's log
    (Kafka's ValidOffsetAndEpoch): VALID; DIVERGING with the end of that epoch on the leader; or
    SNAPSHOT with the snapshot to fetch, when the offset is below the leader's log start."""
    kind: Literal["VALID", "DIVERGING", "SNAPSHOT"]
    offset_and_epoch: OffsetAndEpoch


class ReplicatedLog(Protocol):
    def append_as_leader(self, records: bytes, epoch: int) -> LogAppendInfo: ...

    def append_as_follower(self, records: bytes, epoch: int) -> LogAppendInfo: ...

    def read(self, start_offset: int, max_bytes: int) -> LogFetchInfo: ...

    def end_offset(self) -> int: ...

    def start_offset(self) -> int: ...

    def last_fetched_epoch(self) -> int: ...

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch: ...

    def initialize_leader_epoch(self, epoch: int) -> None: ...

    def validate_offset_and_epoch(self, offset: int, epoch: int) -> ValidOffsetAndEpoch: ...

    def truncate_to(self, offset: int) -> None: ...

    def high_watermark(self) -> int: ...

    def update_high_watermark(self, offset: int) -> None: ...

    def flush(self, force_flush_active_segment: bool) -> None: ...

    def close(self) -> None: ...

    # snapshots (KIP-630)
    def latest_snapshot_id(self) -> OffsetAndEpoch | None: ...

    def create_new_snapshot(self, snapshot_id: OffsetAndEpoch): ...  # a writer: append(bytes), freeze()

    def read_snapshot(self, snapshot_id: OffsetAndEpoch): ...  # a reader: size_in_bytes(), read(), records()

    def on_snapshot_frozen(self, snapshot_id: OffsetAndEpoch) -> None: ...

    def delete_before_snapshot(self, snapshot_id: OffsetAndEpoch) -> bool: ...

    def truncate_to_latest_snapshot(self) -> bool: ...
