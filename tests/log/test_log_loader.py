"""Crash recovery: what LogLoader does with the files a crash leaves behind."""

import os

from kafka.log.log_config import LogConfig
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.record_batch import build_batch, iter_batches
from kafka.utils.time import MockTime

CONFIG = LogConfig(segment_bytes=1000, index_interval_bytes=100)


def open_log(path, **kwargs):
    return UnifiedLog(str(path), "t", 0, CONFIG, MockTime(), **kwargs)


def fill(path, count=60):
    log = open_log(path)
    for i in range(count):
        log.append_as_leader(build_batch([(b"k", b"value-%03d" % i)], timestamp=1000 + i))
    log.close()
    return sorted(name for name in os.listdir(path) if name.endswith(".log"))


def values(log):
    return [r.value for b in iter_batches(log.read(log.log_start_offset, 10**7).records) for r in b]


def test_unclean_start_cuts_a_torn_tail_of_the_active_segment(tmp_path):
    path = tmp_path / "t-0"
    names = fill(path)
    active = path / names[-1]
    good_size = active.stat().st_size
    with open(active, "ab") as file:
        file.write(active.read_bytes()[:30])  # half of a batch header
    log = open_log(path, had_clean_shutdown=False, recovery_point=0)
    assert active.stat().st_size == good_size
    assert log.log_end_offset == 60 and values(log)[-1] == b"value-059"


def test_a_corrupt_batch_truncates_there_and_drops_every_later_segment(tmp_path):
    path = tmp_path / "t-0"
    names = fill(path)
    assert len(names) >= 4
    victim = path / names[1]
    data = bytearray(victim.read_bytes())
    data[-3] ^= 0xFF  # flip a bit inside the last batch's records: its CRC no longer matches
    victim.write_bytes(bytes(data))
    log = open_log(path, had_clean_shutdown=False, recovery_point=0)
    remaining = sorted(name for name in os.listdir(path) if name.endswith(".log"))
    assert remaining == names[:2], "segments after the corruption are gone"
    assert values(log) == [b"value-%03d" % i for i in range(log.log_end_offset)]
    appended = log.append_as_leader(build_batch([(b"k", b"new")]))
    assert appended.first_offset == log.log_end_offset - 1


def test_segments_below_the_recovery_point_are_trusted(tmp_path):
    path = tmp_path / "t-0"
    names = fill(path)
    first = path / names[0]
    data = bytearray(first.read_bytes())
    data[-3] ^= 0xFF  # corrupt, but below the recovery point: recovery does not look at it
    first.write_bytes(bytes(data))
    last_base = int(names[-1].split(".")[0])
    log = open_log(path, had_clean_shutdown=False, recovery_point=last_base)
    assert log.num_segments == len(names) and log.log_end_offset == 60


def test_missing_or_corrupt_indexes_are_rebuilt(tmp_path):
    path = tmp_path / "t-0"
    names = fill(path)
    index = path / names[0].replace(".log", ".index")
    entries = index.read_bytes()
    index.unlink()
    (path / names[1].replace(".log", ".timeindex")).write_bytes(b"\x01\x02\x03")
    log = open_log(path)  # even after a clean shutdown
    assert index.read_bytes() == entries
    assert (path / names[1].replace(".log", ".timeindex")).stat().st_size % 12 == 0
    assert len(values(log)) == 60


def test_leftovers_of_deletion_and_compaction(tmp_path):
    path = tmp_path / "t-0"
    names = fill(path)
    base = names[1].split(".")[0]
    # A finished .swap replaces its segment; .cleaned and .deleted files are dropped.
    original = (path / names[1]).read_bytes()
    (path / f"{base}.log.swap").write_bytes(original)
    (path / f"{base}.log.cleaned").write_bytes(b"half-written")
    (path / f"{names[2]}.deleted").write_bytes(b"old")
    log = open_log(path)
    assert not [n for n in os.listdir(path) if n.endswith((".swap", ".cleaned", ".deleted"))]
    assert (path / names[1]).read_bytes() == original
    assert len(values(log)) == 60
