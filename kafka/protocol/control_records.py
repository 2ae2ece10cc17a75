"""Control records (Kafka's ControlRecordType): the metadata log's LeaderChangeMessage, and the
transaction markers (EndTransactionMarker) a partition leader writes when a transaction ends.

A control batch has the control bit set in its attributes; each record's key is (version int16,
type int16) and its value a small message. The raft leader writes a LeaderChangeMessage as the
first entry of its epoch: committing that entry is what commits everything before it (Raft's rule
that a leader only counts replicas for entries of its own epoch), and it records who voted.
Listeners never see control batches; `kafka-dump-log` shows them.

A transaction marker (KIP-98) is a control batch that is also transactional, stamped with the
producer's id and epoch: type ABORT (0) or COMMIT (1), and a value holding the transaction
coordinator's epoch. Consumers never return it as a record; it takes one offset of the partition.
"""

from __future__ import annotations

import struct

from kafka.protocol.record_batch import (
    TRANSACTIONAL_MASK,
    DefaultRecord,
    RecordBatch,
    encode_records,
    seal_batch,
)
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32

ABORT = 0  # EndTransactionMarker types
COMMIT = 1
LEADER_CHANGE = 2
SNAPSHOT_HEADER = 3
SNAPSHOT_FOOTER = 4
CONTROL_FLAG = 0x20  # bit 5 of a batch's attributes
_KEY = struct.Struct(">hh")
_END_TXN_MARKER_VALUE = struct.Struct(">hi")  # version 0, coordinator epoch

VOTER = Schema("Voter", Field("voter_id", Int32, "0+"))
LEADER_CHANGE_MESSAGE = Schema(
    "LeaderChangeMessage",
    Field("version", Int16, "0+"),
    Field("leader_id", Int32, "0+"),
    Field("voters", Array(VOTER), "0+"),
    Field("granting_voters", Array(VOTER), "0+"),
)


def leader_change_batch(base_offset: int, timestamp: int, epoch: int, leader_id: int, voters: list[int],
                        granting: list[int]) -> bytes:
    value = bytearray()
    LEADER_CHANGE_MESSAGE.write(value, dict(version=0, leader_id=leader_id,
                                            voters=[dict(voter_id=v) for v in sorted(voters)],
                                            granting_voters=[dict(voter_id=v) for v in sorted(granting)]), 0,
                                            True)
    record = DefaultRecord(base_offset, timestamp, _KEY.pack(0, LEADER_CHANGE), bytes(value))
    return seal_batch(base_offset=base_offset, attributes=CONTROL_FLAG, last_offset_delta=0,
                      base_timestamp=timestamp, max_timestamp=timestamp, producer_id=-1, producer_epoch=-1,
                      base_sequence=-1, records_count=1,
                      payload=encode_records([record], base_offset, timestamp),
                      partition_leader_epoch=epoch)


def control_record_type(key: bytes | None) -> int | None:
    """The type of a control record from its key, or None if it is not one."""
    if key is None or len(key) < _KEY.size:
        return None
    return _KEY.unpack_from(key)[1]


def read_leader_change(value: bytes):
    return LEADER_CHANGE_MESSAGE.read(value, 0, True)


def end_txn_marker_batch(producer_id: int, producer_epoch: int, committed: bool, coordinator_epoch: int,
                         timestamp: int, base_offset: int = 0, partition_leader_epoch: int = -1) -> bytes:
    """One EndTransactionMarker in its own control batch (Kafka's MemoryRecords.withEndTransactionMarker):
    what a partition leader appends for WriteTxnMarkers. Offsets are assigned by the append."""
    key = _KEY.pack(0, COMMIT if committed else ABORT)
    record = DefaultRecord(base_offset, timestamp, key, _END_TXN_MARKER_VALUE.pack(0, coordinator_epoch))
    return seal_batch(base_offset=base_offset, attributes=CONTROL_FLAG | TRANSACTIONAL_MASK,
                      last_offset_delta=0,
                      base_timestamp=timestamp, max_timestamp=timestamp, producer_id=producer_id,
                      producer_epoch=producer_epoch, base_sequence=-1, records_count=1,
                      payload=encode_records([record], base_offset, timestamp),
                      partition_leader_epoch=partition_leader_epoch)


def read_end_txn_marker(batch: RecordBatch) -> tuple[int, int]:
    """(ABORT or COMMIT, coordinator epoch) of a transaction marker batch."""
    (record,) = list(batch)
    _, coordinator_epoch = _END_TXN_MARKER_VALUE.unpack_from(record.value)
    return control_record_type(record.key), coordinator_epoch
