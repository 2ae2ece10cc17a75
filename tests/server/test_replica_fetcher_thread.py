"""Follower truncation (KIP-101, KIP-279, and on the fetch path) between two real ReplicaManagers in one
process.

The ReplicaFetcherThread is driven step by step (do_work, no thread) against its leader's
ReplicaManager called directly instead of over a socket, so each test is a deterministic replay of
a failover: a deposed leader's unreplicated tail is cut at the point the new leader's epochs say,
then the follower copies the new leader's records, and both logs end up batch for batch the same.
The failover tests run twice: with a leader that checks the follower's LastFetchedEpoch on every
fetch and answers DivergingEpoch (Fetch v12+, the road every broker here takes), and with one that
does not, where the follower asks OffsetForLeaderEpoch before it fetches.
The last test points a real RemoteLeaderEndPoint at a port nobody listens on: the follower backs
off for replica.fetch.backoff.ms and tries again, round after round, without failing.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kafka.clients.metadata import Node
from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch, iter_batches
from kafka.server.fetch_partition_data import FetchPartitionInfo
from kafka.server.kafka_config import KafkaConfig
from kafka.server.metadata_cache import PartitionState
from kafka.server.remote_leader_end_point import RemoteLeaderEndPoint, ReplicaFetchConfig
from kafka.server.replica_fetcher_thread import ReplicaFetcherThread
from kafka.server.replica_manager import FetchParams, ReplicaManager
from kafka.utils.time import SYSTEM, MockTime
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import free_port

TP = TopicPartition("orders", 0)
ROADS = pytest.mark.parametrize("truncation_on_fetch", [True, False],
                                ids=["diverging-epoch", "offset-for-leader-epoch"])


class FetchAnswer(SimpleNamespace):
    """One partition of a Fetch response, as the protocol's Struct reads it (attributes, and get for
    tagged fields)."""

    def get(self, name: str, default=None):
        return getattr(self, name, default)


class InProcessLeader:
    """RemoteLeaderEndPoint's three questions, asked of the leader's ReplicaManager directly."""

    def __init__(self, leader: ReplicaManager, follower_id: int, truncation_on_fetch: bool = True) -> None:
        self.leader = leader
        self.follower_id = follower_id
        self.truncation_on_fetch = truncation_on_fetch
        self.fetches = 0

    def describe(self) -> str:
        return f"broker {self.leader.local_broker_id} (in process)"

    def is_truncation_on_fetch_supported(self) -> bool:
        return self.truncation_on_fetch

    def fetch(self, partitions):
        self.fetches += 1
        infos = [(tp,
                  FetchPartitionInfo(p.fetch_offset, 1 << 20, p.current_leader_epoch, p.last_fetched_epoch))
                 for tp, p in partitions.items()]
        params = FetchParams(replica_id=self.follower_id, max_wait_ms=0, min_bytes=1, max_bytes=1 << 30)
        return {tp: FetchAnswer(error_code=d.error, high_watermark=d.high_watermark,
                                log_start_offset=d.log_start_offset, records=d.records,
                                diverging_epoch=None if d.diverging_epoch is None else
                                dict(epoch=d.diverging_epoch.epoch, end_offset=d.diverging_epoch.end_offset))
                for tp, d in self.leader.read_from_local_log(params, infos)}

    def fetch_epoch_end_offsets(self, partitions):
        return {tp: self.leader.last_offset_for_leader_epoch(tp, current, epoch)
                for tp, (current, epoch) in partitions.items()}

    def fetch_latest_offset(self, tp, current_leader_epoch):
        return self.leader.get_partition(tp).log.log_end_offset

    def fetch_earliest_offset(self, tp, current_leader_epoch):
        return self.leader.get_partition(tp).log.log_start_offset

    def close(self) -> None:
        pass

    def release(self) -> None:
        pass


@pytest.fixture
def brokers(tmp_path):
    time = MockTime()
    managers = {}
    for broker_id in (1, 2):
        directory = str(tmp_path / f"broker-{broker_id}")
        log_manager = LogManager([directory], LogConfig(), time, node_id=broker_id)
        log_manager.startup()
        managers[broker_id] = ReplicaManager(KafkaConfig({"node.id": str(broker_id), "log.dirs": directory}),
                                             log_manager, None, time)
    yield managers
    for manager in managers.values():
        manager.shutdown()
        manager.log_manager.shutdown()


def lead(manager: ReplicaManager, epoch: int, isr=(1, 2)) -> None:
    manager.make_leader(TP, PartitionState(0, manager.local_broker_id, epoch, (1, 2), isr, epoch),
                        LogConfig())


def follow(manager: ReplicaManager, leader: ReplicaManager, epoch: int, truncation_on_fetch: bool = True
           ) -> ReplicaFetcherThread:
    """Become follower, and a fetcher thread (not started) pulling from `leader`."""
    manager.make_follower(TP, PartitionState(0, leader.local_broker_id, epoch, (1, 2), (1, 2), epoch),
                          LogConfig())
    fetcher = ReplicaFetcherThread("test-fetcher",
                                   InProcessLeader(leader, manager.local_broker_id, truncation_on_fetch),
                                   manager, 0, manager.time)
    fetcher.add_partitions({TP: (manager.get_partition(TP).log.log_end_offset, epoch)})
    return fetcher


def produce(manager: ReplicaManager, count: int) -> None:
    manager.append_records(1000, 1, False, {TP: build_batch([(b"k", b"v")] * count)}, lambda _: None)


def batches(manager: ReplicaManager) -> list[tuple[int, int, int]]:
    log = manager.get_partition(TP).log
    return [(b.base_offset, b.last_offset, b.partition_leader_epoch)
            for b in iter_batches(bytes(log.read(0, 1 << 30).records))]


def catch_up(fetcher: ReplicaFetcherThread, rounds: int = 4) -> None:
    for _ in range(rounds):
        fetcher.maybe_truncate()
        if fetcher.partition_states[TP].state == "Fetching":
            fetcher.maybe_fetch()


def truncate(fetcher: ReplicaFetcherThread) -> None:
    """One round of whichever road the leader offers: OffsetForLeaderEpoch, or a Fetch answered
    DivergingEpoch."""
    if fetcher.leader.truncation_on_fetch:
        fetcher.maybe_fetch()
    else:
        fetcher.maybe_truncate()


@ROADS
def test_a_deposed_leader_truncates_its_unreplicated_tail(brokers, truncation_on_fetch):
    a, b = brokers[1], brokers[2]
    lead(a, 0)
    produce(a, 10)
    catch_up(follow(b, a, 0))
    assert a.get_partition(TP).high_watermark == 10
    produce(a, 5)  # offsets 10..14: acks=1, never fetched by b, so never committed

    lead(b, 1, isr=(2,))  # a is gone; b is elected from the ISR and takes new writes
    produce(b, 7)  # offsets 10..16 in epoch 1

    fetcher = follow(a, b, 1, truncation_on_fetch)  # a comes back as a follower
    truncate(fetcher)
    assert a.get_partition(TP).log.log_end_offset == 10, "a's epoch 0 ended at 10 in b's log: cut there"
    catch_up(fetcher)
    assert batches(a) == batches(b) == [(0, 9, 0), (10, 16, 1)]
    assert a.get_partition(TP).log.leader_epoch_cache.entries() == [(0, 0), (1, 10)]


@ROADS
def test_a_follower_without_the_leaders_epoch_asks_again_with_an_older_one(brokers, truncation_on_fetch):
    a, b = brokers[1], brokers[2]
    lead(a, 0)
    produce(a, 10)
    catch_up(follow(b, a, 0))
    lead(b, 1, isr=(2,))
    produce(b, 3)  # b: epoch 1 at 10..12, never seen by a
    lead(a, 2, isr=(1,))
    produce(a, 5)  # a: epoch 2 at 10..14, never seen by b
    lead(b, 3, isr=(2,))
    produce(b, 3)  # b: epoch 3 at 13..15

    fetcher = follow(a, b, 3, truncation_on_fetch)
    truncate(fetcher)
    # b says a's epoch 2 does not exist there: its largest epoch below is 1, ending at 13. a has no
    # epoch 1, so it cuts at the end of its own older epoch 0 (offset 10) and asks again: by
    # OffsetForLeaderEpoch, or by fetching from 10 naming epoch 0, which b's log agrees with.
    assert a.get_partition(TP).log.log_end_offset == 10
    state = fetcher.partition_states[TP]
    assert (state.state, state.last_fetched_epoch) == (("Fetching", 0) if truncation_on_fetch
                                                       else ("Truncating", 0))
    catch_up(fetcher)
    assert batches(a) == batches(b) == [(0, 9, 0), (10, 12, 1), (13, 15, 3)]


@ROADS
def test_a_leader_that_appended_nothing_forgets_its_empty_epoch_when_it_follows(brokers, truncation_on_fetch):
    """b is elected (epoch 1) and deposed before it appends anything: its epoch cache says epoch 1
    starts at its log end, 10, and no other replica has an epoch 1. Following a (epoch 2) it names
    epoch 1 as its last fetched; a answers DivergingEpoch (0, 10), which cuts nothing. Unless b drops
    the empty epoch there, it names it again, and is answered the same, for ever (the replication
    simulation, seed 1)."""
    a, b = brokers[1], brokers[2]
    lead(a, 0)
    produce(a, 10)
    catch_up(follow(b, a, 0))
    lead(b, 1, isr=(2,))  # nothing appended in epoch 1
    lead(a, 2, isr=(1,))
    produce(a, 5)
    catch_up(follow(b, a, 2, truncation_on_fetch))
    assert batches(b) == batches(a) == [(0, 9, 0), (10, 14, 2)]
    assert b.get_partition(TP).log.leader_epoch_cache.entries() == [(0, 0), (2, 10)]


def test_a_follower_behind_the_leaders_log_start_starts_over_there(brokers):
    a, b = brokers[1], brokers[2]
    lead(a, 0)
    produce(a, 10)
    a.get_partition(TP).log.update_high_watermark(10)
    a.delete_records(TP, 6)  # DeleteRecords: the leader's log now starts at 6
    fetcher = follow(b, a, 0)  # b is new and empty: fetching from 0 is out of range
    catch_up(fetcher)
    log = b.get_partition(TP).log
    assert (log.log_start_offset, log.log_end_offset) == (6, 10)


def test_a_follower_that_cannot_reach_its_leader_backs_off_and_keeps_trying(brokers):
    b = brokers[2]
    b.make_follower(TP, PartitionState(0, 1, 0, (1, 2), (1, 2), 0), LogConfig())
    nobody = Node(1, "127.0.0.1", free_port())  # nothing listens there: connections are refused
    endpoint = RemoteLeaderEndPoint(2, nobody, ReplicaFetchConfig(backoff_ms=1000, socket_timeout_ms=5000),
                                    SYSTEM,
                                    "test-fetcher")
    fetcher = ReplicaFetcherThread("test-fetcher", endpoint, b, 1000, b.time)
    try:
        fetcher.add_partitions({TP: (0, 0)})
        for _ in range(3):
            fetcher.maybe_fetch()
            state = fetcher.partition_states[TP]
            backoff_over_ms = b.time.milliseconds() + 1000
            assert state.delayed_until_ms == backoff_over_ms, "on hold for replica.fetch.backoff.ms"
            b.time.sleep(1000)  # the backoff is over: the next round tries again
        assert state.fetch_offset == 0 and b.get_partition(TP).log.log_end_offset == 0
    finally:
        endpoint.release()


def test_a_diverged_follower_is_answered_before_it_is_counted(brokers):
    """The leader's side of a diverging fetch: no records, and nothing learnt from it. The deposed
    leader fetches from 15, its log end, naming epoch 0; in the new leader's log epoch 0 ends at 10.
    Counting that fetch would tell the leader the follower holds 15 records that match its own, and
    put it in the ISR with a tail nobody acknowledged (issue: a healed leader rejoins the ISR)."""
    a, b = brokers[1], brokers[2]
    lead(a, 0)
    produce(a, 10)
    catch_up(follow(b, a, 0))
    produce(a, 5)  # 10..14, only on a
    lead(b, 1, isr=(2,))
    produce(b, 5)  # 10..14 in epoch 1

    params = FetchParams(replica_id=1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 30)
    [(_, answer)] = b.read_from_local_log(params, [(TP, FetchPartitionInfo(15, 1 << 20, 1, 0))])
    assert (answer.diverging_epoch, len(answer.records)) == ((0, 10), 0)
    follower = b.get_partition(TP).remote_replicas[1]
    assert follower.log_end_offset == -1, "a diverging fetch says nothing of how far the follower has got"
    assert b.get_partition(TP).isr == {2}, "it reached the HW (15) only in a log of its own"


def test_only_a_fetch_that_names_the_leader_epoch_brings_a_follower_back_into_the_isr(brokers):
    a, b = brokers[1], brokers[2]
    lead(b, 3, isr=(2,))
    produce(b, 4)
    b.get_partition(TP).maybe_increment_leader_hw()
    a.make_follower(TP, PartitionState(0, 2, 3, (1, 2), (2,), 3), LogConfig())
    params = FetchParams(replica_id=1, max_wait_ms=0, min_bytes=1, max_bytes=1 << 30)
    b.read_from_local_log(params, [(TP, FetchPartitionInfo(4, 1 << 20, -1))])  # no epoch named: not checked
    assert b.get_partition(TP).isr == {2}
    b.read_from_local_log(params, [(TP, FetchPartitionInfo(4, 1 << 20, 3, 3))])
    assert b.get_partition(TP).isr == {1, 2}


class LateFollower(ReplicaManager):
    """A ReplicaManager whose partition becomes a follower right after the produce's leader check: the
    interleaving of an I/O thread and the metadata publisher that the replication simulation found."""

    def get_partition_or_error(self, tp):
        partition, error = super().get_partition_or_error(tp)
        if partition is not None:
            partition.make_follower(PartitionState(0, 2, partition.leader_epoch + 1, (1, 2), (1, 2),
                                                   partition.partition_epoch + 1))
        return partition, error


def test_a_produce_that_passed_the_leader_check_of_a_deposed_leader_is_refused_not_appended(tmp_path):
    time = MockTime()
    log_manager = LogManager([str(tmp_path)], LogConfig(), time, node_id=1)
    log_manager.startup()
    manager = LateFollower(KafkaConfig({"node.id": "1", "log.dirs": str(tmp_path)}), log_manager, None, time)
    try:
        lead(manager, 0)
        answers = []
        manager.append_records(1000, -1, False, {TP: build_batch([(b"k", b"v")])}, answers.append)
        [(_, status)] = answers[0].items()
        assert status.error == Errors.NOT_LEADER_OR_FOLLOWER, (
            "appended in the new leader's epoch, it would diverge")
        assert manager.get_partition(TP).log.log_end_offset == 0
    finally:
        manager.shutdown()
        log_manager.shutdown()
