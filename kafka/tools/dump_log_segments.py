"""kafka-dump-log: print what is inside segment files (Kafka's kafka.tools.DumpLogSegments,
bin/kafka-dump-log.sh).

    kafka-dump-log --files data/orders-0/00000000000000000000.log [--print-data-log]
    kafka-dump-log --files 00000000000000000000.index,00000000000000000000.timeindex [--index-sanity-check]
    kafka-dump-log --files data/orders-0/00000000000000000042.snapshot
    kafka-dump-log --files data/orders-0/00000000000000000000.txnindex

For a `.log` file: one line per record batch (base and last offset, record count, position, size,
compression codec, CRC and whether it is valid) and, with --print-data-log, one `|` line per record
with its key and value. Bytes after the last whole batch are reported, as recovery would cut them.
For an `.index` file: its offset -> position entries; for a `.timeindex`: timestamp -> offset
entries; each is checked against the .log beside it and mismatches are printed on stderr. With
--index-sanity-check, only the check the broker runs at start-up (which decides whether the index
is rebuilt). For a producer-state `.snapshot` (KIP-98): one line per idempotent producer, its epoch
and the last batch the partition remembers of it. A transaction marker (a control record) shows as
`endTxnMarker: COMMIT coordinatorEpoch: 0`; a `.txnindex` prints its aborted transactions. With
--offsets-decoder, a segment of `__consumer_offsets` prints each record as Kafka's offsets parser does:
`key: offset_commit::group=g,partition=t-0 payload: offset=5` and, for a group's metadata, its
generation, protocol and each member's assignment (a tombstone is `<DELETE>`). The output
follows Kafka's tool line for line, so Kafka's documentation applies.

The tool only reads: it never creates or repairs a file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import struct
import sys
import uuid
from collections.abc import Iterator
from typing import TextIO

from kafka.coordinator.group.group_coordinator_record_serde import GroupCoordinatorRecordSerde
from kafka.coordinator.group.group_coordinator_records import (
    CONSUMER_GROUP_VALUE_SCHEMAS,
    CONSUMER_GROUP_VALUE_VERSION,
    GroupMetadataKey,
    OffsetCommitKey,
)
from kafka.log.errors import CorruptIndexError, CorruptSnapshotError
from kafka.log.log_file_utils import (
    INDEX_FILE_SUFFIX,
    LOG_FILE_SUFFIX,
    TIME_INDEX_FILE_SUFFIX,
    TXN_INDEX_FILE_SUFFIX,
)
from kafka.log.offset_index import OffsetIndex
from kafka.log.producer_state_manager import PRODUCER_SNAPSHOT_FILE_SUFFIX, read_snapshot
from kafka.log.time_index import TimeIndex
from kafka.log.transaction_index import read_entries
from kafka.protocol.consumer_protocol import PROTOCOL_TYPE, deserialize_assignment
from kafka.protocol.control_records import (
    ABORT,
    COMMIT,
    LEADER_CHANGE,
    control_record_type,
    read_end_txn_marker,
    read_leader_change,
)
from kafka.protocol.kraft_control_records import (
    KRAFT_VERSION,
    KRAFT_VERSION_RECORD,
    KRAFT_VOTERS,
    VOTERS_RECORD,
)
from kafka.protocol.metadata_records import deserialize
from kafka.protocol.record_batch import HEADER_SIZE, CorruptRecordError, RecordBatch
from kafka.protocol.types import ByteReader
from kafka.utils.uuid import uuid_to_string

RECORD_INDENT = "|"
_DELETE_HORIZON_FLAG = 0x40
_CODEC_NAMES = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
_OFFSET_ENTRY = struct.Struct(">ii")
_TIME_ENTRY = struct.Struct(">qi")


def main(argv: list[str] | None = None, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    parser = argparse.ArgumentParser(
        prog="kafka-dump-log",
        description="Parse log segment and index files and dump their contents, to debug a seemingly corrupt "
                    "segment.")
    parser.add_argument("--files", required=True,
                        help="REQUIRED: the comma separated list of data and index files")
    parser.add_argument("--print-data-log", action="store_true", help="print each record's key and value")
    parser.add_argument("--deep-iteration", action="store_true",
                        help="print every record (implied by --print-data-log)")
    parser.add_argument("--index-sanity-check", action="store_true",
                        help="only run the index sanity check the broker runs at start-up")
    parser.add_argument("--verify-index-only", action="store_true",
                        help="check the index without printing it")
    parser.add_argument("--max-bytes", type=int, default=2**31 - 1,
                        help="read at most this many bytes of a .log")
    parser.add_argument("--cluster-metadata-decoder", action="store_true",
                        help="decode the records of __cluster_metadata (KRaft's metadata log)")
    parser.add_argument("--offsets-decoder", action="store_true",
                        help="decode the records of __consumer_offsets: committed offsets and group metadata")
    args = parser.parse_args(argv)
    if args.cluster_metadata_decoder or args.offsets_decoder:
        args.print_data_log = True
    status = 0
    for path in [p for p in args.files.split(",") if p]:
        print(f"Dumping {path}", file=out)
        if not os.path.exists(path):
            print(f"{path} does not exist", file=err)
            status = 1
        elif path.endswith(LOG_FILE_SUFFIX) or path.endswith(".checkpoint"):  # a segment, or a KRaft snapshot
            dump_log(path, args.print_data_log, args.deep_iteration or args.print_data_log, args.max_bytes,
                     out, err,
                     decode_metadata=args.cluster_metadata_decoder, decode_offsets=args.offsets_decoder)
        elif path.endswith(INDEX_FILE_SUFFIX):
            status |= dump_index(path, args.index_sanity_check, args.verify_index_only, out, err)
        elif path.endswith(TIME_INDEX_FILE_SUFFIX):
            status |= dump_time_index(path, args.index_sanity_check, args.verify_index_only, out, err)
        elif path.endswith(PRODUCER_SNAPSHOT_FILE_SUFFIX):
            status |= dump_producer_id_snapshot(path, out, err)
        elif path.endswith(TXN_INDEX_FILE_SUFFIX):
            dump_txn_index(path, out)
        else:
            print(f"Ignoring unknown file {path}", file=err)
    return status


# ---------------------------------------------------------------------------------- .log

def dump_log(path: str, print_contents: bool, deep: bool, max_bytes: int, out: TextIO, err: TextIO,
             decode_metadata: bool = False, decode_offsets: bool = False) -> None:
    if path.endswith(".checkpoint"):
        print(f"Snapshot end offset: {int(os.path.basename(path).split('-')[0])}", file=out)
    else:
        print(f"Log starting offset: {_base_offset_of(path)}", file=out)
    last_offset = -1
    non_consecutive = []
    valid_bytes = 0
    for position, batch in batches_in_file(path, max_bytes):
        print(batch_line(batch, position), file=out)
        valid_bytes = position + batch.size_in_bytes
        if not deep or not batch.is_valid():
            continue
        for record in batch:
            if last_offset >= 0 and record.offset != last_offset + 1:
                non_consecutive.append((last_offset, record.offset))
            last_offset = record.offset
            line = record_line(batch, record, print_contents and not (decode_metadata or decode_offsets))
            if decode_metadata:
                line += " " + metadata_payload(batch, record)
            elif decode_offsets and not batch.is_control_batch:
                line += offsets_key_and_payload(record)
            print(line, file=out)
    trailing = min(os.path.getsize(path), max_bytes) - valid_bytes
    if trailing > 0:
        print(f"Found {trailing} invalid bytes at the end of {os.path.basename(path)}", file=out)
    if non_consecutive:
        # Normal for a compacted topic: the cleaner leaves gaps where superseded records were.
        print(f"Non-consecutive offsets in {path}", file=err)
        for first, second in non_consecutive:
            print(f"  {first} is followed by {second}", file=err)


def batches_in_file(path: str, max_bytes: int = 2**31 - 1) -> Iterator[tuple[int, RecordBatch]]:
    """(position, batch) of each whole batch, stopping at a torn or nonsensical header."""
    with open(path, "rb") as file:
        data = file.read(max_bytes)
    position = 0
    while len(data) - position >= HEADER_SIZE:
        try:
            batch = RecordBatch(data, position)
        except CorruptRecordError:
            return
        if batch.size_in_bytes < HEADER_SIZE or position + batch.size_in_bytes > len(data):
            return
        yield position, batch
        position += batch.size_in_bytes


def batch_line(batch: RecordBatch, position: int) -> str:
    last_sequence = batch.base_sequence + batch.last_offset_delta if batch.base_sequence >= 0 else -1
    horizon = (f"OptionalLong[{batch.base_timestamp}]" if batch.attributes & _DELETE_HORIZON_FLAG
               else "OptionalLong.empty")
    return (f"baseOffset: {batch.base_offset} lastOffset: {batch.last_offset} count: {batch.records_count} "
            f"baseSequence: {batch.base_sequence} lastSequence: {last_sequence} producerId: "
            f"{batch.producer_id} "
            f"producerEpoch: {batch.producer_epoch} partitionLeaderEpoch: {batch.partition_leader_epoch} "
            f"isTransactional: {_bool(batch.is_transactional)} isControl: {_bool(batch.is_control_batch)} "
            f"deleteHorizonMs: {horizon} position: {position} {_timestamp_type(batch)}: "
            f"{batch.max_timestamp} "
            f"size: {batch.size_in_bytes} magic: {batch.magic} "
            f"compresscodec: {_CODEC_NAMES.get(batch.attributes & 0x07, 'unknown')} crc: {batch.crc} "
            f"isvalid: {_bool(batch.is_valid())}")


def record_line(batch: RecordBatch, record, print_contents: bool) -> str:
    sequence = batch.base_sequence + (record.offset - batch.base_offset) if batch.base_sequence >= 0 else -1
    line = (f"{RECORD_INDENT} offset: {record.offset} {_timestamp_type(batch)}: {record.timestamp} "
            f"keySize: {_size(record.key)} valueSize: {_size(record.value)} sequence: {sequence} "
            f"headerKeys: [{','.join(h.key for h in record.headers)}]")
    if batch.is_control_batch:
        control_type = control_record_type(record.key)
        if control_type in (ABORT, COMMIT):  # Kafka prints a marker whatever --print-data-log says
            _, coordinator_epoch = read_end_txn_marker(batch)
            marker = "COMMIT" if control_type == COMMIT else "ABORT"
            line += f" endTxnMarker: {marker} coordinatorEpoch: {coordinator_epoch}"
    elif print_contents:
        if record.key is not None:
            line += f" key: {_text(record.key)}"
        if record.value is not None:
            line += f" payload: {_text(record.value)}"
    return line


def metadata_payload(batch: RecordBatch, record) -> str:
    """A __cluster_metadata record as Kafka's MetadataRecordSerde decoder prints it: its type, version
    and fields as JSON; a control record (the LeaderChangeMessage of a new raft leader) by its name."""
    if batch.is_control_batch:
        if control_record_type(record.key) == LEADER_CHANGE:
            return "LeaderChange: " + json.dumps(_camel(read_leader_change(record.value).to_dict()),
                                                 separators=(",", ":"))
        if control_record_type(record.key) in (KRAFT_VERSION, KRAFT_VOTERS):  # KIP-853
            name, schema = (("KRaftVersion", KRAFT_VERSION_RECORD)
                            if control_record_type(record.key) == KRAFT_VERSION
                            else ("KRaftVoters", VOTERS_RECORD))
            return f"{name}: " + json.dumps(_camel(schema.read(record.value, 0, True).to_dict()),
                                            default=_json_value,
                                            separators=(",", ":"))
        return f"Control record type {control_record_type(record.key)}"
    try:
        message = deserialize(record.value)
    except Exception as e:  # not a metadata record: say so, keep going
        return f"payload: <not a metadata record: {e}>"
    return "payload: " + json.dumps({"type": message.type.name, "version": message.version,
                                     "data": _camel(message.data.to_dict())}, default=_json_value,
                                    separators=(",", ":"))


def offsets_key_and_payload(record) -> str:
    """A __consumer_offsets record as Kafka's OffsetsMessageParser prints it
    (GroupMetadataManager.formatRecordKeyAndValue): what the key names, and the offset or the group's
    generation and assignment; `<DELETE>` for a tombstone."""
    if record.key is None:
        return " key: <no key: not a __consumer_offsets record>"
    try:
        decoded = GroupCoordinatorRecordSerde().deserialize(bytes(record.key), None)
        key = decoded.key if decoded is not None else None
        if isinstance(key, OffsetCommitKey):
            offset = GroupCoordinatorRecordSerde.read_offset_commit_value(
                None if record.value is None else bytes(record.value))
            payload = ("<DELETE>" if offset is None else f"offset={offset.offset}"
                       + (f",metadata={offset.metadata}" if offset.metadata else ""))
            partition = f"{key.topic}-{key.partition}"
            return f" key: offset_commit::group={key.group},partition={partition} payload: {payload}"
        if isinstance(key, GroupMetadataKey):
            return f" key: group_metadata::group={key.group} payload: {_group_payload(record.value)}"
        if key is not None:  # a KIP-848 consumer group's record
            schema = CONSUMER_GROUP_VALUE_SCHEMAS[key.key_type]
            payload = "<DELETE>" if record.value is None else json.dumps(
                schema.read(ByteReader(record.value, 2), CONSUMER_GROUP_VALUE_VERSION, True).to_dict(),
                default=_json_value, separators=(",", ":"))
            member = f",member={key.member_id}" if getattr(key, "member_id", None) is not None else ""
            record_type = schema.name.removesuffix("Value")
            return f" key: {record_type}::group={key.group_id}{member} payload: {payload}"
        return f" key: unknown::version={struct.unpack_from('>h', record.key)[0]}"
    except Exception as e:  # not a __consumer_offsets record: say so, keep going
        return f" key: <not a __consumer_offsets record: {e}>"


def _group_payload(value) -> str:
    group = GroupCoordinatorRecordSerde.read_group_metadata_value(None if value is None else bytes(value))
    if group is None:
        return "<DELETE>"
    members = []
    for member in group.members:
        if group.protocol_type == PROTOCOL_TYPE:
            assignment = deserialize_assignment(member.assignment) if member.assignment else None
            partitions = [f"{tp.topic}-{p}" for tp in (assignment.assigned_partitions if assignment else [])
                          for p in tp.partitions]
            has_user_data = assignment and assignment.user_data
            user_data = f":{bytes(assignment.user_data).hex().upper()}" if has_user_data else ""
            members.append(f"{member.member_id}=[{', '.join(partitions)}]{user_data}")
        else:
            members.append(f"{member.member_id}={bytes(member.assignment).hex().upper()}")
    return json.dumps({"protocolType": group.protocol_type or "", "protocol": group.protocol,
                       "generationId": group.generation, "assignment": "{" + ",".join(members) + "}"},
                      separators=(",", ":"))


def _camel(value):
    """snake_case field names back to Kafka's JSON spelling (topic_id -> topicId)."""
    if isinstance(value, dict):
        return {re.sub(r"_([a-z])", lambda m: m.group(1).upper(), k): _camel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_camel(v) for v in value]
    return value


