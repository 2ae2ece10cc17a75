import io

from kafka.log.log_config import LogConfig
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.record_batch import build_batch
from kafka.tools.dump_log_segments import main
from kafka.utils.time import MockTime


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    status = main(list(args), out, err)
    return status, out.getvalue(), err.getvalue()


def segment_files(tmp_path):
    log = UnifiedLog(str(tmp_path / "t-0"), "t", 0, LogConfig(index_interval_bytes=100), MockTime())
    for i in range(10):
        log.append_as_leader(build_batch([(b"key-%d" % i, b"value-%d" % i), (None, b"x")],
                                         timestamp=1000 + i))
    log.close()
    prefix = tmp_path / "t-0" / ("0" * 20)
    return f"{prefix}.log", f"{prefix}.index", f"{prefix}.timeindex"


def test_batches_and_records_like_kafkas_tool(tmp_path):
    log_file, _, _ = segment_files(tmp_path)
    status, out, _ = run("--files", log_file, "--print-data-log")
    lines = out.splitlines()
    assert status == 0 and lines[:2] == [f"Dumping {log_file}", "Log starting offset: 0"]
    assert lines[2].startswith("baseOffset: 0 lastOffset: 1 count: 2 baseSequence: -1 lastSequence: -1 "
                               "producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: "
                               "false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 "
                               "CreateTime: 1000 ")
    assert lines[2].endswith("magic: 2 compresscodec: none crc: " + lines[2].split("crc: ")[1].split()[0]
                             + " isvalid: true")
    assert lines[3] == ("| offset: 0 CreateTime: 1000 keySize: 5 valueSize: 7 sequence: -1 headerKeys: [] "
                        "key: key-0 payload: value-0")
    assert lines[4] == ("| offset: 1 CreateTime: 1000 keySize: -1 valueSize: 1 sequence: -1 headerKeys: [] "
                        "payload: x")


def test_trailing_garbage_is_reported(tmp_path):
    log_file, _, _ = segment_files(tmp_path)
    with open(log_file, "ab") as file:
        file.write(b"\x00" * 20)
    status, out, _ = run("--files", log_file)
    assert "Found 20 invalid bytes at the end of 00000000000000000000.log" in out


def test_index_entries_are_listed_and_checked(tmp_path):
    _, index, time_index = segment_files(tmp_path)
    status, out, err = run("--files", f"{index},{time_index}")
    assert status == 0, err
    assert "offset: 4 position: " in out and "timestamp: 1009 offset: 19" in out, out
    status, out, _ = run("--files", index, "--index-sanity-check")
    assert status == 0 and f"{index} passed sanity check." in out
    with open(index, "ab") as file:
        file.write(b"\x00\x00\x00")
    status, _, err = run("--files", index, "--index-sanity-check")
    assert status == 1 and "torn" in err


def test_a_producer_snapshot_is_printed_like_kafkas_tool(tmp_path):
    time = MockTime()
    log = UnifiedLog(str(tmp_path / "t-0"), "t", 0, LogConfig(), time)
    log.append_as_leader(build_batch([(None, b"x")]))  # not idempotent: not in the snapshot
    log.append_as_leader(build_batch([(None, b"a"), (None, b"b"), (None, b"c")], timestamp=1234,
                                     producer_id=77, producer_epoch=2, base_sequence=10))
    log.close()  # a clean close snapshots the producers at the log end offset
    snapshot = str(tmp_path / "t-0" / "00000000000000000004.snapshot")
    status, out, err = run("--files", snapshot)
    assert status == 0, err
    assert out.splitlines() == [
        f"Dumping {snapshot}",
        "producerId: 77 producerEpoch: 2 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty "
        "lastTimestamp: 1234 firstSequence: 10 lastSequence: 12 lastOffset: 3 offsetDelta: 2 timestamp: 1234"]
    with open(snapshot, "r+b") as file:
        file.seek(12)
        file.write(b"\xff")
    status, _, err = run("--files", snapshot)
    assert status == 1 and "CRC is no longer valid" in err


