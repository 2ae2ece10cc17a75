"""ProducerStateManager: one partition's map from producer id to what it last appended, and the
`%020d.snapshot` files that let a restart rebuild it (Kafka's
org.apache.kafka.storage.internals.log.ProducerStateManager, KIP-98).

Seed 004, Write Path: a producer whose Produce Response got lost retries, and without idempotence
"duplicate data can be written". The leader looks every idempotent batch up here before it is given
offsets: a retry of one of the producer's last five batches is answered with the offsets it got the
first time, and nothing is written again.

The map is as good as the log it describes, so it must survive a crash (kill -9 included):

* `last_map_offset` is the offset the map has seen the log up to (the log end offset, normally).
* At every segment roll, and on a clean close, the whole map is written to `<offset>.snapshot`
  (temporary file, fsync, rename): the state of the producers after every offset below `<offset>`.
* On load, and after a truncation, the newest snapshot at or below the log end offset is read and
  the batches after it are replayed, headers only (`rebuild_producer_state` in log_loader.py). A
  corrupt snapshot is deleted and an older one (or the log start) used instead.

A producer's state goes when it has written nothing for producer.id.expiration.ms. Not when its
records leave the log (retention, DeleteRecords): since KIP-360 Kafka keeps the state until it
expires, so a producer whose data was deleted is still recognised, not refused with
UNKNOWN_PRODUCER_ID. Only the snapshots below the log start offset go (with their segments).

Transactions (KIP-98): the manager also keeps the partition's open transactions by first offset
(`ongoing_txns`), and the completed ones whose marker is not yet below the high watermark
(`unreplicated_txns`). The smallest first offset among them is the first unstable offset: the last
stable offset (LSO) read_committed consumers read up to is the smaller of it and the high watermark.
The snapshot stores each producer's open transaction (CurrentTxnFirstOffset), so loading one brings
the ongoing transactions back.

Every method is called under the UnifiedLog's lock; `producer_id_count` and `first_unstable_offset`
are read without it (a gauge, a fetch): both read a value the appender replaces whole.
"""

from __future__ import annotations

import os
import struct
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

import crc32c
import structlog

from kafka.log.append_origin import AppendOrigin
from kafka.log.completed_txn import CompletedTxn
from kafka.log.errors import CorruptSnapshotError
from kafka.log.producer_append_info import ProducerAppendInfo
from kafka.log.producer_state_entry import BatchMetadata, ProducerStateEntry
from kafka.log.txn_metadata import TxnMetadata
from kafka.protocol.record_batch import NO_PRODUCER_ID, RecordBatch
from kafka.utils.time import Time

if TYPE_CHECKING:
    from kafka.log.log_segment import LogSegment

log = structlog.get_logger("kafka.log.ProducerStateManager")

PRODUCER_SNAPSHOT_FILE_SUFFIX = ".snapshot"
SNAPSHOT_TEMP_SUFFIX = ".tmp"  # a snapshot being written; never read, removed at load

# Kafka's snapshot layout (version 1), big-endian: version int16 | crc uint32 | entry count int32 |
# entries. The CRC-32C covers everything after itself, the count included.
PRODUCER_SNAPSHOT_VERSION = 1
_HEADER = struct.Struct(">hIi")
_CRC_AT = 2
_PRODUCER_ENTRIES_AT = 6
# ProducerId int64, Epoch int16, LastSequence int32, LastOffset int64, OffsetDelta int32,
# Timestamp int64, CoordinatorEpoch int32, CurrentTxnFirstOffset int64 (-1: none)
_ENTRY = struct.Struct(">qhiqiqiq")


@dataclass(frozen=True)
class ProducerStateManagerConfig:
    """Kafka's ProducerStateManagerConfig: how long a silent producer's state is kept."""

    producer_id_expiration_ms: int = 86_400_000  # producer.id.expiration.ms


