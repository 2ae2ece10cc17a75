"""The SharePartitionManager's other duties over real collaborators: the long poll (DelayedShareFetch
completed by a produce, or by its max wait), share session epochs and their errors, releasing a
closed session's records, read_committed, the state written to the persister and read back by a new
leader, and the fencing of a share partition whose leadership ended."""

from __future__ import annotations

import pytest

from kafka.log.append_origin import AppendOrigin
from kafka.metrics import metric_names as m
from kafka.protocol.control_records import end_txn_marker_batch
from kafka.protocol.errors import Errors
from kafka.server.share.share_errors import ShareError
from kafka.server.share.share_partition import SharePartitionState
from tests.server.share.conftest import GROUP, TIP, TP
from tests.server.share.helpers import ACCEPT, RELEASE, acknowledge, acquired, fetch, window


def test_a_long_poll_waits_in_the_purgatory_until_a_produce(env):
    acquired(env, "m1")  # loads the share partition at the (empty) log's start
    waiting = fetch(env, "m1", max_wait_ms=5000)
    assert not waiting.done(), "nothing to acquire: the fetch waits"
    env.produce(b"hello")
    assert waiting.done(), "the append completed the DelayedShareFetch"
    [run] = waiting.result()[TIP]["acquired_records"]
    assert (run["first_offset"], run["last_offset"]) == (0, 0)
    assert waiting.result()[TIP]["records"], "the batch holding the record comes with it"


def test_a_long_poll_answers_empty_after_its_max_wait(env):
    acquired(env, "m1")
    waiting = fetch(env, "m1", max_wait_ms=500)
    env.advance(499)
    assert not waiting.done()
    env.advance(1)
    assert waiting.done() and waiting.result()[TIP]["acquired_records"] == []


def test_a_long_poll_wakes_when_another_member_releases(env):
    env.produce(b"a")
    acquired(env, "m1")
    waiting = fetch(env, "m2", max_wait_ms=5000)
    assert not waiting.done()
    acknowledge(env, "m1", 0, 0, RELEASE)
    assert waiting.done()
    records = waiting.result()[TIP]["acquired_records"]
    assert [(r["first_offset"], r["delivery_count"]) for r in records] == [(0, 2)]


def test_share_session_epochs_and_their_errors(env):
    manager = env.manager
    context = manager.new_context(GROUP, [TIP], [], "m1", 0, False, "conn-1")
    assert context.erroneous_and_valid_partitions() == ({}, [TIP])
    with pytest.raises(ShareError) as e:
        manager.new_context(GROUP, [], [], "m1", 5, False, "conn-1")
    assert e.value.error == Errors.INVALID_SHARE_SESSION_EPOCH
    assert manager.new_context(GROUP, [], [], "m1", 1, False, "conn-1").is_subsequent
    manager.acknowledge_session_update(GROUP, "m1", 2)  # a ShareAcknowledge moves the epoch on too
    with pytest.raises(ShareError) as e:
        manager.new_context(GROUP, [], [], "m1", 2, False, "conn-1")
    assert e.value.error == Errors.INVALID_SHARE_SESSION_EPOCH, "epoch 2 was used by the ShareAcknowledge"
    manager.new_context(GROUP, [], [], "m1", 3, False, "conn-1")
    with pytest.raises(ShareError) as e:
        manager.new_context(GROUP, [], [], "nobody", 1, False, "conn-2")
    assert e.value.error == Errors.SHARE_SESSION_NOT_FOUND
    with pytest.raises(ShareError) as e:
        manager.new_context(GROUP, [TIP], [], "m2", 0, True, "conn-2")
    assert e.value.error == Errors.INVALID_REQUEST, "an opening request has nothing to acknowledge yet"
    for member in ("m2", "m3"):
        manager.new_context(GROUP, [TIP], [], member, 0, False, f"conn-{member}")
    with pytest.raises(ShareError) as e:
        manager.new_context(GROUP, [TIP], [], "m4", 0, False, "conn-4")
    assert e.value.error == Errors.SHARE_SESSION_LIMIT_REACHED, "group.share.max.share.sessions (3 here)"
    assert env.sessions.size() == 3 and env.sessions.total_partitions() == 3