def test_transaction_markers_and_the_txnindex_are_printed_like_kafkas_tool(tmp_path):
    from kafka.log.append_origin import AppendOrigin
    from kafka.protocol.control_records import end_txn_marker_batch

    log = UnifiedLog(str(tmp_path / "t-0"), "t", 0, LogConfig(), MockTime())
    log.append_as_leader(build_batch([(None, b"a")], producer_id=5, producer_epoch=0, base_sequence=0,
                                     is_transactional=True))
    log.append_as_leader(build_batch([(None, b"b")], producer_id=6, producer_epoch=0, base_sequence=0,
                                     is_transactional=True))
    log.append_as_leader(end_txn_marker_batch(5, 0, False, 3, 2000), origin=AppendOrigin.COORDINATOR)
    log.append_as_leader(end_txn_marker_batch(6, 0, True, 3, 2000), origin=AppendOrigin.COORDINATOR)
    log.close()
    prefix = tmp_path / "t-0" / ("0" * 20)
    status, out, _ = run("--files", f"{prefix}.log", "--deep-iteration")
    lines = out.splitlines()
    assert "isTransactional: true isControl: true" in lines[6]
    assert lines[7] == ("| offset: 2 CreateTime: 2000 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] "
                        "endTxnMarker: ABORT coordinatorEpoch: 3")
    assert lines[9].endswith("endTxnMarker: COMMIT coordinatorEpoch: 3")
    status, out, _ = run("--files", f"{prefix}.txnindex")
    assert status == 0 and out.splitlines()[1:] == [
        "version: 0 producerId: 5 firstOffset: 0 lastOffset: 2 lastStableOffset: 1"]


def test_consumer_offsets_records_are_decoded_like_kafkas_offsets_parser(tmp_path):
    """--offsets-decoder prints what each __consumer_offsets record is about, as Kafka's
    GroupMetadataManager.formatRecordKeyAndValue does: a committed offset, a group's generation and
    assignment, a tombstone."""
    from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
    from kafka.coordinator.group.group_coordinator_record_serde import GroupCoordinatorRecordSerde
    from kafka.coordinator.group.group_coordinator_records import GroupMetadataKey, OffsetCommitKey
    from kafka.coordinator.group.offset_and_metadata import OffsetAndMetadata
    from kafka.protocol.consumer_protocol import serialize_assignment

    serde = GroupCoordinatorRecordSerde()

    def entry(record: CoordinatorRecord) -> tuple[bytes, bytes | None]:
        return serde.serialize_key(record), serde.serialize_value(record)

    assignment = serialize_assignment(dict(assigned_partitions=[dict(topic="t", partitions=[0, 2])],
                                           user_data=None))
    group = CoordinatorRecord(GroupMetadataKey("g"), dict(
        protocol_type="consumer", generation=3, protocol="roundrobin", leader="m1", current_state_timestamp=5,
        members=[dict(member_id="m1", group_instance_id=None, client_id="c", client_host="/127.0.0.1",
                      rebalance_timeout=300000, session_timeout=45000, subscription=b"",
                      assignment=assignment)]))
    log = UnifiedLog(str(tmp_path / "__consumer_offsets-0"), "__consumer_offsets", 0, LogConfig(), MockTime())
    log.append_as_leader(build_batch([
        entry(CoordinatorRecord(OffsetCommitKey("g", "t", 1), OffsetAndMetadata(42, 0, "", 7))),
        entry(group),
        entry(CoordinatorRecord(OffsetCommitKey("g", "t", 1), None))]))
    log.close()
    status, out, _ = run("--files", str(tmp_path / "__consumer_offsets-0" / ("0" * 20 + ".log")),
                         "--offsets-decoder")
    lines = [line.split("headerKeys: [] ")[1] for line in out.splitlines() if line.startswith("|")]
    assert status == 0 and lines == [
        "key: offset_commit::group=g,partition=t-1 payload: offset=42",
        'key: group_metadata::group=g payload: {"protocolType":"consumer","protocol":"roundrobin",'
        '"generationId":3,"assignment":"{m1=[t-0, t-2]}"}',
        "key: offset_commit::group=g,partition=t-1 payload: <DELETE>"]