def _json_value(value):
    if isinstance(value, uuid.UUID):  # Kafka prints a Uuid as 22 characters of URL-safe base64
        return uuid_to_string(value)
    return str(value)


# ---------------------------------------------------------------------------------- indexes

def dump_index(path: str, sanity_only: bool, verify_only: bool, out: TextIO, err: TextIO) -> int:
    base_offset = _base_offset_of(path)
    if sanity_only:
        return _sanity_check(OffsetIndex(path, base_offset), path, out, err)
    log_path = path[: -len(INDEX_FILE_SUFFIX)] + LOG_FILE_SUFFIX
    entries = [(base_offset + rel, pos) for rel, pos in _OFFSET_ENTRY.iter_unpack(_whole_entries(path, 8))]
    if not entries:
        print(f"{path} is empty.", file=out)
        return 0
    batch_at = {position: batch
                for position, batch in batches_in_file(log_path)} if os.path.exists(log_path) else {}
    mismatches = []
    for offset, position in entries:
        batch = batch_at.get(position)
        # Our entries hold the base offset of the batch they point at (Kafka's hold its last offset).
        if batch is None or batch.base_offset != offset:
            mismatches.append((offset, batch.base_offset if batch else -1))
        if not verify_only:
            print(f"offset: {offset} position: {position}", file=out)
    if mismatches:
        print(f"Mismatches in :{os.path.abspath(path)}", file=err)
        for index_offset, log_offset in mismatches:
            print(f"  Index offset: {index_offset}, log offset: {log_offset}", file=err)
    return 1 if mismatches else 0


