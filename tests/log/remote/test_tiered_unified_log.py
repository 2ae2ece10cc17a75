"""A tiered UnifiedLog's offsets: local retention deletes only what was copied and moves the local log start
offset, the log start offset is kept across a restart (the log begins in remote storage), and a log whose
topic turns out not to be tiered is moved up to its first local segment."""

from __future__ import annotations

from kafka.log.log_config import LogConfig
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.record_batch import build_batch
from kafka.utils.time import MockTime

TIERED = LogConfig(segment_bytes=700, remote_storage_enable=True, local_retention_bytes=1)


def tiered_log(tmp_path, time, config=TIERED, log_start_offset=0, system=True) -> UnifiedLog:
    return UnifiedLog(str(tmp_path / "t-0"), "t", 0, config, time, log_start_offset=log_start_offset,
                      remote_storage_system_enable=system)


def filled(tmp_path, time) -> UnifiedLog:
    log = tiered_log(tmp_path, time)
    for _ in range(30):
        log.append_as_leader(build_batch([(b"k", b"v" * 100)], timestamp=time.milliseconds()))
    log.update_high_watermark(log.log_end_offset)
    return log


def test_local_retention_deletes_only_copied_segments(tmp_path):
    log = filled(tmp_path, MockTime())
    assert log.remote_log_enabled
    assert log.delete_old_segments() == 0, "nothing copied: nothing deleted"
    copied_up_to = log.segments[3].base_offset - 1
    log.update_highest_offset_in_remote_storage(copied_up_to)
    assert log.delete_old_segments() == 3
    assert log.local_log_start_offset == copied_up_to + 1 and log.log_start_offset == 0


def test_a_tiered_log_keeps_its_start_offset_across_a_restart(tmp_path):
    time = MockTime()
    log = filled(tmp_path, time)
    log.update_highest_offset_in_remote_storage(log.segments[3].base_offset - 1)
    log.delete_old_segments()
    local_start = log.local_log_start_offset
    log.close()
    again = tiered_log(tmp_path, time, log_start_offset=0)
    assert (again.log_start_offset, again.local_log_start_offset) == (0, local_start)
    again.update_config(LogConfig(segment_bytes=700))  # the topic is not tiered after all
    assert again.log_start_offset == local_start
    again.close()


def test_remote_retention_moves_the_log_start_offset_and_local_follows(tmp_path):
    log = filled(tmp_path, MockTime())
    log.update_log_start_offset_from_remote_tier(log.segments[2].base_offset)
    assert log.log_start_offset == log.local_log_start_offset == log.segments[2].base_offset
    assert log.delete_old_segments() == 2, "the segments below the new start go, copied or not"


def test_without_the_remote_storage_system_a_log_is_not_tiered(tmp_path):
    log = tiered_log(tmp_path, MockTime(), system=False)
    assert not log.remote_log_enabled
    log.update_highest_offset_in_remote_storage(10)
    assert log.highest_offset_in_remote_storage == -1
    compacted = UnifiedLog(str(tmp_path / "c-0"), "c", 0, LogConfig(remote_storage_enable=True,
                                                                   cleanup_policy="compact"),
                           MockTime(), remote_storage_system_enable=True)
    assert not compacted.remote_log_enabled
    internal = UnifiedLog(str(tmp_path / "__consumer_offsets-0"), "__consumer_offsets", 0, TIERED, MockTime(),
                          remote_storage_system_enable=True)
    assert not internal.remote_log_enabled
