"""kafka-metadata-quorum describe --status: the lag it prints is never negative (issue 45 item 5: the
split cluster printed `MaxFollowerLagTimeMs: -18`)."""

from __future__ import annotations

from kafka.clients.admin.descriptions import QuorumInfo, ReplicaState
from kafka.tools.metadata_quorum_command import max_follower_lag_time_ms, replication, status


def voter(node: int, end: int, caught_up: int) -> ReplicaState:
    return ReplicaState(replica_id=node, log_end_offset=end, last_fetch_timestamp=caught_up,
                        last_caught_up_timestamp=caught_up)


def quorum(*voters: ReplicaState) -> QuorumInfo:
    return QuorumInfo(leader_id=1, leader_epoch=3, high_watermark=100, voters=list(voters), observers=[])


def test_a_follower_that_fetched_after_the_leader_caught_up_is_not_behind():
    # the follower, listed first among the equal log ends, caught up 18 ms after the leader: the -18 of the
    # issue
    assert max_follower_lag_time_ms(quorum(voter(2, 100, 1_018), voter(1, 100, 1_000))) == 0
    assert "MaxFollowerLagTimeMs:   0" in status("c", quorum(voter(2, 100, 1_018), voter(1, 100, 1_000)),
                                                 2_000)


def test_a_caught_up_follower_lags_by_the_time_since_it_last_caught_up_as_in_kafka():
    assert max_follower_lag_time_ms(quorum(voter(2, 100, 556), voter(1, 100, 1_000))) == 444


def test_a_follower_behind_lags_by_the_time_since_it_last_caught_up():
    assert max_follower_lag_time_ms(quorum(voter(1, 100, 1_000), voter(2, 100, 990),
                                           voter(3, 90, 700))) == 300


def test_a_behind_follower_with_a_later_time_than_the_leader_still_prints_no_negative_lag():
    assert max_follower_lag_time_ms(quorum(voter(1, 100, 1_000), voter(2, 90, 1_005))) == 0


def test_unknown_times_and_a_leader_outside_the_voters_print_minus_one_as_kafka_does():
    assert max_follower_lag_time_ms(quorum(voter(1, 100, 1_000), voter(2, 90, -1))) == -1
    assert max_follower_lag_time_ms(quorum(voter(2, 90, 1_000), voter(3, 100, 1_000))) == -1


def test_replication_lag_column_is_never_negative():
    table = replication(quorum(voter(1, 100, 1_000), voter(2, 101, 1_000)), 2_000, human_readable=False)
    lags = [line.split()[3] for line in table.splitlines()[1:]]
    assert lags == ["0", "0"]
