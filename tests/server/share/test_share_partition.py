"""SharePartition through the SharePartitionManager, over a real ReplicaManager and MockTime: the life
of a record (acquired, acknowledged, released, timed out, archived) and the share-partition start
offset moving past what is done."""

from __future__ import annotations

from kafka.protocol.errors import Errors
from kafka.server.share.record_state import RecordState
from kafka.server.share.share_acknowledgement_batch import ShareAcknowledgementBatch
from tests.server.share.conftest import GROUP, TIP
from tests.server.share.helpers import ACCEPT, REJECT, RELEASE, RENEW, acknowledge, acquired, states, window


def test_acquire_then_accept_moves_the_start_offset_past_the_records(env):
    env.produce(b"a", b"b", b"c")
    assert acquired(env, "m1") == [(0, 2, 1)]
    assert states(env) == [(0, 2, "ACQUIRED", 1)]
    assert acknowledge(env, "m1", 0, 2, ACCEPT) == (Errors.NONE, None)
    assert window(env) == (3, 3) and states(env) == [], "all done: the window is empty and starts after them"
    # As in Kafka, a write carries the start offset of before the change; the next write carries the new one.
    [(_, start, [written])] = env.persister.writes
    assert (start, written.first_offset, written.last_offset, written.delivery_state) == (0, 0, 2, 2)


def test_each_write_counts_the_records_done_with_past_its_start_offset(env):
    """KIP-1226: a write carries how many records from its start offset on are ACKNOWLEDGED or ARCHIVED,
    the change being written counted, so that DescribeShareGroupOffsets can tell the lag (Apache Kafka
    4.4 writes it; without it the lag is -1, unknown)."""
    env.produce(b"a", b"b", b"c", b"d")
    acquired(env, "m1")
    assert acknowledge(env, "m1", 0, 3, ACCEPT, RELEASE, REJECT, ACCEPT)[0] == Errors.NONE
    assert env.persister.delivery_complete_counts == [3], "written from start offset 0: 0, 2 and 3"
    assert window(env)[0] == 1
    assert acquired(env, "m2") == [(1, 1, 2)]
    assert acknowledge(env, "m2", 1, 1, ACCEPT)[0] == Errors.NONE
    assert env.persister.delivery_complete_counts == [3, 3], "written from start offset 1: 1, 2 and 3"
    assert window(env) == (4, 4)


def test_two_members_never_hold_the_same_record(env):
    env.produce(b"a", b"b", b"c")
    assert acquired(env, "m1") == [(0, 2, 1)]
    assert acquired(env, "m2") == [], "everything is locked by m1"
    env.produce(b"d")
    assert acquired(env, "m2") == [(3, 3, 1)], "m2 gets only what nobody holds"
    error, _ = acknowledge(env, "m2", 0, 2, ACCEPT)
    assert error == Errors.INVALID_RECORD_STATE, "m2 cannot acknowledge m1's records"


def test_a_released_record_is_delivered_again_with_its_delivery_count(env):
    env.produce(b"a", b"b", b"c")
    acquired(env, "m1")
    assert acknowledge(env, "m1", 0, 2, RELEASE)[0] == Errors.NONE
    assert states(env) == [(0, 2, "AVAILABLE", 1)]
    assert acquired(env, "m2") == [(0, 2, 2)]


def test_per_offset_acknowledgements_split_the_batch(env):
    env.produce(b"a", b"b", b"c", b"d")
    acquired(env, "m1")
    assert acknowledge(env, "m1", 0, 3, ACCEPT, REJECT, RELEASE, ACCEPT)[0] == Errors.NONE
    assert states(env) == [(0, 0, "ACKNOWLEDGED", 1), (1, 1, "ARCHIVED", 1), (2, 2, "AVAILABLE", 1),
                           (3, 3, "ACKNOWLEDGED", 1)]
    assert window(env)[0] == 2, "the start offset stops at the first record still in play"
    assert acquired(env, "m2") == [(2, 2, 2)]
    assert acknowledge(env, "m2", 2, 2, ACCEPT)[0] == Errors.NONE
    assert window(env) == (4, 4) and states(env) == []


def test_the_lock_timeout_makes_the_records_available_again(env):
    env.produce(b"a", b"b")
    acquired(env, "m1")
    env.advance(29_999)
    assert states(env) == [(0, 1, "ACQUIRED", 1)]
    env.advance(1)  # group.share.record.lock.duration.ms, 30 s by default
    assert states(env) == [(0, 1, "AVAILABLE", 1)]
    assert acquired(env, "m2") == [(0, 1, 2)]
    assert acknowledge(env, "m1", 0, 1, ACCEPT)[0] == Errors.INVALID_RECORD_STATE, "m1's lock is gone"


