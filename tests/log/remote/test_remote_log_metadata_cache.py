"""RemoteLogMetadataCache: a partition's remote segments by leader epoch and offset, moving only forward
through COPY_SEGMENT_STARTED -> COPY_SEGMENT_FINISHED -> DELETE_SEGMENT_STARTED -> DELETE_SEGMENT_FINISHED."""

import uuid

import pytest

from kafka.log.remote.remote_log_metadata_cache import RemoteLogMetadataCache
from kafka.log.remote.remote_log_segment_metadata import (
    RemoteLogSegmentId,
    RemoteLogSegmentMetadata,
    RemoteLogSegmentMetadataUpdate,
    RemoteLogSegmentState,
)
from kafka.log.remote.remote_storage_manager import RemoteResourceNotFoundException
from kafka.utils.topic_id_partition import TopicIdPartition

S = RemoteLogSegmentState
PARTITION = TopicIdPartition(uuid.uuid4(), "t", 0)


def segment(start, end, epochs, txn_index_empty=True):
    return RemoteLogSegmentMetadata(RemoteLogSegmentId.generate_new(PARTITION), start, end, 0, 1, 0,
                                    (end - start + 1) * 10, epochs, txn_index_empty=txn_index_empty)


def move(cache, md, state):
    cache.update_remote_log_segment_metadata(
        RemoteLogSegmentMetadataUpdate(md.remote_log_segment_id, 0, None, state, 1))


def copied(cache, md):
    cache.add_copy_in_progress_segment(md)
    move(cache, md, S.COPY_SEGMENT_FINISHED)
    return md


def test_a_segment_is_readable_only_once_its_copy_finished():
    cache = RemoteLogMetadataCache()
    cache.mark_initialized()
    md = segment(0, 99, {0: 0})
    cache.add_copy_in_progress_segment(md)
    assert cache.remote_log_segment_metadata(0, 50) is None
    assert cache.highest_offset_for_epoch(0) is None
    assert cache.list_all_remote_log_segments() == [md], "listed (so it can be cleaned up), not readable"
    move(cache, md, S.COPY_SEGMENT_FINISHED)
    found = cache.remote_log_segment_metadata(0, 50)
    assert found.remote_log_segment_id == md.remote_log_segment_id and found.state is S.COPY_SEGMENT_FINISHED
    assert cache.highest_offset_for_epoch(0) == 99
    assert cache.remote_log_segment_metadata(0, 100) is None


def test_segments_are_found_by_leader_epoch_and_offset():
    cache = RemoteLogMetadataCache()
    first = copied(cache, segment(0, 99, {0: 0}))
    second = copied(cache, segment(100, 199, {0: 100, 1: 150}))
    third = copied(cache, segment(200, 299, {1: 200, 3: 250}))
    assert cache.remote_log_segment_metadata(0, 120).remote_log_segment_id == second.remote_log_segment_id
    assert cache.remote_log_segment_metadata(0, 160) is None, "offset 160 was written in epoch 1"
    assert cache.remote_log_segment_metadata(1, 160).remote_log_segment_id == second.remote_log_segment_id
    assert cache.remote_log_segment_metadata(1, 220).remote_log_segment_id == third.remote_log_segment_id
    assert cache.remote_log_segment_metadata(2, 220) is None
    assert (cache.highest_offset_for_epoch(0), cache.highest_offset_for_epoch(1),
            cache.highest_offset_for_epoch(3)) == (149, 249, 299)
    assert [m.start_offset for m in cache.list_remote_log_segments(1)] == [100, 200]
    assert [m.start_offset for m in cache.list_all_remote_log_segments()] == [0, 100, 200]
    assert cache.list_remote_log_segments(7) == []
    assert first.remote_log_segment_id in {m.remote_log_segment_id for m in cache.list_remote_log_segments(0)}


