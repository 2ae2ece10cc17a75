"""A new follower of a leader whose early segments are only in remote storage (Kafka's TierStateMachine),
between two real ReplicaManagers sharing a LocalTieredStorage and a remote log metadata manager, the
follower's ReplicaFetcherThread driven step by step against the leader's ReplicaManager called in process.

The leader answers the follower's fetch from 0 with OFFSET_MOVED_TO_TIERED_STORAGE; the follower asks for
the leader's local log start, rebuilds its leader-epoch cache and producer state from the remote segment
before it, starts its log there and fetches the rest: its log then holds only the leader's local records,
with the leader's epochs and an idempotent producer it never saw a batch of."""

from __future__ import annotations

from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.log.remote.inmemory_remote_log_metadata_manager import InmemoryRemoteLogMetadataManager
from kafka.metrics.remote_storage_metrics import BUILD_REMOTE_LOG_AUX_STATE_REQUESTS
from kafka.protocol.record_batch import build_batch, iter_batches
from kafka.server.kafka_config import KafkaConfig
from kafka.server.metadata_cache import PartitionState
from kafka.server.replica_fetcher_thread import ReplicaFetcherThread
from kafka.server.replica_manager import ReplicaManager
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition
from tests.log.remote.tiered_logs import follow, lead, remote_log_manager, storage, tier
from tests.server.test_replica_fetcher_thread import InProcessLeader

TP = TopicPartition("orders", 0)
TIERED = LogConfig(remote_storage_enable=True, local_retention_bytes=1)


class InProcessTieredLeader(InProcessLeader):
    """The questions a follower asks its leader, the TierStateMachine's ListOffsets -4 among them."""

    def fetch_earliest_local_offset(self, tp, current_leader_epoch):
        log = self.leader.get_partition(tp).log
        return log.local_log_start_offset, log.leader_epoch_cache.epoch_for_offset(log.local_log_start_offset)


def broker(tmp_path, broker_id: int, time, rsm, rlmm) -> ReplicaManager:
    directory = str(tmp_path / f"broker-{broker_id}")
    log_manager = LogManager([directory], LogConfig(), time, node_id=broker_id)
    log_manager.startup()
    config = KafkaConfig({"node.id": str(broker_id), "log.dirs": directory})
    holder: list[ReplicaManager] = []
    rlm = remote_log_manager(directory, time, lambda tp: holder[0].get_partition(tp).log, rsm, rlmm,
                             broker_id=broker_id)
    manager = ReplicaManager(config, log_manager, None, time, remote_log_manager=rlm)
    holder.append(manager)
    return manager


def tiered(manager: ReplicaManager, leader: bool = True):
    log = manager.get_partition(TP).log
    log.remote_storage_system_enable = True  # as LogManager sets it from remote.log.storage.system.enable
    (lead if leader else follow)(manager.remote_log_manager, log)
    return log


def test_a_new_follower_builds_its_state_from_remote_storage_and_fetches_the_local_rest(tmp_path):
    time = MockTime()
    rsm, rlmm = storage(tmp_path / "remote"), InmemoryRemoteLogMetadataManager()
    leader, follower = (broker(tmp_path, n, time, rsm, rlmm) for n in (1, 2))
    try:
        leader.make_leader(TP, PartitionState(0, 1, 0, (1, 2), (1,), 0), TIERED)
        log = tiered(leader)
        pid = 42
        for n in range(9):  # three segments of three batches of an idempotent producer; epoch 1 from offset 4
            if n and n % 3 == 0:
                log.roll()
            if n == 4:
                leader.make_leader(TP, PartitionState(0, 1, 1, (1, 2), (1,), 1), TIERED)
            batch = build_batch([(b"k", b"v%d" % n)], timestamp=time.milliseconds(), producer_id=pid,
                                producer_epoch=0, base_sequence=n)
            leader.append_records(1000, 1, False, {TP: batch}, lambda _: None)
        tier(log, time, 5)
        assert (log.log_start_offset, log.local_log_start_offset, log.log_end_offset) == (0, 6, 9)

        follower.make_follower(TP, PartitionState(0, 1, 1, (1, 2), (1,), 1), TIERED)
        follower_log = tiered(follower, leader=False)
        fetcher = ReplicaFetcherThread("test-fetcher", InProcessTieredLeader(leader, 2), follower, 0, time)
        fetcher.add_partitions({TP: (0, 1)})
        fetcher.maybe_fetch()  # answered OFFSET_MOVED_TO_TIERED_STORAGE: the state built from remote storage
        state = fetcher.partition_states[TP]
        assert (state.fetch_offset, state.lag, state.state) == (6, 3, "Fetching")
        assert (follower_log.log_start_offset, follower_log.local_log_start_offset,
                follower_log.log_end_offset) == (0, 6, 6)
        assert follower_log.leader_epoch_cache.entries() == [(0, 0), (1, 4)]
        producer = {e.producer_id: e.last_seq for e in follower_log.active_producers()}
        assert producer == {pid: 5}, "the producer state at offset 6, from the remote snapshot"
        assert follower.remote_log_manager.stats.count(BUILD_REMOTE_LOG_AUX_STATE_REQUESTS, "orders") == 1

        fetcher.maybe_fetch()  # and on from the leader's local log start
        records = bytes(follower_log.read(6, 1 << 20).records)
        assert [b.base_offset for b in iter_batches(records)] == [6, 7, 8]
        assert follower_log.leader_epoch_cache.entries() == [(0, 0), (1, 4)]
        assert {e.producer_id: e.last_seq for e in follower_log.active_producers()} == {pid: 8}
        # the producer goes on where it was: its next batch is no gap to the follower either
        batch = build_batch([(b"k", b"v9")], timestamp=time.milliseconds(), producer_id=pid, producer_epoch=0,
                            base_sequence=9)
        leader.append_records(1000, 1, False, {TP: batch}, lambda _: None)
        fetcher.maybe_fetch()
        assert follower_log.log_end_offset == 10
    finally:
        for manager in (leader, follower):
            manager.shutdown()
            manager.remote_log_manager.close()
            manager.log_manager.shutdown()


def test_a_follower_without_tiered_storage_backs_off(tmp_path):
    """The follower's topic config may not say remote.storage.enable yet: it cannot build its state, and
    asks again after replica.fetch.backoff.ms (Kafka's RemoteStorageException, retried)."""
    time = MockTime()
    rsm, rlmm = storage(tmp_path / "remote"), InmemoryRemoteLogMetadataManager()
    leader, follower = (broker(tmp_path, n, time, rsm, rlmm) for n in (1, 2))
    try:
        leader.make_leader(TP, PartitionState(0, 1, 0, (1, 2), (1,), 0), TIERED)
        log = tiered(leader)
        for n in range(6):
            if n and n % 3 == 0:
                log.roll()
            batch = build_batch([(b"k", b"v")], timestamp=time.milliseconds())
            leader.append_records(1000, 1, False, {TP: batch}, lambda _: None)
        tier(log, time, 2)
        follower.make_follower(TP, PartitionState(0, 1, 0, (1, 2), (1,), 0), LogConfig())
        fetcher = ReplicaFetcherThread("test-fetcher", InProcessTieredLeader(leader, 2), follower, 1000, time)
        fetcher.add_partitions({TP: (0, 0)})
        fetcher.maybe_fetch()
        state = fetcher.partition_states[TP]
        assert state.fetch_offset == 0 and state.delayed_until_ms == time.milliseconds() + 1000
    finally:
        for manager in (leader, follower):
            manager.shutdown()
            manager.remote_log_manager.close()
            manager.log_manager.shutdown()
