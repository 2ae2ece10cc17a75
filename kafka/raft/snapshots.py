"""Snapshot files of the metadata log (Kafka's org.apache.kafka.snapshot: Snapshots, FileRawSnapshotWriter,
FileRawSnapshotReader; KIP-630).

A snapshot is the whole metadata image at one offset, written as records, so that a restart (or a
follower far behind) need not replay the log from its first record. It lives beside the segments
in __cluster_metadata-0, named by the offset it ends at (exclusive) and the epoch of that offset:

    00000000000000001234-0000000007.checkpoint

It is written as `.checkpoint.part` and renamed on freeze, after an fsync, so a crash never leaves
half a snapshot under the real name. Its content is RecordBatch v2 batches whose record values are
serialized metadata records, exactly like the log's. Once a snapshot exists, the log before it can
go: the log start offset moves up to the snapshot.

KIP-853: `kafka-storage format --standalone | --initial-controllers` writes the bootstrap snapshot,
00000000000000000000-0000000000.checkpoint, holding only kraft.version 1 and the first VotersRecord
(write_bootstrap_snapshot): the voter set a dynamic quorum starts from.
"""

from __future__ import annotations

import os
import re

from kafka.protocol.kraft_control_records import (
    KRAFT_VERSION,
    KRAFT_VOTERS,
    control_batch,
    control_record,
    kraft_version_value,
    voters_value,
)
from kafka.raft.replicated_log import OffsetAndEpoch

BOOTSTRAP_SNAPSHOT_ID = OffsetAndEpoch(0, 0)  # Kafka's Snapshots.BOOTSTRAP_SNAPSHOT_ID
SUFFIX = ".checkpoint"
PARTIAL_SUFFIX = ".checkpoint.part"
_NAME = re.compile(r"^(\d{20})-(\d{10})\.checkpoint$")


def snapshot_file_name(snapshot_id: OffsetAndEpoch) -> str:
    return f"{snapshot_id.offset:020d}-{snapshot_id.epoch:010d}{SUFFIX}"


def parse_snapshot_file_name(name: str) -> OffsetAndEpoch | None:
    match = _NAME.match(name)
    return OffsetAndEpoch(int(match[1]), int(match[2])) if match else None


def list_snapshots(directory: str) -> list[OffsetAndEpoch]:
    """The frozen snapshots in a partition directory, oldest first; partial ones are removed."""
    found = []
    for name in os.listdir(directory):
        if name.endswith(PARTIAL_SUFFIX):
            os.unlink(os.path.join(directory, name))  # a crash while writing it: never frozen
        elif (snapshot_id := parse_snapshot_file_name(name)) is not None:
            found.append(snapshot_id)
    return sorted(found)


class FileRawSnapshotWriter:
    def __init__(self, directory: str, snapshot_id: OffsetAndEpoch) -> None:
        self.snapshot_id = snapshot_id
        self.path = os.path.join(directory, snapshot_file_name(snapshot_id))
        self._file = open(self.path.replace(SUFFIX, PARTIAL_SUFFIX), "wb")
        self._size = 0

    def size_in_bytes(self) -> int:
        return self._size

    def append(self, data: bytes) -> None:
        self._file.write(data)
        self._size += len(data)

    def freeze(self) -> None:
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        os.replace(self._file.name, self.path)

    def close(self) -> None:
        if not self._file.closed:  # never frozen: the partial file goes
            self._file.close()
            os.unlink(self._file.name)


class FileRawSnapshotReader:
    def __init__(self, directory: str, snapshot_id: OffsetAndEpoch) -> None:
        self.snapshot_id = snapshot_id
        self.path = os.path.join(directory, snapshot_file_name(snapshot_id))

    def size_in_bytes(self) -> int:
        return os.path.getsize(self.path)

    def read(self, position: int, max_bytes: int) -> bytes:
        with open(self.path, "rb") as f:
            f.seek(position)
            return f.read(max_bytes)

    def records(self) -> bytes:
        with open(self.path, "rb") as f:
            return f.read()


def bootstrap_snapshot(voters_record: list[dict], timestamp: int, kraft_version: int = 1) -> bytes:
    """The bootstrap snapshot's content: one control batch with a KRaftVersionRecord and a VotersRecord."""
    return control_batch(0, timestamp, -1, [control_record(KRAFT_VERSION, kraft_version_value(kraft_version)),
                                            control_record(KRAFT_VOTERS, voters_value(voters_record))])


def write_bootstrap_snapshot(partition_directory: str, voters_record: list[dict], timestamp: int) -> str:
    """Write the bootstrap snapshot of a dynamic quorum into __cluster_metadata-0 (created if need be)."""
    os.makedirs(partition_directory, exist_ok=True)
    writer = FileRawSnapshotWriter(partition_directory, BOOTSTRAP_SNAPSHOT_ID)
    writer.append(bootstrap_snapshot(voters_record, timestamp))
    writer.freeze()
    return writer.path