def test_deletion_unindexes_at_once_and_forgets_when_finished():
    cache = RemoteLogMetadataCache()
    cache.mark_initialized()
    md = copied(cache, segment(0, 99, {0: 0}))
    move(cache, md, S.DELETE_SEGMENT_STARTED)
    assert cache.remote_log_segment_metadata(0, 10) is None
    listed = [m.state for m in cache.list_remote_log_segments(0)]
    assert listed == [S.DELETE_SEGMENT_STARTED], "a retry sees it"
    assert cache.highest_offset_for_epoch(0) == 99, "what was copied stays the copier's high mark"
    move(cache, md, S.DELETE_SEGMENT_FINISHED)
    assert cache.list_all_remote_log_segments() == [] and cache.list_remote_log_segments(0) == []
    assert cache.segment_state(md.remote_log_segment_id) is None
    with pytest.raises(RemoteResourceNotFoundException):
        move(cache, md, S.DELETE_SEGMENT_FINISHED)


def test_forbidden_transitions_are_dropped():
    cache = RemoteLogMetadataCache()
    md = segment(0, 99, {0: 0})
    cache.add_copy_in_progress_segment(md)
    cache.add_copy_in_progress_segment(md)  # a replayed event: still COPY_SEGMENT_STARTED, once
    move(cache, md, S.COPY_SEGMENT_FINISHED)
    move(cache, md, S.COPY_SEGMENT_FINISHED)  # again: dropped
    move(cache, md, S.DELETE_SEGMENT_FINISHED)  # skipping DELETE_SEGMENT_STARTED: dropped
    assert cache.segment_state(md.remote_log_segment_id) is S.COPY_SEGMENT_FINISHED
    with pytest.raises(ValueError):
        cache.add_copy_in_progress_segment(
            RemoteLogSegmentMetadata(md.remote_log_segment_id, 0, 9, 0, 1, 0, 10, {0: 0},
                                     state=S.COPY_SEGMENT_FINISHED))


def test_an_abandoned_copy_may_be_deleted():
    cache = RemoteLogMetadataCache()
    md = segment(0, 99, {0: 0})
    cache.add_copy_in_progress_segment(md)
    move(cache, md, S.DELETE_SEGMENT_STARTED)
    move(cache, md, S.DELETE_SEGMENT_FINISHED)
    assert cache.list_all_remote_log_segments() == []


def test_updates_of_unknown_segments_before_initialization_are_dropped():
    cache = RemoteLogMetadataCache()
    md = segment(0, 99, {0: 0})
    move(cache, md, S.COPY_SEGMENT_FINISHED)  # its add was before the snapshot read back: nothing to do
    assert cache.list_all_remote_log_segments() == []
    assert not cache.is_initialized() and not cache.await_initialized(0)
    cache.mark_initialized()
    assert cache.is_initialized()


def test_a_new_leaders_larger_copy_supersedes_the_old_leaders_copies():
    cache = RemoteLogMetadataCache()
    old = copied(cache, segment(0, 100, {0: 0}))
    newer = copied(cache, segment(0, 200, {0: 0}))  # the next leader copied a superset of epoch 0
    assert cache.remote_log_segment_metadata(0, 50).remote_log_segment_id == newer.remote_log_segment_id
    assert cache.highest_offset_for_epoch(0) == 200
    listed = {m.remote_log_segment_id for m in cache.list_remote_log_segments(0)}
    assert listed == {old.remote_log_segment_id, newer.remote_log_segment_id}, "unreferenced, to be expired"


def test_next_segment_with_txn_index_skips_segments_without_aborted_transactions():
    cache = RemoteLogMetadataCache()
    copied(cache, segment(0, 99, {0: 0}))
    with_txn = copied(cache, segment(100, 199, {0: 100}, txn_index_empty=False))
    assert cache.next_segment_with_txn_index(0, 5).remote_log_segment_id == with_txn.remote_log_segment_id
    assert cache.next_segment_with_txn_index(0, 250) is None
