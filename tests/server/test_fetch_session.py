"""FetchSessionCache and FetchManager (KIP-227) on a mock clock: which context a request gets,
what an incremental response leaves out, and which session a full cache gives up."""

from __future__ import annotations

import random
from collections import OrderedDict

from kafka.protocol.errors import Errors
from kafka.server.fetch_manager import (
    FetchManager,
    FullFetchContext,
    IncrementalFetchContext,
    SessionErrorContext,
    SessionlessFetchContext,
)
from kafka.server.fetch_partition_data import FetchPartitionData, FetchPartitionInfo
from kafka.server.fetch_session import INVALID_SESSION_ID, CachedPartition, FetchSessionCache
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition

A0, A1, B0 = TopicPartition("a", 0), TopicPartition("a", 1), TopicPartition("b", 0)


def manager(slots: int = 10) -> tuple[FetchManager, MockTime]:
    time = MockTime()
    return FetchManager(time, FetchSessionCache(slots, rng=random.Random(7))), time


def infos(**offsets: int) -> dict[TopicPartition, FetchPartitionInfo]:
    names = {"a0": A0, "a1": A1, "b0": B0}
    return {names[k]: FetchPartitionInfo(v, 1024) for k, v in offsets.items()}


def data(hw: int, records: bytes = b"", error: Errors = Errors.NONE) -> FetchPartitionData:
    return FetchPartitionData(error, high_watermark=hw, log_start_offset=0, last_stable_offset=hw,
                              records=records)


def open_session(fm: FetchManager, **offsets: int) -> int:
    context = fm.new_context(0, 0, infos(**offsets), [], is_from_follower=False)
    assert isinstance(context, FullFetchContext)
    answer = context.update_and_generate_response_data([(tp, data(5)) for tp, _ in context.fetch_data()])
    assert answer.session_id != INVALID_SESSION_ID
    return answer.session_id


def test_epoch_minus_one_is_sessionless_and_remembers_nothing():
    fm, _ = manager()
    context = fm.new_context(0, -1, infos(a0=0), [], is_from_follower=False)
    assert isinstance(context, SessionlessFetchContext)
    answer = context.update_and_generate_response_data([(A0, data(5))])
    assert (answer.session_id, len(answer.partitions), fm.cache.size) == (0, 1, 0)


def test_an_incremental_fetch_reads_every_partition_and_answers_only_what_changed():
    fm, _ = manager()
    session_id = open_session(fm, a0=0, a1=0, b0=0)
    context = fm.new_context(session_id, 1, {}, [], is_from_follower=False)  # names nothing: nothing moved
    assert isinstance(context, IncrementalFetchContext)
    assert [tp for tp, _ in context.fetch_data()] == [A0, A1, B0]  # read at the remembered offsets
    answer = context.update_and_generate_response_data([(A0, data(5)), (A1, data(6, b"x" * 10)),
                                                        (B0, data(5))])
    assert [tp for tp, _ in answer.partitions] == [A1]  # new records: the others have no news
    assert answer.session_id == session_id


def test_a_changed_high_watermark_or_an_error_is_news_and_an_error_is_sent_again_once_cleared():
    fm, _ = manager()
    session_id = open_session(fm, a0=0, a1=0)
    answer = fm.new_context(session_id, 1, {}, [], False).update_and_generate_response_data(
        [(A0, data(9)), (A1, data(-1, error=Errors.NOT_LEADER_OR_FOLLOWER))])
    assert [tp for tp, _ in answer.partitions] == [A0, A1]
    answer = fm.new_context(session_id, 2, {}, [], False).update_and_generate_response_data(
        [(A0, data(9)), (A1, data(5))])
    assert [tp for tp, _ in answer.partitions] == [A1]  # hw 5 was known before the error, but is sent again