class ProducerStateManager:
    def __init__(self, topic_partition: str, log_dir: str, config: ProducerStateManagerConfig,
                 time: Time) -> None:
        self.topic_partition = topic_partition
        self.log_dir = log_dir
        self.config = config
        self.time = time
        self._producers: dict[int, ProducerStateEntry] = {}
        self.producer_id_count = 0  # len(producers), for gauges that read without the log's lock
        self.last_map_offset = 0
        self.last_snap_offset = 0
        self._snapshots = list_snapshot_files(log_dir)  # offset -> path
        # first offset -> TxnMetadata (a handful per partition: scanned, not kept sorted).
        self._ongoing_txns: dict[int, TxnMetadata] = {}
        self._unreplicated_txns: dict[int, TxnMetadata] = {}
        self.first_unstable_offset: int | None = None  # recomputed on every change, read without the lock

    # ------------------------------------------------------------------------------ the map

    @property
    def map_end_offset(self) -> int:
        return self.last_map_offset

    @property
    def active_producers(self) -> Mapping[int, ProducerStateEntry]:
        return MappingProxyType(self._producers)

    @property
    def is_empty(self) -> bool:
        return not self._producers

    def last_entry(self, producer_id: int) -> ProducerStateEntry | None:
        return self._producers.get(producer_id)

    def find_duplicate_batch(self, batch: RecordBatch) -> BatchMetadata | None:
        """The earlier append `batch` repeats, if it is one of its producer's last five."""
        entry = self._producers.get(batch.producer_id)
        return entry.find_duplicate_batch(batch) if entry is not None else None

    def prepare_update(self, producer_id: int, origin: AppendOrigin) -> ProducerAppendInfo:
        """A ProducerAppendInfo to check one append of `producer_id` against its current entry."""
        current = self._producers.get(producer_id) or ProducerStateEntry.empty(producer_id)
        return ProducerAppendInfo(self.topic_partition, producer_id, current, origin)

    def update(self, append_info: ProducerAppendInfo) -> None:
        """Take in an append that was checked and written."""
        if append_info.producer_id == NO_PRODUCER_ID:
            raise ValueError(f"invalid producer id {append_info.producer_id} passed to update for "
                             f"{self.topic_partition}")
        updated = append_info.to_entry()
        current = self._producers.get(append_info.producer_id)
        if current is not None:
            current.update(updated)
        else:
            self._add_producer_id(append_info.producer_id, updated)
        for txn in append_info.transactions:
            self._ongoing_txns[txn.first_offset] = txn
        if append_info.transactions:
            self._update_first_unstable_offset()

    def update_map_end_offset(self, last_offset: int) -> None:
        self.last_map_offset = last_offset

    def load_producer_entry(self, entry: ProducerStateEntry) -> None:
        self._add_producer_id(entry.producer_id, entry)
        if entry.current_txn_first_offset is not None:  # its transaction is still open: it holds the LSO
            self._ongoing_txns[entry.current_txn_first_offset] = TxnMetadata(entry.producer_id,
                                                                             entry.current_txn_first_offset)
            self._update_first_unstable_offset()

    def _add_producer_id(self, producer_id: int, entry: ProducerStateEntry) -> None:
        self._producers[producer_id] = entry
        self.producer_id_count = len(self._producers)

    def _clear_producer_ids(self) -> None:
        self._producers.clear()
        self.producer_id_count = 0
        self._ongoing_txns = {}
        self._unreplicated_txns = {}
        self._update_first_unstable_offset()

    # ------------------------------------------------------------------------------ transactions

    @property
    def ongoing_txns(self) -> Mapping[int, TxnMetadata]:
        return MappingProxyType(self._ongoing_txns)

    @property
    def unreplicated_txns(self) -> Mapping[int, TxnMetadata]:
        return MappingProxyType(self._unreplicated_txns)

    def last_stable_offset(self, completed_txn: CompletedTxn) -> int:
        """The LSO right after `completed_txn` ends (what its index entry records): the first offset of
        the oldest transaction of another producer still open, else just past the marker."""
        others = [first for first, txn in self._ongoing_txns.items()
                  if txn.producer_id != completed_txn.producer_id]
        return min(others) if others else completed_txn.last_offset + 1

    def complete_txn(self, completed_txn: CompletedTxn) -> None:
        """The marker is written: the transaction waits among the unreplicated ones until the high
        watermark passes its marker (a leader elected before that may not have the marker)."""
        txn = self._ongoing_txns.pop(completed_txn.first_offset, None)
        if txn is None:
            raise ValueError(f"Attempted to complete transaction {completed_txn} on partition "
                             f"{self.topic_partition} which was not started")
        txn.last_offset = completed_txn.last_offset
        self._unreplicated_txns[completed_txn.first_offset] = txn
        self._update_first_unstable_offset()

    def on_high_watermark_updated(self, high_watermark: int) -> None:
        self._remove_unreplicated_transactions(high_watermark)

    def _remove_unreplicated_transactions(self, offset: int) -> None:
        """Forget the completed transactions whose marker is below `offset`."""
        if any(txn.last_offset < offset for txn in self._unreplicated_txns.values()):
            self._unreplicated_txns = {first: txn for first, txn in self._unreplicated_txns.items()
                                       if txn.last_offset >= offset}
            self._update_first_unstable_offset()

    def _update_first_unstable_offset(self) -> None:
        self.first_unstable_offset = min(self._ongoing_txns.keys() | self._unreplicated_txns.keys(),
                                         default=None)

    # ------------------------------------------------------------------------------ expiry

    def is_producer_expired(self, current_time_ms: int, entry: ProducerStateEntry) -> bool:
        """Silent for producer.id.expiration.ms (an open transaction never expires)."""
        return (entry.current_txn_first_offset is None
                and current_time_ms - entry.last_timestamp >= self.config.producer_id_expiration_ms)

    def remove_expired_producers(self, current_time_ms: int) -> None:
        expired = [pid for pid, entry in self._producers.items()
                   if self.is_producer_expired(current_time_ms, entry)]
        for producer_id in expired:
            del self._producers[producer_id]
        self.producer_id_count = len(self._producers)

    # ------------------------------------------------------------------------------ log changes

    def truncate_and_reload(self, log_start_offset: int, log_end_offset: int, current_time_ms: int) -> None:
        """The log now spans [log_start_offset, log_end_offset): drop the snapshots outside it and,
        unless the map already ends there, reload the newest snapshot left (the caller replays the
        batches after it)."""
        for offset in list(self._snapshots):
            if offset > log_end_offset or offset <= log_start_offset:
                self.remove_and_delete_snapshot(offset)
        if log_end_offset != self.last_map_offset:
            self._clear_producer_ids()
            self._load_from_snapshot(log_start_offset, current_time_ms)
        else:
            self.on_log_start_offset_incremented(log_start_offset)

    def _load_from_snapshot(self, log_start_offset: int, current_time_ms: int) -> None:
        while self._snapshots:
            offset = max(self._snapshots)
            path = self._snapshots[offset]
            try:
                log.info("loading producer state from snapshot", partition=self.topic_partition,
                         snapshot=path)
                for entry in read_snapshot(path):
                    if not self.is_producer_expired(current_time_ms, entry):
                        self.load_producer_entry(entry)
                self.last_snap_offset = self.last_map_offset = offset
                return
            except CorruptSnapshotError as error:
                log.warning("failed to load producer snapshot: deleting it", partition=self.topic_partition,
                            snapshot=path, error=str(error))
                self._clear_producer_ids()
                self.remove_and_delete_snapshot(offset)
        # No snapshot: the state is rebuilt from the first offset still in the log.
        self.last_snap_offset = self.last_map_offset = log_start_offset

    def on_log_start_offset_incremented(self, log_start_offset: int) -> None:
        """The log start moved (retention, DeleteRecords). The producers stay until they expire
        (KIP-360); only the map's start follows."""
        self._remove_unreplicated_transactions(log_start_offset)
        if self.last_map_offset < log_start_offset:
            self.last_map_offset = log_start_offset
        latest = self.latest_snapshot_offset
        self.last_snap_offset = latest if latest is not None else log_start_offset

    def truncate_fully_and_start_at(self, offset: int) -> None:
        """Forget everything: the log restarts empty at `offset`."""
        self._clear_producer_ids()
        for snapshot_offset in list(self._snapshots):
            self.remove_and_delete_snapshot(snapshot_offset)
        self.last_snap_offset = 0
        self.last_map_offset = offset

    def truncate_fully_and_reload_snapshots(self) -> None:
        """Forget the producers and take in the snapshot files the directory now holds (Kafka's
        truncateFullyAndReloadSnapshots): a follower that copied its leader's snapshot from remote storage
        then rebuilds its producer state from it."""
        self._clear_producer_ids()
        self._snapshots = list_snapshot_files(self.log_dir)
        self.last_snap_offset = self.last_map_offset = 0

    # ------------------------------------------------------------------------------ snapshots

    def take_snapshot(self) -> None:
        """Write the map to `<last_map_offset>.snapshot`, unless the newest snapshot is already there."""
        if self.last_map_offset <= self.last_snap_offset:
            return
        path = producer_snapshot_file(self.log_dir, self.last_map_offset)
        start = self.time.hi_res_clock_ms()
        write_snapshot(path, self._producers.values())
        log.info("wrote producer snapshot", partition=self.topic_partition, offset=self.last_map_offset,
                 producer_ids=len(self._producers), ms=self.time.hi_res_clock_ms() - start)
        self._snapshots[self.last_map_offset] = path
        self.last_snap_offset = self.last_map_offset

    @property
    def snapshot_offsets(self) -> list[int]:
        return sorted(self._snapshots)

    @property
    def latest_snapshot_offset(self) -> int | None:
        return max(self._snapshots) if self._snapshots else None

    def fetch_snapshot(self, offset: int) -> str | None:
        """The snapshot file taken at `offset`, if there is one (Kafka's fetchSnapshot: the copier sends a
        segment's snapshot, the one at the next segment's base offset, with it to remote storage)."""
        path = self._snapshots.get(offset)
        return path if path is not None and os.path.exists(path) else None

    def delete_snapshots_after_recovery_point_checkpoint(self, base_offsets: list[int], recovery_point: int,
                                                         keep_all: bool = False) -> int:
        """Once the recovery point is checkpointed, keep only the snapshots recovery or a truncation
        may need: from the segment before the recovery point's, and the last two segments'. Returns
        the smallest offset kept (Kafka 2.x's rule of the same name)."""
        if keep_all:
            return base_offsets[0]
        two_segments_min_offset = base_offsets[-2] if len(base_offsets) > 1 else base_offsets[-1]
        lower = bisect_left(base_offsets, recovery_point) - 1
        recovery_point_offset = base_offsets[lower] if lower >= 0 else recovery_point
        min_offset_to_retain = min(recovery_point_offset, two_segments_min_offset)
        self.delete_snapshots_before(min_offset_to_retain)
        return min_offset_to_retain

    def delete_snapshots_before(self, offset: int) -> None:
        for snapshot_offset in [o for o in self._snapshots if o < offset]:
            self.remove_and_delete_snapshot(snapshot_offset)

    def remove_and_delete_snapshot(self, offset: int) -> None:
        path = self._snapshots.pop(offset, None)
        if path is not None:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass

    def remove_stray_snapshots(self, segment_base_offsets: Iterable[int]) -> None:
        """Delete snapshots that match no segment (left by a crash in the middle of a deletion), except
        the newest one above every segment base: the clean shutdown's snapshot at the log end."""
        base_offsets = set(segment_base_offsets)
        self._snapshots = list_snapshot_files(self.log_dir)
        strays = sorted(o for o in self._snapshots if o not in base_offsets)
        keep = strays[-1] if strays and (not base_offsets or strays[-1] > max(base_offsets)) else None
        for offset in strays:
            if offset != keep:
                self.remove_and_delete_snapshot(offset)


