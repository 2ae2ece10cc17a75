"""MockLog: the raft core's log in memory, for the seeded simulation (Kafka's MockLog).

The same contract as KafkaMetadataLog (kafka/raft/replicated_log.py), without files: a list of
whole batches. Keeping it this small keeps thousands of simulated clusters fast.
"""

from __future__ import annotations

import bisect

from kafka.protocol.record_batch import RecordBatch, iter_batches
from kafka.raft.replicated_log import LogAppendInfo, LogFetchInfo, OffsetAndEpoch, ValidOffsetAndEpoch

_EPOCH_AT = 12


class MockLog:
    def __init__(self) -> None:
        self.batches: list[tuple[int, int, int, bytes]] = []  # (base offset, last offset, epoch, bytes)
        self.epochs: list[int] = []
        self.epoch_starts: list[int] = []
        self.hw = 0
        self.values: dict[int, bytes | None] = {}  # offset -> a data record's value (None: control)
        self.log_start = 0
        self.snapshots: dict[OffsetAndEpoch, bytes] = {}  # frozen snapshots and their bytes

    def _assign(self, epoch: int, start: int) -> None:
        if epoch >= 0 and (not self.epochs or epoch > self.epochs[-1]):
            self.epochs.append(epoch)
            self.epoch_starts.append(start)

    def initialize_leader_epoch(self, epoch: int) -> None:
        self._assign(epoch, self.end_offset())

    def append_as_leader(self, records: bytes, epoch: int) -> LogAppendInfo:
        first = next_offset = self.end_offset()
        for batch in iter_batches(records):
            data = bytearray(batch.bytes())
            data[0:8] = next_offset.to_bytes(8, "big")
            data[_EPOCH_AT:_EPOCH_AT + 4] = epoch.to_bytes(4, "big", signed=True)
            count = batch.last_offset - batch.base_offset + 1
            self.batches.append((next_offset, next_offset + count - 1, epoch, bytes(data)))
            self._remember(RecordBatch(data), next_offset)
            next_offset += count
        self._assign(epoch, first)
        return LogAppendInfo(first, next_offset - 1)

    def append_as_follower(self, records: bytes, epoch: int) -> LogAppendInfo:
        first = self.end_offset()
        for batch in iter_batches(records):
            assert batch.base_offset == self.end_offset(), (batch.base_offset, self.end_offset())
            self.batches.append((batch.base_offset, batch.last_offset, batch.partition_leader_epoch,
                                 batch.bytes()))
            self._remember(batch, batch.base_offset)
            self._assign(batch.partition_leader_epoch, batch.base_offset)
        return LogAppendInfo(first, self.end_offset() - 1)

    def _remember(self, batch: RecordBatch, base_offset: int) -> None:
        for i, record in enumerate(batch):
            self.values[base_offset + i] = None if batch.is_control_batch else record.value

    def read(self, start_offset: int, max_bytes: int) -> LogFetchInfo:
        out = bytearray()
        i = bisect.bisect_left([b[1] for b in self.batches], start_offset)
        for *_, data in self.batches[i:]:
            if out and len(out) + len(data) > max_bytes:
                break
            out += data
        return LogFetchInfo(bytes(out), start_offset)

    def end_offset(self) -> int:
        return self.batches[-1][1] + 1 if self.batches else self.log_start

    def start_offset(self) -> int:
        return self.log_start

    def last_fetched_epoch(self) -> int:
        if self.epochs:
            return self.epochs[-1]
        latest = self.latest_snapshot_id()
        return latest.epoch if latest is not None else 0

    def end_offset_for_epoch(self, epoch: int) -> OffsetAndEpoch:
        i = bisect.bisect_right(self.epochs, epoch) - 1
        if i < 0:
            latest = self.latest_snapshot_id()
            if latest is not None and latest.epoch <= epoch:
                return OffsetAndEpoch(self.epoch_starts[0] if self.epochs else self.end_offset(),
                                      latest.epoch)
            return OffsetAndEpoch(self.log_start, 0) if not self.epochs else OffsetAndEpoch(-1, -1)
        end = self.epoch_starts[i + 1] if i + 1 < len(self.epochs) else self.end_offset()
        return OffsetAndEpoch(end, self.epochs[i])

    def validate_offset_and_epoch(self, offset: int, epoch: int) -> ValidOffsetAndEpoch:
        latest = self.latest_snapshot_id()
        if offset < self.log_start and latest is not None:
            return ValidOffsetAndEpoch("SNAPSHOT", latest)
        if offset == 0:
            return ValidOffsetAndEpoch("VALID", OffsetAndEpoch(offset, epoch))
        end = self.end_offset_for_epoch(epoch)
        if end.epoch != epoch or offset > end.offset:
            diverging = end if end.offset >= 0 else OffsetAndEpoch(self.log_start, 0)
            return ValidOffsetAndEpoch("DIVERGING", diverging)
        return ValidOffsetAndEpoch("VALID", OffsetAndEpoch(offset, epoch))

    def truncate_to(self, offset: int) -> None:
        assert offset >= self.hw, f"truncating to {offset} below the high watermark {self.hw}"
        self.batches = [b for b in self.batches if b[1] < offset]
        for o in [o for o in self.values if o >= self.end_offset()]:
            del self.values[o]
        assert self.end_offset() == offset or not self.batches or self.batches[-1][1] + 1 <= offset
        while self.epoch_starts and self.epoch_starts[-1] >= self.end_offset():
            self.epochs.pop()
            self.epoch_starts.pop()

    def high_watermark(self) -> int:
        return self.hw

    def update_high_watermark(self, offset: int) -> None:
        self.hw = min(offset, self.end_offset())

    def flush(self, force_flush_active_segment: bool = True) -> None:
        pass

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ snapshots (KIP-630)
    def latest_snapshot_id(self) -> OffsetAndEpoch | None:
        return max(self.snapshots) if self.snapshots else None

    def create_new_snapshot(self, snapshot_id: OffsetAndEpoch):
        if snapshot_id in self.snapshots or snapshot_id.offset > self.hw:
            return None
        return MemorySnapshotWriter(self, snapshot_id)

    def store_snapshot(self, snapshot_id: OffsetAndEpoch):
        return None if snapshot_id in self.snapshots else MemorySnapshotWriter(self, snapshot_id)

    def read_snapshot(self, snapshot_id: OffsetAndEpoch):
        return MemorySnapshotReader(snapshot_id,
                                    self.snapshots[snapshot_id]) if snapshot_id in self.snapshots else None

    def on_snapshot_frozen(self, snapshot_id: OffsetAndEpoch) -> None:
        pass  # the writer put it in self.snapshots when it froze

    def delete_before_snapshot(self, snapshot_id: OffsetAndEpoch) -> bool:
        if snapshot_id not in self.snapshots or snapshot_id.offset <= self.log_start:
            return False
        self.log_start = min(snapshot_id.offset, self.hw)
        self.batches = [b for b in self.batches if b[1] >= self.log_start]
        self.values = {o: v for o, v in self.values.items() if o >= self.log_start}
        self.snapshots = {s: data for s, data in self.snapshots.items() if s >= snapshot_id}
        return True

    def truncate_to_latest_snapshot(self) -> bool:
        latest = self.latest_snapshot_id()
        if latest is None or latest.offset <= self.end_offset():
            return False
        self.batches, self.values, self.epochs, self.epoch_starts = [], {}, [], []
        self.log_start = self.hw = latest.offset
        return True


class MemorySnapshotWriter:
    def __init__(self, log: MockLog, snapshot_id: OffsetAndEpoch) -> None:
        self.log, self.snapshot_id, self.data = log, snapshot_id, bytearray()

    def append(self, data: bytes) -> None:
        self.data += data

    def freeze(self) -> None:
        self.log.snapshots[self.snapshot_id] = bytes(self.data)

    def close(self) -> None:
        pass


class MemorySnapshotReader:
    def __init__(self, snapshot_id: OffsetAndEpoch, data: bytes) -> None:
        self.snapshot_id, self.data = snapshot_id, data

    def size_in_bytes(self) -> int:
        return len(self.data)

    def read(self, position: int, max_bytes: int) -> bytes:
        return self.data[position:position + max_bytes]

    def records(self) -> bytes:
        return self.data
