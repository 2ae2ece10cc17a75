"""The KIP-853 control records of the metadata log: KRaftVersionRecord and VotersRecord (Kafka's
``common/message/KRaftVersionRecord.json``, ``VotersRecord.json``, ControlRecordType KRAFT_VERSION (5)
and KRAFT_VOTERS (6), MemoryRecordsBuilder.appendKRaftVersionMessage / appendVotersMessage).

A quorum whose voters can change keeps its voter set in its own log, not in a config file. A
VotersRecord lists every voter: its id, the directory id of its metadata log directory (so a
controller whose disk was wiped and reformatted is a different replica), the endpoints it
listens on, and the kraft.version range it supports. KRaftVersionRecord says which kraft.version
the quorum runs: 0 is the static `controller.quorum.voters` of KIP-595, 1 the dynamic quorum.
Both are control records (flexible, version 0), in control batches like the LeaderChangeMessage:
listeners never see them; the raft layer reads them itself (KRaftControlRecordStateMachine).
"""

from __future__ import annotations

import struct

from kafka.protocol.record_batch import DefaultRecord, encode_records, seal_batch
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Int16, Int32, String, UInt16, Uuid

KRAFT_VERSION = 5  # ControlRecordType
KRAFT_VOTERS = 6
_CONTROL_FLAG = 0x20
_KEY = struct.Struct(">hh")

KRAFT_VERSION_RECORD = Schema(
    "KRaftVersionRecord",
    Field("version", Int16, "0+"),
    Field("k_raft_version", Int16, "0+"),
)

ENDPOINT = Schema(
    "Endpoint",
    Field("name", String, "0+"),
    Field("host", String, "0+"),
    Field("port", UInt16, "0+"),
)

KRAFT_VERSION_FEATURE = Schema(
    "KRaftVersionFeature",
    Field("min_supported_version", Int16, "0+"),
    Field("max_supported_version", Int16, "0+"),
)

VOTER = Schema(
    "Voter",
    Field("voter_id", Int32, "0+"),
    Field("voter_directory_id", Uuid, "0+"),
    Field("endpoints", Array(ENDPOINT), "0+"),
    Field("k_raft_version_feature", KRAFT_VERSION_FEATURE, "0+"),
)

VOTERS_RECORD = Schema(
    "VotersRecord",
    Field("version", Int16, "0+"),
    Field("voters", Array(VOTER), "0+"),
)


def kraft_version_value(kraft_version: int) -> bytes:
    out = bytearray()
    KRAFT_VERSION_RECORD.write(out, dict(version=0, k_raft_version=kraft_version), 0, True)
    return bytes(out)


def voters_value(voters: list[dict]) -> bytes:
    """`voters`: dicts shaped like VOTER (voter_id, voter_directory_id, endpoints, k_raft_version_feature)."""
    out = bytearray()
    VOTERS_RECORD.write(out, dict(version=0, voters=voters), 0, True)
    return bytes(out)


def read_kraft_version(value: bytes) -> int:
    return KRAFT_VERSION_RECORD.read(value, 0, True).k_raft_version


def read_voters(value: bytes):
    return VOTERS_RECORD.read(value, 0, True).voters


def control_record(record_type: int, value: bytes) -> tuple[bytes, bytes]:
    """A (key, value) pair of a control record of `record_type`."""
    return _KEY.pack(0, record_type), value


def control_batch(base_offset: int, timestamp: int, epoch: int, records: list[tuple[bytes, bytes]]) -> bytes:
    """Control records (key, value) in one control batch, stamped with the leader epoch."""
    encoded = [DefaultRecord(base_offset + i, timestamp, key, value)
               for i, (key, value) in enumerate(records)]
    return seal_batch(base_offset=base_offset, attributes=_CONTROL_FLAG, last_offset_delta=len(records) - 1,
                      base_timestamp=timestamp, max_timestamp=timestamp, producer_id=-1, producer_epoch=-1,
                      base_sequence=-1, records_count=len(records),
                      payload=encode_records(encoded, base_offset, timestamp), partition_leader_epoch=epoch)
