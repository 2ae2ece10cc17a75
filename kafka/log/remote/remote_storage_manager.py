"""RemoteStorageManager: where tiered segments live (Kafka's
org.apache.kafka.server.log.remote.storage.RemoteStorageManager, KIP-405).

The broker copies a rolled segment with its indexes as one LogSegmentData; readers fetch a byte range of
the segment, or one of its indexes, as a stream. An implementation knows nothing of offsets or leaders:
RemoteLogMetadataManager remembers what was copied. Two implementations ship: LocalTieredStorage (a
directory, as Kafka's own tests use) and S3RemoteStorageManager (any S3-compatible server).

Every call may block on the store: the broker calls them only from its remote-log threads (the copier,
the expiration and the reader pools), never from a network or request handler thread.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import BinaryIO

from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentMetadata


class RemoteStorageException(Exception):
    """The store failed: the copy or read is retried by the next task run, or the fetch gets an error."""


class RemoteResourceNotFoundException(RemoteStorageException):
    """The segment or index asked for is not in the store (deleted, or never finished copying)."""


class IndexType(Enum):
    """The files stored beside a segment (Kafka's RemoteStorageManager.IndexType)."""

    OFFSET = "offset"
    TIMESTAMP = "timestamp"
    PRODUCER_SNAPSHOT = "producer_snapshot"
    TRANSACTION = "transaction"
    LEADER_EPOCH = "leader_epoch"


@dataclass(frozen=True)
class LogSegmentData:
    """A rolled segment's files, as the copier hands them over (Kafka's LogSegmentData). The leader-epoch
    index is the checkpoint's text for the epochs up to the segment's end, built in memory."""

    log_segment: Path
    offset_index: Path
    time_index: Path
    transaction_index: Path | None  # None when the segment has no aborted transactions
    producer_snapshot_index: Path
    leader_epoch_index: bytes


def fetch_end_position(metadata: RemoteLogSegmentMetadata, start_position: int,
                       end_position: int | None) -> int:
    """The last byte a fetch_log_segment reads (inclusive), its range checked with Kafka's messages: what
    every store checks before it reads (LocalTieredStorage's and RemoteLogSegmentFileset's checks)."""
    end = metadata.segment_size_in_bytes - 1 if end_position is None else end_position
    if start_position < 0:
        raise ValueError(f"Start position must be positive: {start_position}")
    if end < start_position:
        raise ValueError(f"End position cannot be less than start position: {start_position}, {end}")
    if end >= metadata.segment_size_in_bytes:
        raise ValueError(f"End position cannot be greater than segment size: {end}, "
                         f"{metadata.segment_size_in_bytes}")
    return end


class RemoteStorageManager(abc.ABC):
    """Copy, fetch and delete one segment's data in remote storage."""

    def configure(self, configs: dict[str, str]) -> None:  # noqa: B027  (optional, as in Kafka's Configurable)
        """Take the `remote.log.storage.manager.impl.prefix` configs (the prefix removed)."""

    @abc.abstractmethod
    def copy_log_segment_data(self, metadata: RemoteLogSegmentMetadata, data: LogSegmentData) -> bytes | None:
        """Store the segment and its indexes under metadata's id; return custom metadata or None.
        A failed copy may leave partial data: the caller deletes it by the same id."""

    @abc.abstractmethod
    def fetch_log_segment(self, metadata: RemoteLogSegmentMetadata, start_position: int,
                          end_position: int | None = None) -> BinaryIO:
        """The segment's bytes from start_position to end_position (inclusive; None: to the end)."""

    @abc.abstractmethod
    def fetch_index(self, metadata: RemoteLogSegmentMetadata, index_type: IndexType) -> BinaryIO:
        """One of the segment's indexes. RemoteResourceNotFoundException for a TRANSACTION index that was
        not stored (the segment had no aborted transactions)."""

    @abc.abstractmethod
    def delete_log_segment_data(self, metadata: RemoteLogSegmentMetadata) -> None:
        """Delete the segment and its indexes; deleting what is not there is not an error."""

    def close(self) -> None:  # noqa: B027
        """Release connections and threads."""