def dump_time_index(path: str, sanity_only: bool, verify_only: bool, out: TextIO, err: TextIO) -> int:
    base_offset = _base_offset_of(path)
    if sanity_only:
        return _sanity_check(TimeIndex(path, base_offset), path, out, err)
    log_path = path[: -len(TIME_INDEX_FILE_SUFFIX)] + LOG_FILE_SUFFIX
    batches = [batch for _, batch in batches_in_file(log_path)] if os.path.exists(log_path) else []
    errors = []
    previous = -1
    for timestamp, relative in _TIME_ENTRY.iter_unpack(_whole_entries(path, 12)):
        offset = base_offset + relative
        batch = next((b for b in batches if b.last_offset >= offset), None)
        if batch is None or batch.last_offset != offset:
            errors.append(f"  Indexed offset: {offset}, found log offset: "
                          f"{batch.last_offset if batch else -1}")
        elif batch.max_timestamp != timestamp:
            errors.append(f"  Index timestamp: {timestamp}, log timestamp: {batch.max_timestamp}")
        if previous >= timestamp:
            errors.append(f"  Index timestamp: {timestamp}, Previously indexed timestamp: {previous}")
        previous = timestamp
        if not verify_only:
            print(f"timestamp: {timestamp} offset: {offset}", file=out)
    if errors:
        print(f"Found timestamp mismatch in :{os.path.abspath(path)}", file=err)
        print("\n".join(errors), file=err)
    return 1 if errors else 0