def test_the_delivery_count_limit_archives_the_poison_record(env):
    env.group_configs["share.delivery.count.limit"] = "3"
    env.produce(b"poison")
    env.produce(b"fine")
    for delivery in (1, 2, 3):
        assert acquired(env, "m1", max_records=1) == [(0, 0, delivery)]
        acknowledge(env, "m1", 0, 0, RELEASE)
    assert window(env)[0] == 1, "after its last delivery the record is archived and the start moves past it"
    assert acquired(env, "m1") == [(1, 1, 1)]


def test_a_lock_timeout_on_the_last_delivery_archives_too(env):
    env.group_configs["share.delivery.count.limit"] = "2"
    env.produce(b"poison")
    acquired(env, "m1")
    env.advance(30_000)
    acquired(env, "m1")
    env.advance(30_000)
    assert window(env) == (1, 1) and states(env) == []


def test_reject_archives(env):
    env.produce(b"a")
    acquired(env, "m1")
    assert acknowledge(env, "m1", 0, 0, REJECT)[0] == Errors.NONE
    assert window(env) == (1, 1)
    key = env.manager.share_partition(GROUP, TIP).persister_key
    assert [(b.first_offset, b.delivery_state) for b in env.persister.state_batches(key)] == [(0,
                                                                                               RecordState.ARCHIVED)]


def test_renew_restarts_the_lock(env):
    env.produce(b"a")
    acquired(env, "m1")
    env.advance(20_000)
    assert acknowledge(env, "m1", 0, 0, RENEW)[0] == Errors.NONE
    env.advance(20_000)
    assert states(env) == [(0, 0, "ACQUIRED", 1)], "the renewed lock has 10 s left"
    env.advance(10_000)
    assert states(env) == [(0, 0, "AVAILABLE", 1)]


def test_acknowledging_offsets_never_acquired_is_refused(env):
    env.produce(b"a", b"b")
    acquired(env, "m1")
    assert acknowledge(env, "m1", 1, 5, ACCEPT)[0] == Errors.INVALID_REQUEST
    assert acknowledge(env, "m1", 0, 1, 9)[0] == Errors.INVALID_REQUEST, "an unknown acknowledge type"
    assert states(env) == [(0, 1, "ACQUIRED", 1)], "a refused acknowledgement changes nothing"


def test_max_records_is_a_soft_limit_at_batch_boundaries_and_record_limit_is_strict(env):
    env.produce(b"a", b"b", b"c")
    env.produce(b"d", b"e")
    assert acquired(env, "m1", max_records=2) == [(0, 2, 1)], "the whole first batch"
    assert acquired(env, "m2", max_records=1, acquire_mode=1) == [(3, 3, 1)], "record_limit: exactly one"
    assert acquired(env, "m3", max_records=5) == [(4, 4, 1)]


def test_the_record_lock_limit_bounds_what_is_in_flight(env):
    env.group_configs["share.partition.max.record.locks"] = "2"
    for value in (b"a", b"b", b"c"):
        env.produce(value)
    assert acquired(env, "m1") == [(0, 1, 1)]
    assert acquired(env, "m2") == [], "two records in flight: no more until they are done"
    acknowledge(env, "m1", 0, 1, ACCEPT)
    assert acquired(env, "m2") == [(2, 2, 1)]


def test_a_failed_write_rolls_the_acknowledgement_back(env):
    env.produce(b"a")
    acquired(env, "m1")
    env.persister.fail_writes_with = Errors.COORDINATOR_NOT_AVAILABLE
    assert acknowledge(env, "m1", 0, 0, ACCEPT)[0] == Errors.COORDINATOR_NOT_AVAILABLE
    assert states(env) == [(0, 0, "ACQUIRED", 1)]
    env.persister.fail_writes_with = None
    assert acknowledge(env, "m1", 0, 0, ACCEPT)[0] == Errors.NONE


def test_a_second_acknowledgement_while_the_first_is_being_written_is_refused(env):
    env.produce(b"a")
    acquired(env, "m1")
    env.persister.hold()
    first = env.manager.acknowledge("m1", GROUP, {TIP: [ShareAcknowledgementBatch(0, 0, (ACCEPT,))]})
    assert not first.done()
    assert acknowledge(env, "m1", 0, 0, ACCEPT)[0] == Errors.INVALID_RECORD_STATE
    env.persister.release()
    assert first.result()[TIP] == (Errors.NONE, None)
    assert RecordState.ACKNOWLEDGED.is_terminal and window(env) == (1, 1)


def test_latest_is_the_default_auto_offset_reset(env):
    env.produce(b"old")
    env.group_configs.clear()  # share.auto.offset.reset: latest
    assert acquired(env, "m1") == []
    env.produce(b"new")
    assert acquired(env, "m1") == [(1, 1, 1)]
