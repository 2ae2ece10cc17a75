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
        log.append_as_leader(build_batch([(b"key-%d" % i, b"value-%d" % i), (None, b"x")], timestamp=1000 + i))
    log.close()
    prefix = tmp_path / "t-0" / ("0" * 20)
    return f"{prefix}.log", f"{prefix}.index", f"{prefix}.timeindex"


def test_batches_and_records_like_kafkas_tool(tmp_path):
    log_file, _, _ = segment_files(tmp_path)
    status, out, _ = run("--files", log_file, "--print-data-log")
    lines = out.splitlines()
    assert status == 0 and lines[:2] == [f"Dumping {log_file}", "Log starting offset: 0"]
    assert lines[2].startswith("baseOffset: 0 lastOffset: 1 count: 2 baseSequence: -1 lastSequence: -1 "
                               "producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false "
                               "isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1000 ")
    assert lines[2].endswith("magic: 2 compresscodec: none crc: " + lines[2].split("crc: ")[1].split()[0]
                             + " isvalid: true")
    assert lines[3] == ("| offset: 0 CreateTime: 1000 keySize: 5 valueSize: 7 sequence: -1 headerKeys: [] "
                        "key: key-0 payload: value-0")
    assert lines[4] == "| offset: 1 CreateTime: 1000 keySize: -1 valueSize: 1 sequence: -1 headerKeys: [] payload: x"


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