def _sanity_check(index: OffsetIndex | TimeIndex, path: str, out: TextIO, err: TextIO) -> int:
    try:
        index.sanity_check()
    except CorruptIndexError as error:
        print(str(error), file=err)
        return 1
    finally:
        index.close()
    print(f"{path} passed sanity check.", file=out)
    return 0


# ---------------------------------------------------------------------------------- .snapshot

def dump_producer_id_snapshot(path: str, out: TextIO, err: TextIO) -> int:
    """Each producer of a snapshot as Kafka's dumpProducerIdSnapshot prints it (a snapshot keeps
    only a producer's last batch; a producer whose epoch was bumped may have none)."""
    try:
        entries = read_snapshot(path)
    except CorruptSnapshotError as error:
        print(str(error), file=err)
        return 1
    for entry in entries:
        txn = ("OptionalLong.empty" if entry.current_txn_first_offset is None
               else f"OptionalLong[{entry.current_txn_first_offset}]")
        line = (f"producerId: {entry.producer_id} producerEpoch: {entry.producer_epoch} "
                f"coordinatorEpoch: {entry.coordinator_epoch} currentTxnFirstOffset: {txn} "
                f"lastTimestamp: {entry.last_timestamp} ")
        if entry.batch_metadata:
            batch = entry.batch_metadata[0]
            line += (f"firstSequence: {batch.first_seq} lastSequence: {batch.last_seq} "
                     f"lastOffset: {batch.last_offset} offsetDelta: {batch.offset_delta} timestamp: "
                     f"{batch.timestamp}")
        print(line, file=out)
    return 0