# ---------------------------------------------------------------------------------- appends

def update_producers(producer_state_manager: ProducerStateManager, batch: RecordBatch,
                     producers: dict[int, ProducerAppendInfo], first_offset: int | None,
                     origin: AppendOrigin) -> CompletedTxn | None:
    """Check `batch` with its producer's ProducerAppendInfo for this append (Kafka's
    UnifiedLog.updateProducers): several batches of one producer in one append are checked in turn.
    Returns the transaction a marker completed, if `batch` is one."""
    append_info = producers.get(batch.producer_id)
    if append_info is None:
        append_info = producers[batch.producer_id] = producer_state_manager.prepare_update(batch.producer_id,
                                                                                           origin)
    return append_info.append(batch, first_offset)


def analyze_and_validate_producer_state(producer_state_manager: ProducerStateManager,
                                        buffer: bytes | bytearray | memoryview, batches: list[RecordBatch],
                                        origin: AppendOrigin = AppendOrigin.CLIENT,
                                        ) -> tuple[dict[int, ProducerAppendInfo], list[CompletedTxn],
                                                   BatchMetadata | None]:
    """Check each idempotent batch (offsets assigned in `buffer`) against its producer's state
    (Kafka's UnifiedLog.analyzeAndValidateProducerState). Returns the producers' updates to apply once
    the batches are written and the transactions their markers complete, or the first batch that
    repeats one already written. Raises OutOfOrderSequenceError, InvalidProducerEpochError,
    TransactionCoordinatorFencedError or InvalidTxnStateError, and then nothing is appended."""
    updated_producers: dict[int, ProducerAppendInfo] = {}
    completed_txns: list[CompletedTxn] = []
    for view in batches:
        if view.producer_id == NO_PRODUCER_ID:
            continue  # not an idempotent producer: nothing to remember (the common case costs this test)
        batch = RecordBatch(buffer, view.position)  # the header again, with its offsets and append time
        # A client's retry can only repeat one of the last five batches: answer it, write nothing.
        # (A coordinator's marker has no sequence: it is never a retry of a data batch.)
        if origin == AppendOrigin.CLIENT:
            duplicate = producer_state_manager.find_duplicate_batch(batch)
            if duplicate is not None:
                return updated_producers, completed_txns, duplicate
        completed = update_producers(producer_state_manager, batch, updated_producers, None, origin)
        if completed is not None:
            completed_txns.append(completed)
    return updated_producers, completed_txns, None