def test_closing_the_session_releases_what_the_member_holds(env):
    env.produce(b"a", b"b")
    env.manager.new_context(GROUP, [TIP], [], "m1", 0, False, "conn-1")
    acquired(env, "m1")
    released = env.manager.release_session(GROUP, "m1")
    assert released.result() == {TIP: (Errors.NONE, None)}
    assert acquired(env, "m2") == [(0, 1, 2)]


def test_a_closed_connection_is_a_member_leaving(env):
    env.produce(b"a")
    env.manager.new_context(GROUP, [TIP], [], "m1", 0, False, "conn-1")
    acquired(env, "m1")
    env.sessions.on_disconnect("conn-1")
    assert env.sessions.size() == 0
    assert env.manager.share_partition(GROUP,
                                       TIP) is None, "the group's last member left: its share partitions go"
    assert acquired(env, "m2") == [(0, 0, 2)], "reloaded from the persister, the record is available again"


def test_read_committed_skips_the_records_of_aborted_transactions(env):
    env.produce(b"aborted-1", b"aborted-2", producer_id=7, producer_epoch=0, base_sequence=0,
                is_transactional=True)
    answers = []
    env.replica_manager.append_records(1000, 1, True, {TP: end_txn_marker_batch(7, 0, False, 0, 0)},
                                       answers.append,
                                       origin=AppendOrigin.COORDINATOR)
    env.produce(b"plain")
    assert acquired(env, "m1", isolation_level=1) == [(2, 3, 1)], "the marker and the plain record only"
    share_partition = env.manager.share_partition(GROUP, TIP)
    # acquired as one batch, then split to archive the aborted offsets
    [batch] = share_partition.cached_state()
    assert [s.state.name for s in batch.offset_state.values()] == ["ARCHIVED", "ARCHIVED", "ACQUIRED",
                                                                   "ACQUIRED"]
    # the client acknowledges the marker as a gap
    assert acknowledge(env, "m1", 2, 3, 0, ACCEPT)[0] == Errors.NONE
    assert window(env) == (4, 4)


def test_read_committed_stops_at_the_last_stable_offset(env):
    env.produce(b"open", producer_id=9, producer_epoch=0, base_sequence=0, is_transactional=True)
    assert acquired(env, "m1", isolation_level=1) == [], "the transaction is still open"
    assert acquired(env, "m1", isolation_level=0) == [(0, 0, 1)]


def test_the_state_is_persisted_and_a_new_leader_resumes_from_it(env):
    env.produce(b"a", b"b", b"c", b"d")
    acquired(env, "m1")
    acknowledge(env, "m1", 0, 3, ACCEPT, ACCEPT, RELEASE, 3)  # 0-1 done, 2 released, 3 rejected
    env.lead(leader_epoch=1)  # leadership moved away and came back: a new leader epoch
    assert acquired(env, "m2") == [(2, 2, 2)], "only the released record is delivered again"
    old_key = env.persister.writes[-1][0]
    assert env.persister.states[old_key]["leader_epoch"] == 1


def test_records_held_when_the_leader_changed_are_delivered_again_not_skipped(env):
    """Acquisitions are not persisted: records a member held when leadership moved leave a hole between the
    acknowledged runs the new leader reads back. It must deliver them again, and its start offset must not
    jump over them (Kafka's persisterReadResultGapWindow). Found by
    tests/cluster/test_share_groups_on_a_cluster.py: a killed leader's in-flight records were never delivered
    again, and counted as done."""
    for values in ((b"a", b"b"), (b"c", b"d"), (b"e", b"f")):
        env.produce(*values)
    assert [acquired(env, m, max_records=2) for m in ("m1", "m2", "m3")] == [[(0, 1, 1)], [(2, 3, 1)],
                                                                             [(4, 5, 1)]]
    assert acknowledge(env, "m3", 4, 5, ACCEPT)[0] == Errors.NONE  # written with start offset 0
    assert acknowledge(env, "m1", 0, 1, ACCEPT)[0] == Errors.NONE  # so is this: 0-1 and 4-5 persisted
    env.lead(leader_epoch=1)  # m2 still holds 2-3: the new leader never heard of it
    assert acquired(env, "m4") == [(2, 3, 1)], "the hole is delivered again, as new records"
    assert window(env)[0] == 2
    assert acknowledge(env, "m4", 2, 3, ACCEPT)[0] == Errors.NONE
    env.produce(b"g")
    assert acquired(env, "m4") == [(6, 6, 1)]
    assert acknowledge(env, "m4", 6, 6, ACCEPT)[0] == Errors.NONE
    assert window(env) == (7, 7)


