"""LeaderEpochFileCache: which leader epoch wrote which offsets of a partition, kept in the
partition's `leader-epoch-checkpoint` file (Kafka's storage.internals.epoch.LeaderEpochFileCache
and LeaderEpochCheckpointFile).

Seed 004, the write path: a leader stamps every batch it appends with its leader epoch. KIP-101
turns that into a small map, epoch -> the first offset written in that epoch:

    0                  <- format version
    3                  <- number of entries
    0 0                <- epoch 0 started at offset 0
    2 1500             <- epoch 1 never wrote anything; epoch 2 started at 1500
    5 1730

A follower that becomes follower asks its new leader "where does my latest epoch end in your log?"
(OffsetsForLeaderEpoch). The leader answers from this map with `end_offset_for`: the start of the
next epoch it knows, or its log end offset for its own epoch. The follower truncates what lies
beyond that answer: the unreplicated tail a crashed leader wrote and nobody else has (KIP-101,
KIP-279), instead of trusting its high watermark, which may be stale.

The file is rewritten (atomically: temp file, fsync, rename) whenever the map changes: once per
new epoch on a leader, when a follower copies a batch of a new epoch, and on truncation.
"""

from __future__ import annotations

import os
import threading
from bisect import bisect_right
from typing import NamedTuple

import structlog

from kafka.log.offset_checkpoint_file import CorruptCheckpointError, write_atomically

log = structlog.get_logger("kafka.log.LeaderEpochFileCache")

LEADER_EPOCH_CHECKPOINT_FILE = "leader-epoch-checkpoint"
CURRENT_VERSION = 0
UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1


class EpochEntry(NamedTuple):
    epoch: int
    start_offset: int


class LeaderEpochCheckpointFile:
    """The `leader-epoch-checkpoint` text file of one partition directory."""

    def __init__(self, partition_dir: str) -> None:
        self.path = os.path.join(partition_dir, LEADER_EPOCH_CHECKPOINT_FILE)

    def exists(self) -> bool:
        return os.path.exists(self.path)

    def write(self, entries: list[EpochEntry]) -> None:
        lines = [str(CURRENT_VERSION), str(len(entries))] + [f"{e.epoch} {e.start_offset}" for e in entries]
        write_atomically(self.path, "\n".join(lines) + "\n")

    def read(self) -> list[EpochEntry]:
        try:
            with open(self.path, encoding="utf-8") as file:
                lines = file.read().splitlines()
        except FileNotFoundError:
            return []
        try:
            if int(lines[0]) != CURRENT_VERSION:
                raise CorruptCheckpointError(f"{self.path}: unknown version {lines[0]}")
            count = int(lines[1])
            entries = [EpochEntry(*map(int, line.split())) for line in lines[2:2 + count]]
        except (IndexError, ValueError, TypeError) as e:
            raise CorruptCheckpointError(f"{self.path}: {e}") from e
        if len(entries) != count:
            raise CorruptCheckpointError(f"{self.path}: expected {count} entries, found {len(entries)}")
        return entries


