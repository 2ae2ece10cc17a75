"""OffsetCheckpointFile: a per-log-dir file of `topic partition offset` lines (Kafka's
OffsetCheckpointFile over server.common.CheckpointFile), and the clean-shutdown marker
(Kafka's CleanShutdownFileHandler).

Every log dir holds four of them, in the same text format, so a learner can `cat` them:

    recovery-point-offset-checkpoint   offsets below this are fsynced: recovery starts here
    log-start-offset-checkpoint        the first readable offset (retention, DeleteRecords moved it)
    replication-offset-checkpoint      the high watermark of each partition
    cleaner-offset-checkpoint          where compaction stopped: the first "dirty" offset

    0                     <- format version
    2                     <- number of entries
    orders 0 15230        <- topic, partition, offset
    orders 1 14977

A checkpoint is written to `<name>.tmp`, fsynced, and renamed over the old file (then the directory is
fsynced), so a crash leaves the old checkpoint or the new one, never half of one. A file that does not
parse raises CorruptCheckpointError naming the file and line; the caller falls back to recovery.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

RECOVERY_POINT_CHECKPOINT_FILE = "recovery-point-offset-checkpoint"
LOG_START_OFFSET_CHECKPOINT_FILE = "log-start-offset-checkpoint"
REPLICATION_OFFSET_CHECKPOINT_FILE = "replication-offset-checkpoint"
CLEANER_OFFSET_CHECKPOINT_FILE = "cleaner-offset-checkpoint"
CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown"
CURRENT_VERSION = 0

TopicPartitionKey = tuple[str, int]


class CorruptCheckpointError(Exception):
    """A checkpoint file that is not in the expected format."""


class OffsetCheckpointFile:
    """One checkpoint file: read() -> {(topic, partition): offset}, write(offsets)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def write(self, offsets: Mapping[TopicPartitionKey, int]) -> None:
        lines = [str(CURRENT_VERSION), str(len(offsets))]
        lines += [f"{topic} {partition} {offset}" for (topic, partition), offset in sorted(offsets.items())]
        write_atomically(self.path, "\n".join(lines) + "\n")

    def read(self) -> dict[TopicPartitionKey, int]:
        """The entries, or {} if the file does not exist (a new log dir)."""
        try:
            with open(self.path, encoding="utf-8") as file:
                lines = file.read().splitlines()
        except FileNotFoundError:
            return {}
        if len(lines) < 2:
            raise CorruptCheckpointError(f"{self.path}: expected a version and "
                                         f"a count, found {len(lines)} lines")
        if lines[0].strip() != str(CURRENT_VERSION):
            raise CorruptCheckpointError(f"{self.path}: unrecognised version {lines[0]!r}")
        try:
            expected = int(lines[1])
        except ValueError:
            raise CorruptCheckpointError(f"{self.path}: line 2 is not an entry count: {lines[1]!r}") from None
        offsets = {}
        for number, line in enumerate(lines[2:], start=3):
            parts = line.split()
            if len(parts) != 3 or not parts[1].isdigit() or not parts[2].lstrip("-").isdigit():
                raise CorruptCheckpointError(f"{self.path}: line {number} is not "
                                             f"'topic partition offset': {line!r}")
            offsets[(parts[0], int(parts[1]))] = int(parts[2])
        if len(offsets) != expected:
            raise CorruptCheckpointError(f"{self.path}: expected {expected} entries, found {len(offsets)}")
        return offsets


class CleanShutdownFile:
    """`.kafka_cleanshutdown`: present only while the log dir is known to be fully flushed.

    Written last on a clean shutdown, deleted first at start-up: if it is missing at start-up, the
    broker stopped uncleanly and every segment after the recovery point must be checked."""

    def __init__(self, log_dir: str) -> None:
        self.path = os.path.join(log_dir, CLEAN_SHUTDOWN_FILE)

    def exists(self) -> bool:
        return os.path.exists(self.path)

    def read_broker_epoch(self) -> int:
        """The broker epoch the last clean shutdown wrote (KIP-966), -1 if there was none."""
        try:
            with open(self.path, encoding="utf-8") as file:
                return int(json.load(file).get("brokerEpoch", -1))
        except (OSError, ValueError, AttributeError):
            return -1

    def write(self, broker_epoch: int = -1) -> None:
        write_atomically(self.path, json.dumps({"version": 0, "brokerEpoch": broker_epoch}))

    def delete(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        fsync_dir(os.path.dirname(self.path))


def write_atomically(path: str, text: str) -> None:
    """Write to `path.tmp`, fsync it, rename it over `path`, fsync the directory."""
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as file:
        file.write(text)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
    fsync_dir(os.path.dirname(path))


def fsync_dir(directory: str) -> None:
    """Make a rename or unlink in `directory` durable (Kafka's Utils.flushDir)."""
    fd = os.open(directory or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
