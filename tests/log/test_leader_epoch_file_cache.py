"""The leader epoch cache (KIP-101): epoch -> start offset, the answer to OffsetsForLeaderEpoch, and
the leader-epoch-checkpoint file a restart reads back."""

from __future__ import annotations

import os

from kafka.log.leader_epoch_file_cache import (
    LEADER_EPOCH_CHECKPOINT_FILE,
    UNDEFINED_EPOCH,
    EpochEntry,
    LeaderEpochFileCache,
)
from kafka.log.log_config import LogConfig
from kafka.log.unified_log import UnifiedLog
from kafka.utils.time import MockTime
from tests.log.test_unified_log import batch


def cache_of(*entries):
    return LeaderEpochFileCache("t-0", None, [EpochEntry(*e) for e in entries])


def test_an_epoch_ends_where_the_next_known_epoch_starts():
    cache = cache_of((0, 0), (2, 100), (5, 150))
    assert cache.end_offset_for(0, log_end_offset=200) == (0, 100)
    assert cache.end_offset_for(2, 200) == (2, 150)
    assert cache.end_offset_for(5, 200) == (5, 200)  # the latest epoch ends at the log end
    # Epoch 3 or 4 never wrote here: the largest epoch below it, ending where epoch 5 starts.
    assert cache.end_offset_for(4, 200) == (2, 150)


def test_unknown_epochs():
    cache = cache_of((3, 40), (4, 90))
    assert cache.end_offset_for(7, 120) == (UNDEFINED_EPOCH, -1)  # newer than anything here
    assert cache.end_offset_for(1, 120) == (1, 40)  # older: it ended where our first epoch starts
    assert cache.end_offset_for(UNDEFINED_EPOCH, 120) == (UNDEFINED_EPOCH, -1)
    assert cache_of().end_offset_for(0, 0) == (UNDEFINED_EPOCH, -1)


def test_assign_keeps_one_entry_per_epoch_and_drops_what_a_new_epoch_contradicts():
    cache = cache_of()
    cache.assign(1, 0)
    cache.assign(1, 10)  # another batch of the same epoch
    cache.assign(3, 20)
    assert cache.entries() == [(1, 0), (3, 20)]
    cache.assign(2, 15)  # a truncated tail's epoch 3 is contradicted by epoch 2 starting before it
    assert cache.entries() == [(1, 0), (2, 15)]


def test_truncation_from_either_end():
    cache = cache_of((0, 0), (1, 50), (2, 80))
    cache.truncate_from_end(60)
    assert cache.entries() == [(0, 0), (1, 50)]
    cache.truncate_from_start(55)
    assert cache.entries() == [(1, 55)]


def test_the_log_keeps_its_epochs_in_the_checkpoint_across_a_restart(tmp_path):
    config = LogConfig()
    log = UnifiedLog(str(tmp_path / "t-0"), "t", 0, config, MockTime())
    log.append_as_leader(batch(3), leader_epoch=0)
    log.maybe_assign_epoch_start_offset(4, log.log_end_offset)  # elected leader in epoch 4 at offset 3
    log.append_as_leader(batch(2), leader_epoch=4)
    log.close()
    text = (tmp_path / "t-0" / LEADER_EPOCH_CHECKPOINT_FILE).read_text()
    assert text == "0\n2\n0 0\n4 3\n"
    reopened = UnifiedLog(str(tmp_path / "t-0"), "t", 0, config, MockTime())
    assert reopened.end_offset_for_epoch(0) == (0, 3)
    assert reopened.end_offset_for_epoch(4) == (4, 5)


def test_without_a_checkpoint_the_epochs_are_read_back_from_the_batches(tmp_path):
    config = LogConfig()
    log = UnifiedLog(str(tmp_path / "t-0"), "t", 0, config, MockTime())
    log.append_as_leader(batch(2), leader_epoch=1)
    log.append_as_leader(batch(2), leader_epoch=3)
    log.close()
    os.remove(tmp_path / "t-0" / LEADER_EPOCH_CHECKPOINT_FILE)
    reopened = UnifiedLog(str(tmp_path / "t-0"), "t", 0, config, MockTime())
    assert reopened.leader_epoch_cache.entries() == [(1, 0), (3, 2)]


def test_truncating_the_log_truncates_its_epochs(tmp_path):
    log = UnifiedLog(str(tmp_path / "t-0"), "t", 0, LogConfig(), MockTime())
    log.append_as_leader(batch(2), leader_epoch=1)
    log.append_as_leader(batch(2), leader_epoch=2)  # the unreplicated tail of a deposed leader
    log.truncate_to(2)
    assert log.latest_epoch == 1
    assert log.end_offset_for_epoch(1) == (1, 2)
