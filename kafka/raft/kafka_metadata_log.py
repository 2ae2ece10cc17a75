"""KafkaMetadataLog: the __cluster_metadata-0 partition the quorum replicates
(Kafka's kafka.raft.KafkaMetadataLog).

The metadata log is an ordinary commit log (seed 002's .log and .index files, our UnifiedLog, so
`kafka-dump-log` reads it and a torn tail is recovered like any other log's) with what Raft needs
on top:

    leader epochs   each batch carries the epoch of the leader that wrote it (the RecordBatch's
                    partition leader epoch). The epoch cache maps every epoch to its first offset,
                    which is how a leader answers "where does epoch E end in your log?" and tells a
                    follower its tail diverges (KIP-101's leader-epoch idea, KIP-595's Fetch).
                    The metadata log is small, so the cache is rebuilt from the batch headers when
                    the log is opened rather than kept in a leader-epoch-checkpoint file.
    high watermark  kept in memory only, as Kafka does for this log: on restart the quorum tells
                    each member again how far the log is committed.
"""

from __future__ import annotations

import bisect
import os

from kafka.log.append_origin import AppendOrigin
from kafka.log.log_config import LogConfig
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.record_batch import iter_batches
from kafka.raft.replicated_log import LogAppendInfo, LogFetchInfo, OffsetAndEpoch, ValidOffsetAndEpoch
from kafka.raft.snapshots import (
    FileRawSnapshotReader,
    FileRawSnapshotWriter,
    list_snapshots,
    snapshot_file_name,
)
from kafka.utils.time import Time

METADATA_TOPIC = "__cluster_metadata"
_SCAN_BYTES = 1 << 20


