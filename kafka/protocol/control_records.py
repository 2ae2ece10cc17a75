"""Control records of the metadata log (Kafka's ControlRecordType, LeaderChangeMessage).

A control batch has the control bit set in its attributes; each record's key is (version int16,
type int16) and its value a small message. The raft leader writes a LeaderChangeMessage as the
first entry of its epoch: committing that entry is what commits everything before it (Raft's rule
that a leader only counts replicas for entries of its own epoch), and it records who voted.
Listeners never see control batches; `kafka-dump-log` shows them.
"""

from __future__ import annotations

import struct

from kafka.protocol.record_batch import DefaultRecord, encode_records, seal_batch
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32

LEADER_CHANGE = 2
SNAPSHOT_HEADER = 3
SNAPSHOT_FOOTER = 4
CONTROL_FLAG = 0x20  # bit 5 of a batch's attributes
_KEY = struct.Struct(">hh")

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
                                            granting_voters=[dict(voter_id=v) for v in sorted(granting)]), 0, True)
    record = DefaultRecord(base_offset, timestamp, _KEY.pack(0, LEADER_CHANGE), bytes(value))
    return seal_batch(base_offset=base_offset, attributes=CONTROL_FLAG, last_offset_delta=0,
                      base_timestamp=timestamp, max_timestamp=timestamp, producer_id=-1, producer_epoch=-1,
                      base_sequence=-1, records_count=1, payload=encode_records([record], base_offset, timestamp),
                      partition_leader_epoch=epoch)


def control_record_type(key: bytes | None) -> int | None:
    """The type of a control record from its key, or None if it is not one."""
    if key is None or len(key) < _KEY.size:
        return None
    return _KEY.unpack_from(key)[1]


def read_leader_change(value: bytes):
    return LEADER_CHANGE_MESSAGE.read(value, 0, True)
