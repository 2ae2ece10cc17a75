"""Compaction: the Cleaner keeps the latest record per key, never changes offsets, keeps tombstones
until their delete horizon, and swaps cleaned segments in."""

import os

from kafka.log.log_cleaner import DELETE_HORIZON_FLAG, CleanerConfig, LogCleaner, encode_retained_batch
from kafka.log.log_config import LogConfig
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.compression import CompressionType
from kafka.protocol.record_batch import RecordBatch, build_batch, iter_batches
from kafka.utils.time import MockTime


def compacted_log(tmp_path, time, count=300, keys=10):
    config = LogConfig(cleanup_policy="compact", segment_bytes=2000, delete_retention_ms=1000,
                       min_cleanable_dirty_ratio=0.5)
    log = UnifiedLog(str(tmp_path / "t-0"), "t", 0, config, time)
    for i in range(count):
        value = None if i == count - 5 else b"v%d" % i  # one tombstone near the end
        log.append_as_leader(build_batch([(b"k%d" % (i % keys), value)], timestamp=time.milliseconds()))
        time.advance(1)
    log.roll()
    log.update_high_watermark(log.log_end_offset)
    return log


def records(log):
    return [(r.offset, r.key, r.value) for b in iter_batches(log.read(0, 10**7).records) for r in b]


def test_cleaning_keeps_the_latest_record_per_key_at_its_offset(tmp_path):
    time = MockTime()
    log = compacted_log(tmp_path, time)
    cleaner = LogCleaner(CleanerConfig(), [str(tmp_path)], lambda: [log], time)
    assert cleaner.try_clean_filthiest_log()
    kept = records(log)
    assert [offset for offset, _, _ in kept] == list(range(290, 300))
    assert (295, b"k5", None) in kept, "the tombstone stays until its delete horizon"
    assert log.log_end_offset == 300
    checkpoint = (tmp_path / "cleaner-offset-checkpoint").read_text()
    assert checkpoint == "0\n1\nt 0 300\n"
    assert not cleaner.try_clean_filthiest_log(), "nothing dirty, horizon not reached"

    time.advance(1001)
    assert cleaner.try_clean_filthiest_log(), "a passed delete horizon is a reason to clean again"
    assert [offset for offset, _, _ in records(log)] == [290, 291, 292, 293, 294, 296, 297, 298, 299]
    assert not [n for n in os.listdir(log.dir) if n.endswith((".cleaned", ".swap"))]


def test_below_the_dirty_ratio_nothing_is_cleaned(tmp_path):
    time = MockTime()
    log = compacted_log(tmp_path, time)
    cleaner = LogCleaner(CleanerConfig(), [str(tmp_path)], lambda: [log], time)
    cleaner.try_clean_filthiest_log()
    for i in range(3):
        log.append_as_leader(build_batch([(b"k1", b"again-%d" % i)], timestamp=time.milliseconds()))
    log.roll()
    log.update_high_watermark(log.log_end_offset)
    assert not cleaner.try_clean_filthiest_log(), "a little dirt on a clean log: ratio below 0.5"
    assert cleaner.try_clean_filthiest_log(force=True)
    assert [v for _, k, v in records(log) if k == b"k1"] == [b"again-2"]


def test_a_retained_batch_keeps_its_offsets_codec_and_a_valid_crc():
    original = RecordBatch(build_batch([(b"a", b"1"), (b"b", None), (b"a", b"3")], base_offset=100,
                                       timestamp=5000, compression=CompressionType.GZIP))
    kept = [r for r in original if r.offset != 102]
    rebuilt = RecordBatch(encode_retained_batch(original, kept, delete_horizon_ms=9000))
    rebuilt.ensure_valid()
    assert (rebuilt.base_offset, rebuilt.last_offset, rebuilt.records_count) == (100, 102, 2)
    assert rebuilt.compression_type == CompressionType.GZIP
    assert rebuilt.attributes & DELETE_HORIZON_FLAG and rebuilt.base_timestamp == 9000
    assert [(r.offset, r.key, r.value, r.timestamp) for r in rebuilt] == [(100, b"a", b"1", 5000),
                                                                          (101, b"b", None, 5000)]