class KafkaMetadataLog:
    def __init__(self, directory: str, config: LogConfig, time: Time) -> None:
        os.makedirs(directory, exist_ok=True)
        self.log = UnifiedLog(directory, METADATA_TOPIC, 0, config, time, had_clean_shutdown=False)
        self._epochs: list[int] = []  # leader epochs in the log, ascending
        self._epoch_starts: list[int] = []  # the first offset of each
        self._high_watermark = 0
        self.directory = directory
        self._snapshots = list_snapshots(directory)
        self._rebuild_epoch_cache()
        # a snapshot newer than the log (fetched just before a crash)
        if not self.truncate_to_latest_snapshot():
            latest = self.latest_snapshot_id()
            if latest is not None and latest.offset > self.start_offset():
                # Everything below a snapshot was committed: start there, so a restart loads the
                # snapshot instead of replaying the records it replaces.
                self.update_high_watermark(latest.offset)
                self.log.maybe_increment_log_start_offset(latest.offset)
        # What a restart finds on disk is a lower bound, not the quorum's high watermark: that is known
        # only once the quorum has told this process (a leader's commit, a fetch response).
        self.high_watermark_known = False

    # ------------------------------------------------------------------ the epoch cache
    def _rebuild_epoch_cache(self) -> None:
        self._epochs, self._epoch_starts = [], []
        position = self.log.log_start_offset
        while position < self.log.log_end_offset:
            records = self.log.read(position, _SCAN_BYTES).records
            batches = list(iter_batches(records))
            if not batches:
                break
            for batch in batches:
                self._assign(batch.partition_leader_epoch, batch.base_offset)
                position = batch.next_offset

    def _assign(self, epoch: int, start_offset: int) -> None:
        if epoch < 0 or (self._epochs and epoch <= self._epochs[-1]):
            return
        self._epochs.append(epoch)
        self._epoch_starts.append(start_offset)

    def initialize_leader_epoch(self, epoch: int) -> None:
        self._assign(epoch, self.end_offset())

    def last_fetched_epoch(self) -> int:
        if self._epochs:
            return self._epochs[-1]
        latest = self.latest_snapshot_id()
        return latest.epoch if latest is not None else 0

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        """The end of `epoch` in this log: where the next epoch starts. Asked about an epoch this
        log never had, the answer is the largest epoch below it (Kafka's
        LeaderEpochFileCache.endOffsetFor)."""
        i = bisect.bisect_right(self._epochs, epoch) - 1
        if i < 0:
            latest = self.latest_snapshot_id()
            if latest is not None and latest.epoch <= epoch:  # the log starts where the snapshot ends
                return OffsetAndEpoch(self._epoch_starts[0] if self._epochs else self.end_offset(),
                                      latest.epoch)
            return OffsetAndEpoch(self.start_offset(), 0) if not self._epochs else OffsetAndEpoch(-1, -1)
        found = self._epochs[i]
        end = self._epoch_starts[i + 1] if i + 1 < len(self._epochs) else self.end_offset()
        return OffsetAndEpoch(end, found)

    def validate_offset_and_epoch(self, offset: int, epoch: int) -> ValidOffsetAndEpoch:
        """Does a follower's log, ending at `offset` with last epoch `epoch`, agree with ours?"""
        latest = self.latest_snapshot_id()
        if offset < self.start_offset() and latest is not None:
            return ValidOffsetAndEpoch("SNAPSHOT", latest)
        if offset == 0:
            return ValidOffsetAndEpoch("VALID", OffsetAndEpoch(offset, epoch))
        end = self.end_offset_for_epoch(epoch)
        if end.epoch != epoch or offset > end.offset:
            diverging = end if end.offset >= 0 else OffsetAndEpoch(self.start_offset(), 0)
            return ValidOffsetAndEpoch("DIVERGING", diverging)
        return ValidOffsetAndEpoch("VALID", OffsetAndEpoch(offset, epoch))

    # ------------------------------------------------------------------ appending and reading
    def append_as_leader(self, records: bytes, epoch: int) -> LogAppendInfo:
        # RAFT_LEADER: the leader's own control batches (LeaderChangeMessage) are not a client's.
        info = self.log.append_as_leader(records, leader_epoch=epoch, origin=AppendOrigin.RAFT_LEADER)
        self._assign(epoch, info.first_offset)
        return LogAppendInfo(info.first_offset, info.last_offset)

    def append_as_follower(self, records: bytes, epoch: int) -> LogAppendInfo:
        info = self.log.append_as_follower(records)
        for batch in iter_batches(records):
            self._assign(batch.partition_leader_epoch, batch.base_offset)
        return LogAppendInfo(info.first_offset, info.last_offset)

    def read(self, start_offset: int, max_bytes: int) -> LogFetchInfo:
        if start_offset >= self.end_offset():
            return LogFetchInfo(b"", start_offset)
        return LogFetchInfo(bytes(self.log.read(start_offset, max_bytes).records), start_offset)

    def truncate_to(self, offset: int) -> None:
        if offset < self._high_watermark:
            raise ValueError(f"truncating __cluster_metadata-0 to {offset}, below its high watermark "
                             f"{self._high_watermark}: that would lose committed metadata")
        self.log.truncate_to(offset)
        while self._epoch_starts and self._epoch_starts[-1] >= offset:  # epochs left with no entries
            self._epochs.pop()
            self._epoch_starts.pop()

    # ------------------------------------------------------------------ offsets
    def end_offset(self) -> int:
        return self.log.log_end_offset

    def start_offset(self) -> int:
        return self.log.log_start_offset

    def high_watermark(self) -> int:
        return self._high_watermark

    def update_high_watermark(self, offset: int) -> None:
        self._high_watermark = min(offset, self.end_offset())
        self.log.update_high_watermark(self._high_watermark)
        self.high_watermark_known = True

    def known_high_watermark(self) -> int | None:
        """The high watermark once the quorum has given one to this process; None before (a restarted
        node that has not heard from the leader yet: Kafka's raft client reports an empty one)."""
        return self._high_watermark if self.high_watermark_known else None

    def flush(self, force_flush_active_segment: bool = True) -> None:
        self.log.flush()

    def topic_partition(self) -> tuple[str, int]:
        return METADATA_TOPIC, 0

    # ------------------------------------------------------------------ snapshots (KIP-630)
    def latest_snapshot_id(self) -> OffsetAndEpoch | None:
        return self._snapshots[-1] if self._snapshots else None

    def create_new_snapshot(self, snapshot_id: OffsetAndEpoch) -> FileRawSnapshotWriter | None:
        """A writer for a snapshot of the committed log up to snapshot_id.offset; None if one exists."""
        if snapshot_id in self._snapshots or snapshot_id.offset > self._high_watermark:
            return None
        return FileRawSnapshotWriter(self.directory, snapshot_id)

    def store_snapshot(self, snapshot_id: OffsetAndEpoch) -> FileRawSnapshotWriter | None:
        """A writer for a snapshot fetched from the leader (FetchSnapshot)."""
        return None if snapshot_id in self._snapshots else FileRawSnapshotWriter(self.directory, snapshot_id)

    def read_snapshot(self, snapshot_id: OffsetAndEpoch) -> FileRawSnapshotReader | None:
        return FileRawSnapshotReader(self.directory, snapshot_id) if snapshot_id in self._snapshots else None

    def on_snapshot_frozen(self, snapshot_id: OffsetAndEpoch) -> None:
        self._snapshots = sorted(set(self._snapshots) | {snapshot_id})

    def delete_before_snapshot(self, snapshot_id: OffsetAndEpoch) -> bool:
        """The log before the snapshot, and older snapshots, are no longer needed."""
        if snapshot_id not in self._snapshots or snapshot_id.offset <= self.start_offset():
            return False
        self.log.maybe_increment_log_start_offset(min(snapshot_id.offset, self.log.high_watermark))
        self.log.delete_segments_below_log_start()
        for old in [s for s in self._snapshots if s < snapshot_id]:
            os.unlink(os.path.join(self.directory, snapshot_file_name(old)))
        self._snapshots = [s for s in self._snapshots if s >= snapshot_id]
        return True

    def truncate_to_latest_snapshot(self) -> bool:
        """A snapshot that ends past our log (a follower that fetched one): drop the whole log and go on
        from the snapshot's end (Kafka's truncateToLatestSnapshot)."""
        latest = self.latest_snapshot_id()
        if latest is None or latest.offset <= self.end_offset():
            return False
        self.log.truncate_fully_and_start_at(latest.offset)
        self._epochs, self._epoch_starts = [], []
        self._high_watermark = latest.offset
        return True

    def close(self) -> None:
        self.log.flush()
        self.log.close()