class LeaderEpochFileCache:
    def __init__(self, name: str, checkpoint: LeaderEpochCheckpointFile | None,
                 entries: list[EpochEntry] | None = None) -> None:
        self.name = name  # the partition, for log lines
        self.checkpoint = checkpoint  # None: in memory only (tests)
        self._entries: list[EpochEntry] = list(entries or [])
        self._lock = threading.Lock()

    @classmethod
    def load(cls, name: str, partition_dir: str) -> LeaderEpochFileCache:
        """The cache as the checkpoint left it; a damaged file is logged and treated as missing
        (the caller rebuilds the map from the batches' epochs)."""
        checkpoint = LeaderEpochCheckpointFile(partition_dir)
        try:
            entries = checkpoint.read()
        except CorruptCheckpointError as e:
            log.warning("ignoring a damaged leader-epoch-checkpoint; rebuilding it from the log", log=name,
                        error=str(e))
            os.remove(checkpoint.path)
            entries = []
        return cls(name, checkpoint, entries)

    # ------------------------------------------------------------------ reading
    def entries(self) -> list[EpochEntry]:
        with self._lock:
            return list(self._entries)

    @property
    def latest_epoch(self) -> int:
        with self._lock:
            return self._entries[-1].epoch if self._entries else UNDEFINED_EPOCH

    def epoch_for_offset(self, offset: int) -> int | None:
        """The epoch that wrote `offset` (Kafka's epochForOffset): the last one starting at or before it,
        or None if the first known epoch starts after it. A remote read finds its segment by this."""
        with self._lock:
            starts = [e.start_offset for e in self._entries]
            index = bisect_right(starts, offset) - 1
            return self._entries[index].epoch if index >= 0 else None

    def next_epoch(self, epoch: int) -> int | None:
        """The first known epoch after `epoch`, or None (Kafka's nextEpoch)."""
        with self._lock:
            return next((e.epoch for e in self._entries if e.epoch > epoch), None)

    def end_offset_for(self, requested_epoch: int, log_end_offset: int) -> EpochEntry:
        """Kafka's endOffsetFor: (the largest epoch <= requested_epoch, where it ends).

        An epoch ends where the next known epoch starts; the latest epoch ends at the log end.
        An epoch newer than any known, or UNDEFINED, gets (UNDEFINED, UNDEFINED): the asker keeps
        its log. An epoch older than any known ends where the first known one starts."""
        with self._lock:
            if requested_epoch == UNDEFINED_EPOCH or not self._entries:
                return EpochEntry(UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
            if requested_epoch == self._entries[-1].epoch:
                return EpochEntry(requested_epoch, log_end_offset)
            epochs = [e.epoch for e in self._entries]
            higher = bisect_right(epochs, requested_epoch)  # the first entry with a larger epoch
            if higher == len(self._entries):
                return EpochEntry(UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
            floor_epoch = self._entries[higher - 1].epoch if higher > 0 else requested_epoch
            return EpochEntry(floor_epoch, self._entries[higher].start_offset)

    # ------------------------------------------------------------------ changing
    def assign(self, epoch: int, start_offset: int) -> None:
        """Record that `epoch` starts at `start_offset` (a new leadership, or a batch of a new epoch
        copied by a follower). Entries it contradicts (a later epoch, or one starting at or after
        it) are dropped: they came from a log tail that was truncated."""
        if epoch < 0:
            return
        with self._lock:
            latest = self._entries[-1] if self._entries else None
            if latest is not None and latest.epoch == epoch and latest.start_offset <= start_offset:
                return  # the common case: another batch of the current epoch
            kept = [e for e in self._entries if e.epoch < epoch and e.start_offset < start_offset]
            if len(kept) != len(self._entries):
                dropped = self._entries[len(kept):]
                if dropped and not (len(dropped) == 1 and dropped[0].epoch == epoch):
                    log.warning("leader epoch cache entries replaced", log=self.name, dropped=dropped,
                                epoch=epoch, start_offset=start_offset)
            self._entries = [*kept, EpochEntry(epoch, start_offset)]
            self._flush()

    def truncate_from_end(self, end_offset: int) -> None:
        """The log was truncated to end_offset: forget the epochs that started at or after it."""
        with self._lock:
            kept = [e for e in self._entries if e.start_offset < end_offset]
            if len(kept) != len(self._entries):
                self._entries = kept
                self._flush()

    def truncate_from_start(self, start_offset: int) -> None:
        """The log start offset moved to start_offset: the epoch holding it now starts there."""
        with self._lock:
            below = [e for e in self._entries if e.start_offset <= start_offset]
            if not below or (len(below) == 1 and below[0].start_offset == start_offset):
                return
            self._entries = [EpochEntry(below[-1].epoch, start_offset),
                             *(e for e in self._entries if e.start_offset > start_offset)]
            self._flush()

    def clear(self) -> None:
        with self._lock:
            if self._entries:
                self._entries = []
                self._flush()

    def _flush(self) -> None:
        if self.checkpoint is None:
            return
        try:
            self.checkpoint.write(self._entries)
        except OSError as e:  # a full disk, or the partition being deleted under us
            log.error("cannot write leader-epoch-checkpoint; it will be rebuilt from the log on restart",
                      log=self.name, error=str(e))
            try:
                os.remove(self.checkpoint.path)  # a stale file would give wrong answers after a restart
            except OSError:
                pass
