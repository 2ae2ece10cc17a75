"""InMemoryPartitionWriter: a partition that is a list of batches (Kafka's InMemoryPartitionWriter, from its
runtime tests): appends assign offsets as a leader's log does, the test moves the high watermark itself
(commit), and read_partition_log reads it back as ReplicaManager.read_partition_log does, for the loader.
An append can be made to fail (fail_next) to see the runtime revert.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.coordinator.common.runtime.partition_writer import CoordinatorWriteError
from kafka.protocol.control_records import end_txn_marker_batch
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import RecordBatch, set_base_offset


@dataclass
class ReadResult:
    error: Errors
    records: bytes = b""
    high_watermark: int = -1
    log_start_offset: int = 0


class InMemoryLog:
    def __init__(self) -> None:
        self.batches: list[bytes] = []  # with their offsets assigned
        # (offset, key, value) of every data record, decoded once at append: what a check replays
        self.records: list[tuple[int, bytes | None, bytes | None]] = []
        self.log_end_offset = 0
        self.high_watermark = 0

    def add(self, batch: bytes) -> int:
        header = RecordBatch(batch)
        self.batches.append(batch)
        if not header.is_control_batch:
            self.records += [(r.offset, r.key, r.value) for r in header]
        self.log_end_offset = header.next_offset
        return self.log_end_offset

    def batch_ends(self) -> list[int]:
        return [RecordBatch(b).next_offset for b in self.batches]

    def truncate_to(self, offset: int) -> None:
        self.batches = [b for b in self.batches if RecordBatch(b).next_offset <= offset]
        self.records = [r for r in self.records if r[0] < offset]
        self.log_end_offset = self.batch_ends()[-1] if self.batches else 0
        self.high_watermark = min(self.high_watermark, self.log_end_offset)


class InMemoryPartitionWriter:
    def __init__(self, max_message_bytes: int = 1 << 20) -> None:
        self.logs: dict = {}
        self.listeners: dict = {}
        self.max_message_bytes = max_message_bytes
        self.failures: list[Errors] = []  # the next appends fail with these, in order
        self.leading: set = set()  # partitions that accept appends; a missing one is NOT_LEADER_OR_FOLLOWER

    def log(self, tp) -> InMemoryLog:
        return self.logs.setdefault(tp, InMemoryLog())

    def fail_next(self, error: Errors = Errors.KAFKA_STORAGE_ERROR) -> None:
        self.failures.append(error)

    # ------------------------------------------------------------------ PartitionWriter
    def register_listener(self, tp, listener) -> None:
        self.listeners.setdefault(tp, []).append(listener)

    def deregister_listener(self, tp, listener) -> None:
        self.listeners[tp] = [known for known in self.listeners.get(tp, []) if known is not listener]

    def config(self, tp) -> int:
        return self.max_message_bytes

    def append(self, tp, producer_id: int, producer_epoch: int, records: bytes) -> int:
        if self.failures:
            raise CoordinatorWriteError(self.failures.pop(0), "an append made to fail")
        if tp not in self.leading:
            raise CoordinatorWriteError(Errors.NOT_LEADER_OR_FOLLOWER, f"{tp} is not led here")
        log = self.log(tp)
        batch = bytearray(records)
        set_base_offset(batch, 0, log.log_end_offset)
        return log.add(bytes(batch))

    def append_end_transaction_marker(self, tp, producer_id: int, producer_epoch: int, coordinator_epoch: int,
                                      result: TransactionResult) -> int:
        marker = end_txn_marker_batch(producer_id, producer_epoch, result is TransactionResult.COMMIT,
                                      coordinator_epoch, 0)
        return self.append(tp, producer_id, producer_epoch, marker)

    # ------------------------------------------------------------------ the test's side
    def commit(self, tp, offset: int | None = None) -> None:
        """Move the high watermark (to the log end by default) and tell the listeners."""
        log = self.log(tp)
        log.high_watermark = log.log_end_offset if offset is None else offset
        for listener in list(self.listeners.get(tp, [])):
            listener(tp, log.high_watermark)

    def read_partition_log(self, tp, fetch_offset: int, max_bytes: int) -> ReadResult:
        if tp not in self.leading:
            return ReadResult(Errors.NOT_LEADER_OR_FOLLOWER)
        log = self.log(tp)
        chosen, size = [], 0
        for batch in log.batches:
            header = RecordBatch(batch)
            if header.next_offset <= fetch_offset:
                continue
            if chosen and size + len(batch) > max_bytes:
                break
            chosen.append(batch)
            size += len(batch)
        return ReadResult(Errors.NONE, b"".join(chosen), log.high_watermark, 0)