# ---------------------------------------------------------------------------------- .txnindex

def dump_txn_index(path: str, out: TextIO) -> None:
    """Each aborted transaction of a `.txnindex`, as Kafka's dumpTxnIndex prints it."""
    with open(path, "rb") as file:
        entries = read_entries(file.read())
    for txn in entries:
        print(f"version: {txn.version} producerId: {txn.producer_id} firstOffset: {txn.first_offset} "
              f"lastOffset: {txn.last_offset} lastStableOffset: {txn.last_stable_offset}", file=out)


# ---------------------------------------------------------------------------------- helpers

def _whole_entries(path: str, entry_size: int) -> bytes:
    with open(path, "rb") as file:
        data = file.read()
    return data[: len(data) - len(data) % entry_size]


def _base_offset_of(path: str) -> int:
    return int(os.path.basename(path).split(".", 1)[0])


def _timestamp_type(batch: RecordBatch) -> str:
    return "LogAppendTime" if batch.is_log_append_time else "CreateTime"


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _size(value: bytes | None) -> int:
    return -1 if value is None else len(value)


def _text(value: bytes) -> str:
    return value.decode("utf-8", errors="replace")


def run() -> int:
    """The console script: like Kafka's tool, piping into `head` ends quietly."""
    try:
        return main()
    except BrokenPipeError:
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(run())