def test_a_hole_at_the_start_of_the_state_read_back_is_delivered_first(env):
    for values in ((b"a", b"b"), (b"c", b"d")):
        env.produce(*values)
    acquired(env, "m1", max_records=2)
    acquired(env, "m2", max_records=2)
    assert acknowledge(env, "m2", 2, 3, ACCEPT)[0] == Errors.NONE  # persisted: 2-3 done; m1 holds 0-1
    env.lead(leader_epoch=1)
    assert acquired(env, "m3") == [(0, 1, 1)], "the hole first, though 2-3 come after it"
    assert acknowledge(env, "m3", 0, 1, ACCEPT)[0] == Errors.NONE
    assert acquired(env, "m3") == [], "2-3 are done"
    assert window(env)[0] == 2, "past the hole once done, no further while the window read back lasts"


def test_a_new_leader_epoch_fences_the_share_partition(env):
    env.produce(b"a")
    acquired(env, "m1")
    old = env.manager.share_partition(GROUP, TIP)
    env.lead(leader_epoch=1)
    acquired(env, "m2")
    assert old.partition_state is SharePartitionState.FENCED
    assert env.manager.share_partition(GROUP, TIP) is not old
    assert env.manager.share_partition(GROUP, TIP).leader_epoch == 1


def test_becoming_a_follower_drops_the_share_partition(env):
    from kafka.log.log_config import LogConfig
    from kafka.server.metadata_cache import PartitionState
    env.produce(b"a")
    acquired(env, "m1")
    old = env.manager.share_partition(GROUP, TIP)
    follower = PartitionState(0, leader=-1, leader_epoch=1, replicas=(1, 2), isr=(2,), partition_epoch=1)
    env.replica_manager.make_follower(TP, follower, LogConfig())
    assert env.manager.share_partition(GROUP, TIP) is None
    assert old.partition_state is SharePartitionState.FENCED
    data = fetch(env, "m1").result()[TIP]
    assert data["error_code"] == Errors.NOT_LEADER_OR_FOLLOWER
    failed = env.metrics.topic_meters[m.FAILED_SHARE_FETCH_REQUESTS]
    assert [failed.labels(topic)._value.get() for topic in ("orders", "")] == [1, 1], \
        "a failed share fetch counts for its topic and for all topics (FailedShareFetchRequestsPerSec)"


def test_metrics_count_acknowledgements_and_in_flight_records(env):
    from prometheus_client import generate_latest
    env.produce(b"a", b"b")
    acquired(env, "m1")
    acknowledge(env, "m1", 0, 1, ACCEPT)
    text = generate_latest(env.metrics.group.registry).decode()
    assert 'kafka_server_sharegroupmetrics_recordacknowledgements_total{ackType="Accept"} 2.0' in text
    assert ('kafka_server_sharepartitionmetrics_inflightmessagecount'
            '{group="g1",partition="0",topic="orders"} 0.0') in text
    assert 'kafka_server_brokertopicmetrics_totalsharefetchrequests_total{topic="orders"} 1.0' in text


def test_a_dropped_share_partition_takes_its_series_with_it(env):
    """Nothing grows without a bound: the per-partition and per-group series of a share partition this
    broker no longer holds are not exported any more."""
    from prometheus_client import generate_latest

    from kafka.server.share.share_partition_key import SharePartitionKey
    env.produce(b"a")
    acquired(env, "m1")
    env.manager.share_partition(GROUP, TIP).metrics.record_acquisition_lock_timeout(1)

    def series_of_the_group() -> list[str]:
        text = generate_latest(env.metrics.group.registry).decode()
        return [line for line in text.splitlines() if f'group="{GROUP}"' in line and not line.startswith("#")]

    assert any("fetchlocktimems" in line for line in series_of_the_group())
    assert any("topicpartitionsacquiretimems" in line for line in series_of_the_group())
    env.manager.remove_share_partition(SharePartitionKey(GROUP, TIP))
    assert series_of_the_group() == []