def update_producer_state(psm: ProducerStateManager, updated_producers: dict[int, ProducerAppendInfo],
                          completed_txns: list[CompletedTxn], segment: LogSegment, end_offset: int) -> None:
    """Take in a written append (the end of Kafka's UnifiedLog.append): the producers' new entries, then
    the transactions its markers ended, each abort indexed in the segment holding its marker with the LSO
    as it then stands."""
    for append_info in updated_producers.values():
        psm.update(append_info)
    for completed_txn in completed_txns:
        segment.update_txn_index(completed_txn, psm.last_stable_offset(completed_txn))
        psm.complete_txn(completed_txn)
    psm.update_map_end_offset(end_offset)


# ---------------------------------------------------------------------------------- files

def producer_snapshot_file(log_dir: str, offset: int) -> str:
    return os.path.join(log_dir, f"{offset:020d}{PRODUCER_SNAPSHOT_FILE_SUFFIX}")


def list_snapshot_files(log_dir: str) -> dict[int, str]:
    """offset -> path of every `%020d.snapshot` in the partition directory."""
    found = {}
    if os.path.isdir(log_dir):
        for name in os.listdir(log_dir):
            prefix, _, suffix = name.partition(".")
            if "." + suffix == PRODUCER_SNAPSHOT_FILE_SUFFIX and len(prefix) == 20 and prefix.isdigit():
                found[int(prefix)] = os.path.join(log_dir, name)
    return found