def test_new_offsets_are_remembered_forgotten_partitions_leave_and_partitions_join():
    fm, _ = manager()
    session_id = open_session(fm, a0=0, a1=0)
    context = fm.new_context(session_id, 1, infos(a0=40, b0=3), [A1], False)
    assert context.fetch_data() == [(A0, FetchPartitionInfo(40, 1024)), (B0, FetchPartitionInfo(3, 1024))]


def test_partitions_that_returned_records_go_to_the_back_of_the_line():
    fm, _ = manager()
    session_id = open_session(fm, a0=0, a1=0, b0=0)
    fm.new_context(session_id, 1, {}, [], False).update_and_generate_response_data(
        [(A0, data(6, b"x")), (A1, data(5)), (B0, data(5))])
    assert [tp for tp, _ in fm.new_context(session_id, 2, {}, [], False).fetch_data()] == [A1, B0, A0]


def test_a_wrong_epoch_or_an_unknown_session_is_an_error_that_reads_nothing():
    fm, _ = manager()
    session_id = open_session(fm, a0=0)
    for sid, epoch, error in ((session_id, 5, Errors.INVALID_FETCH_SESSION_EPOCH),
                              (session_id + 1, 1, Errors.FETCH_SESSION_ID_NOT_FOUND)):
        context = fm.new_context(sid, epoch, infos(a0=0), [], False)
        assert isinstance(context, SessionErrorContext)
        assert context.fetch_data() == []
        answer = context.update_and_generate_response_data([])
        assert (answer.error, answer.session_id, answer.partitions) == (error, 0, [])
    assert isinstance(fm.new_context(session_id, 1, {}, [], False), IncrementalFetchContext)  # still usable


def test_a_full_fetch_naming_a_session_closes_it():
    fm, _ = manager()
    session_id = open_session(fm, a0=0)
    fm.new_context(session_id, -1, infos(a0=0), [], False)
    assert fm.cache.get(session_id) is None


def test_forgetting_every_partition_ends_the_session():
    fm, _ = manager()
    session_id = open_session(fm, a0=0)
    context = fm.new_context(session_id, 1, {}, [A0], False)
    assert isinstance(context, SessionlessFetchContext)
    assert fm.cache.size == 0


def sessions(cache: FetchSessionCache, now: int, *sizes: int, privileged: bool = False) -> list[int]:
    return [cache.maybe_create_session(now, privileged, OrderedDict(
        (TopicPartition("t", i), CachedPartition(TopicPartition("t", i), 0, 1)) for i in range(size)))
        for size in sizes]


def test_a_full_cache_refuses_a_consumer_until_a_session_is_stale():
    cache = FetchSessionCache(2, eviction_ms=120_000, rng=random.Random(1))
    first, second = sessions(cache, 0, 5, 5)
    assert sessions(cache, 1_000, 50) == [INVALID_SESSION_ID]  # bigger, but the others are too young
    cache.touch(cache.get(second), 100_000)
    (third,) = sessions(cache, 121_000, 1)  # the first was last used 121 s ago: stale, whatever its size
    assert third != INVALID_SESSION_ID and cache.get(first) is None and cache.evictions == 1


def test_a_follower_may_evict_a_young_consumer_session_and_bigger_beats_smaller_once_old():
    cache = FetchSessionCache(2, eviction_ms=120_000, rng=random.Random(2))
    small, big = sessions(cache, 0, 2, 10)
    cache.touch(cache.get(small), 1_000)
    cache.touch(cache.get(big), 1_000)
    # privileged: takes the least valuable consumer's
    (follower,) = sessions(cache, 2_000, 1, privileged=True)
    assert follower != INVALID_SESSION_ID and cache.get(small) is None
    for s in (big, follower):
        cache.touch(cache.get(s), 130_000)
    assert sessions(cache, 130_500, 5) == [INVALID_SESSION_ID]  # 5 partitions are worth less than 10
    (bigger,) = sessions(cache, 130_500, 11)  # old enough and smaller than 11: the 10-partition session goes
    assert bigger != INVALID_SESSION_ID and cache.get(big) is None and cache.get(follower) is not None
