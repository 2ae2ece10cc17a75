"""LogCleanerManager: which compacted log to clean next, and how far each has been cleaned
(Kafka's kafka.log.LogCleanerManager).

A compacted log has two parts. The **clean** part, from the log start offset to the first dirty
offset, has been compacted: each key appears at most once in it. The **dirty** part, from there to
the first uncleanable offset, has been appended since. The first dirty offset of every log is kept
in the log dir's `cleaner-offset-checkpoint`, so a restart does not clean everything again.

The cleaner takes the "filthiest" log first: the one with the largest dirty ratio,
`dirty bytes / (clean bytes + dirty bytes)`, provided it is at least the topic's
min.cleanable.dirty.ratio. A log whose clean part holds tombstones whose delete horizon has passed
is also worth a visit, even with nothing dirty: cleaning it again is what finally removes them.

Nothing after the first uncleanable offset is ever cleaned: not the active segment (still being
written), not above the last stable offset (the high watermark, or the first offset of a transaction
still open: its outcome decides what may be kept), not segments younger than min.compaction.lag.ms.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from kafka.log.offset_checkpoint_file import (
    CLEANER_OFFSET_CHECKPOINT_FILE,
    CorruptCheckpointError,
    OffsetCheckpointFile,
)
from kafka.log.unified_log import UnifiedLog
from kafka.utils.time import Time

log = structlog.get_logger("kafka.log.LogCleanerManager")


@dataclass(frozen=True)
class LogToClean:
    """A log chosen for cleaning and its two boundaries (Kafka's LogToClean)."""

    log: UnifiedLog
    first_dirty_offset: int
    first_uncleanable_offset: int
    clean_bytes: int
    dirty_bytes: int

    @property
    def cleanable_ratio(self) -> float:
        total = self.clean_bytes + self.dirty_bytes
        return self.dirty_bytes / total if total else 0.0


class LogCleanerManager:
    def __init__(self, log_dirs: list[str], logs: Callable[[], list[UnifiedLog]], time: Time) -> None:
        self.log_dirs = log_dirs
        self.logs = logs
        self.time = time
        self._lock = threading.Lock()
        self._in_progress: set[tuple[str, int]] = set()
        # When the earliest tombstone kept by the last cleaning may go (KIP-534's delete horizon).
        self._delete_horizons: dict[tuple[str, int], int] = {}
        self._checkpoints = {log_dir: OffsetCheckpointFile(os.path.join(log_dir,
                                                                        CLEANER_OFFSET_CHECKPOINT_FILE))
                             for log_dir in log_dirs}
        self._first_dirty: dict[tuple[str, int], int] = {}
        for checkpoint in self._checkpoints.values():
            try:
                self._first_dirty.update(checkpoint.read())
            except CorruptCheckpointError as error:
                log.warning("ignoring a corrupt cleaner checkpoint: logs are cleaned from their start",
                            error=str(error))

    # ------------------------------------------------------------------------------ choosing

    def cleanable_offsets(self, unified_log: UnifiedLog) -> LogToClean:
        """The first dirty and first uncleanable offsets of a log, and the bytes on either side."""
        key = (unified_log.topic, unified_log.partition)
        first_dirty = max(self._first_dirty.get(key, 0), unified_log.log_start_offset)
        segments = unified_log.segments
        min_lag = unified_log.config.min_compaction_lag_ms
        now = self.time.milliseconds()
        last_stable_offset = unified_log.last_stable_offset  # Kafka's firstUncleanableDirtyOffset bound
        first_uncleanable = segments[-1].base_offset  # never the active segment
        for index, segment in enumerate(segments[:-1]):
            next_base = segments[index + 1].base_offset
            too_young = min_lag > 0 and now - segment.largest_timestamp < min_lag
            if next_base > last_stable_offset or too_young:
                first_uncleanable = segment.base_offset
                break
        first_dirty = min(first_dirty, first_uncleanable)
        clean_bytes = dirty_bytes = 0
        for segment in segments:
            if segment.base_offset >= first_uncleanable:
                break
            if segment.base_offset >= first_dirty:
                dirty_bytes += segment.size
            else:
                clean_bytes += segment.size
        return LogToClean(unified_log, first_dirty, first_uncleanable, clean_bytes, dirty_bytes)

    def grab_filthiest_compacted_log(self, force: bool = False) -> LogToClean | None:
        """The compacted log most in need of cleaning, marked in progress (None if none needs it).

        `force` ignores min.cleanable.dirty.ratio (any dirty byte will do)."""
        now = self.time.milliseconds()
        with self._lock:
            candidates = []
            for unified_log in self.logs():
                key = (unified_log.topic, unified_log.partition)
                if not unified_log.config.compact or key in self._in_progress:
                    continue
                to_clean = self.cleanable_offsets(unified_log)
                horizon_passed = now >= self._delete_horizons.get(key, now + 1)
                ratio_reached = to_clean.dirty_bytes > 0 and (
                    force or to_clean.cleanable_ratio >= unified_log.config.min_cleanable_dirty_ratio)
                if ratio_reached or horizon_passed:
                    candidates.append(to_clean)
            if not candidates:
                return None
            filthiest = max(candidates, key=lambda candidate: candidate.cleanable_ratio)
            self._in_progress.add((filthiest.log.topic, filthiest.log.partition))
            return filthiest

    # ------------------------------------------------------------------------------ finishing

    def done_cleaning(self, unified_log: UnifiedLog, first_dirty_offset: int | None,
                      earliest_delete_horizon: int | None) -> None:
        """Release the log; record its new first dirty offset (None: the cleaning was abandoned)."""
        key = (unified_log.topic, unified_log.partition)
        with self._lock:
            self._in_progress.discard(key)
            if first_dirty_offset is None:
                return
            self._first_dirty[key] = first_dirty_offset
            if earliest_delete_horizon is None:
                self._delete_horizons.pop(key, None)
            else:
                self._delete_horizons[key] = earliest_delete_horizon
        self.checkpoint()

    def checkpoint(self) -> None:
        """Write each log dir's cleaner-offset-checkpoint, for the logs that still exist."""
        with self._lock:
            live = {(lg.topic, lg.partition): os.path.dirname(lg.dir) for lg in self.logs()}
            for log_dir, checkpoint in self._checkpoints.items():
                checkpoint.write({key: offset for key, offset in self._first_dirty.items()
                                  if live.get(key) == log_dir})

    def first_dirty_offset(self, unified_log: UnifiedLog) -> int:
        return self.cleanable_offsets(unified_log).first_dirty_offset