def read_snapshot(path: str) -> list[ProducerStateEntry]:
    """The entries of a snapshot file; CorruptSnapshotError if it is not one Kafka would trust."""
    with open(path, "rb") as file:
        data = file.read()
    if len(data) < _HEADER.size:
        raise CorruptSnapshotError("Snapshot failed schema validation: "
                                   f"{len(data)} bytes is shorter than a header")
    version, crc, count = _HEADER.unpack_from(data)
    if version != PRODUCER_SNAPSHOT_VERSION:
        raise CorruptSnapshotError(f"Snapshot contained an unknown file version {version}")
    computed = crc32c.crc32c(memoryview(data)[_PRODUCER_ENTRIES_AT:])
    if crc != computed:
        raise CorruptSnapshotError(f"Snapshot is corrupt (CRC is no longer valid). Stored crc: {crc}. "
                                   f"Computed crc: {computed}")
    if count < 0 or len(data) != _HEADER.size + count * _ENTRY.size:
        raise CorruptSnapshotError(f"Snapshot failed schema validation: {count} entries in {len(data)} bytes")
    entries = []
    for (producer_id, epoch, last_seq, last_offset, offset_delta, timestamp, coordinator_epoch,
         current_txn_first_offset) in _ENTRY.iter_unpack(memoryview(data)[_HEADER.size:]):
        # An entry whose producer has no batch left (a bumped epoch) is stored with last offset -1.
        batch = BatchMetadata(last_seq, last_offset, offset_delta, timestamp) if last_offset >= 0 else None
        entries.append(ProducerStateEntry(producer_id, epoch, coordinator_epoch, timestamp,
                                          current_txn_first_offset if current_txn_first_offset >= 0 else None,
                                          batch))
    return entries


def write_snapshot(path: str, entries: Iterable[ProducerStateEntry]) -> None:
    """Kafka's format, written whole to a temporary file, fsynced, then renamed over `path`: a crash
    leaves the old snapshot or the new one, never half of one. Only each producer's last batch is
    stored (what a retry after a restart is most likely to repeat)."""
    body = bytearray(_HEADER.pack(PRODUCER_SNAPSHOT_VERSION, 0, 0))
    count = 0
    for entry in entries:
        body += _ENTRY.pack(entry.producer_id, entry.producer_epoch, entry.last_seq, entry.last_data_offset,
                            entry.last_offset_delta, entry.last_timestamp, entry.coordinator_epoch,
                            -1 if entry.current_txn_first_offset is None else entry.current_txn_first_offset)
        count += 1
    struct.pack_into(">i", body, _PRODUCER_ENTRIES_AT, count)
    struct.pack_into(">I", body, _CRC_AT, crc32c.crc32c(memoryview(body)[_PRODUCER_ENTRIES_AT:]))
    temporary = path + SNAPSHOT_TEMP_SUFFIX
    with open(temporary, "wb") as file:
        file.write(body)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
