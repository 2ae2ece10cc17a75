"""RemoteLogManager over real collaborators: UnifiedLogs in a temporary directory, LocalTieredStorage, the
InmemoryRemoteLogMetadataManager and a MockTime. Its tasks run on their own thread pools; each test moves
the clock past remote.log.manager.task.interval.ms and waits for what the next run must have done."""

from __future__ import annotations

import uuid

import pytest

from kafka.log.errors import OffsetOutOfRangeError
from kafka.log.log_config import LogConfig
from kafka.log.remote.inmemory_remote_log_metadata_manager import InmemoryRemoteLogMetadataManager
from kafka.log.remote.local_tiered_storage import LocalTieredStorage, partition_directory_name
from kafka.log.remote.remote_log_manager import RemoteLogManager
from kafka.log.remote.remote_log_manager_config import RemoteLogManagerConfig
from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentState
from kafka.log.remote.stop_partition import StopPartition
from kafka.log.remote.topic_partition_log import TopicPartitionLog
from kafka.log.unified_log import UnifiedLog
from kafka.metrics import remote_storage_metrics as r
from kafka.protocol.record_batch import build_batch
from kafka.utils.time import MockTime
from kafka.utils.topic_id_partition import TopicIdPartition
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import wait_until

S = RemoteLogSegmentState
TOPIC = "tiered"
TOPIC_ID = uuid.uuid4()
TP = TopicPartition(TOPIC, 0)
TIP = TopicIdPartition(TOPIC_ID, TOPIC, 0)
INTERVAL_MS = 1000
TIERED = dict(remote_storage_enable=True, segment_bytes=700)


class Broker:
    """One broker's side of the partition: its log, its RemoteLogManager; the remote storage and the
    remote log metadata are the cluster's, shared."""

    def __init__(self, tmp_path, name: str, time: MockTime, rsm: LocalTieredStorage,
                 rlmm: InmemoryRemoteLogMetadataManager, broker_id: int = 1, **config) -> None:
        self.dir, self.time, self.broker_id = tmp_path / name / f"{TOPIC}-0", time, broker_id
        self.rsm, self.rlmm = rsm, rlmm
        self.config = LogConfig(**{**TIERED, **config})
        self.log = self.open_log()
        self.rlm = self.start_rlm()

    def open_log(self, log_start_offset: int = 0) -> UnifiedLog:
        return UnifiedLog(str(self.dir), TOPIC, 0, self.config, self.time, log_start_offset=log_start_offset,
                          remote_storage_system_enable=True)

    def start_rlm(self) -> RemoteLogManager:
        def update_log_start_offset(tp: TopicPartition, offset: int) -> None:
            self.log.update_log_start_offset_from_remote_tier(offset)
        return RemoteLogManager(RemoteLogManagerConfig(True, INTERVAL_MS, 2, 2, 2), self.broker_id, self.time,
                                lambda tp: self.log, update_log_start_offset, self.rsm, self.rlmm)

    def lead(self, epoch: int = 0) -> None:
        self.log.maybe_assign_epoch_start_offset(epoch, self.log.log_end_offset)
        self.rlm.on_leadership_change([TopicPartitionLog(TP, self.log)], [], {TOPIC: TOPIC_ID})

    def follow(self) -> None:
        self.rlm.on_leadership_change([], [TopicPartitionLog(TP, self.log)], {TOPIC: TOPIC_ID})

    def produce(self, batches: int, epoch: int = 0) -> None:
        for _ in range(batches):
            self.log.append_as_leader(build_batch([(b"k", b"v" * 100)], timestamp=self.time.milliseconds()),
                                      leader_epoch=epoch)
            self.time.advance(10)
        self.log.update_high_watermark(self.log.log_end_offset)

    def rolled_end(self) -> int:
        """The last offset of the rolled segments: what the copier copies."""
        return self.log.active_segment.base_offset - 1

    def next_run(self) -> None:
        self.time.advance(INTERVAL_MS)

    def close(self) -> None:
        self.rlm.close()
        self.log.close()


@pytest.fixture
def cluster(tmp_path):
    time = MockTime()
    rsm = LocalTieredStorage()
    rsm.configure({"dir": str(tmp_path / "remote"), "broker.id": "1"})
    rlmm = InmemoryRemoteLogMetadataManager()
    brokers: list[Broker] = []

    def broker(name: str = "b1", broker_id: int = 1, **config) -> Broker:
        b = Broker(tmp_path, name, time, rsm, rlmm, broker_id, **config)
        brokers.append(b)
        return b
    broker.time, broker.rsm, broker.rlmm = time, rsm, rlmm
    yield broker
    for b in brokers:
        b.close()


def replicate(leader: Broker, follower: Broker) -> None:
    """A follower's fetches: the leader's batches one at a time, so its segments roll where the leader's
    did."""
    while follower.log.log_end_offset < leader.log.log_end_offset:
        follower.log.append_as_follower(leader.log.read(follower.log.log_end_offset, 1).records)
    follower.log.update_high_watermark(follower.log.log_end_offset)


def remote(rlmm, state=S.COPY_SEGMENT_FINISHED):
    return [m for m in rlmm.list_remote_log_segments(TIP) if m.state is state]


def remote_files(rsm) -> list[str]:
    directory = rsm.storage_directory / partition_directory_name(TIP)
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


def copied_up_to(b: Broker, offset: int) -> bool:
    b.next_run()
    return b.log.highest_offset_in_remote_storage >= offset


def test_a_leader_copies_every_rolled_segment_and_never_the_active_one(cluster):
    b = cluster()
    b.produce(30)
    rolled = [s.base_offset for s in b.log.segments[:-1]]
    b.lead()
    wait_until(lambda: b.log.highest_offset_in_remote_storage == b.rolled_end(),
               message="the rolled segments copied")
    copied = remote(cluster.rlmm)
    assert [m.start_offset for m in copied] == rolled
    assert copied[-1].end_offset == b.rolled_end()
    assert all(m.segment_leader_epochs == {0: m.start_offset} for m in copied)
    assert len([n for n in remote_files(cluster.rsm) if n.endswith(".log")]) == len(rolled)
    assert b.rlm.stats.count(r.REMOTE_COPY_REQUESTS, TOPIC) == len(rolled)
    assert b.rlm.stats.count(r.REMOTE_COPY_BYTES, TOPIC) == sum(m.segment_size_in_bytes for m in copied)
    b.produce(10)  # more segments roll: the next run copies them, and only them
    wait_until(lambda: copied_up_to(b, b.rolled_end()), message="the new segments copied")
    assert [m.start_offset for m in remote(cluster.rlmm)] == [s.base_offset for s in b.log.segments[:-1]]


def test_nothing_at_or_above_the_last_stable_offset_is_copied(cluster):
    b = cluster()
    b.produce(30)
    b.log.update_high_watermark(b.log.segments[2].base_offset)  # the followers are behind
    b.lead()
    wait_until(lambda: b.log.highest_offset_in_remote_storage == b.log.segments[2].base_offset - 1)
    b.next_run()
    b.next_run()
    assert len(remote(cluster.rlmm)) == 2


def test_local_segments_are_deleted_only_once_copied(cluster):
    b = cluster(local_retention_bytes=1)
    b.produce(30)
    segments = b.log.num_segments
    assert b.log.delete_old_segments() == 0, "local retention waits for the copies"
    b.lead()
    wait_until(lambda: b.log.highest_offset_in_remote_storage == b.rolled_end())
    assert b.log.delete_old_segments() == segments - 1
    assert b.log.log_start_offset == 0, "the records are still readable, from remote storage"
    assert b.log.local_log_start_offset == b.log.active_segment.base_offset
    with pytest.raises(OffsetOutOfRangeError):
        b.log.read(0, 1000)


def test_remote_segments_expire_by_retention_ms_and_move_the_log_start_offset(cluster):
    b = cluster(retention_ms=60_000, local_retention_ms=1)
    b.produce(30)
    b.lead()
    wait_until(lambda: b.log.highest_offset_in_remote_storage == b.rolled_end())
    # 300 ms of records; 200 ms of them are now older than retention.ms: the segments holding those go
    b.time.advance(60_000 - 100)

    def oldest_deleted() -> bool:
        copied = remote(cluster.rlmm)
        return copied and 0 < copied[0].start_offset == b.log.log_start_offset
    wait_until(oldest_deleted, message="the oldest remote segments deleted, the log start offset past them")
    assert not [n for n in remote_files(cluster.rsm) if n.startswith("00000000000000000000-")]
    assert b.rlm.stats.count(r.REMOTE_DELETE_REQUESTS, TOPIC) >= 1
    b.time.advance(10**9)
    wait_until(lambda: copied_up_to(b, 0) and not remote(cluster.rlmm), message="every remote segment gone")
    assert b.log.log_start_offset == b.rolled_end() + 1
    assert remote_files(cluster.rsm) == []


def test_remote_segments_expire_by_retention_bytes_over_local_and_remote(cluster):
    b = cluster(retention_bytes=2000, local_retention_bytes=700)
    b.produce(30)
    b.lead()
    wait_until(lambda: b.log.highest_offset_in_remote_storage == b.rolled_end())

    def within_retention() -> bool:
        """Whole segments go while they fit in the excess: what is left is at most one segment over."""
        b.next_run()
        copied = remote(cluster.rlmm)
        highest = b.log.highest_offset_in_remote_storage
        local_only = sum(s.size for s in b.log.segments if s.base_offset > highest)
        size = local_only + sum(m.segment_size_in_bytes for m in copied)
        return copied and size - copied[0].segment_size_in_bytes < 2000 and \
            b.log.log_start_offset == copied[0].start_offset
    wait_until(within_retention, message="the log within retention.bytes")
    assert b.log.log_start_offset == remote(cluster.rlmm)[0].start_offset > 0


def test_a_restarted_leader_resumes_from_the_highest_offset_copied(cluster):
    b = cluster()
    b.produce(20)
    b.lead()
    wait_until(lambda: b.log.highest_offset_in_remote_storage == b.rolled_end())
    first_copies = {m.remote_log_segment_id for m in remote(cluster.rlmm)}
    b.close()
    b.log = b.open_log()
    assert b.log.highest_offset_in_remote_storage == -1, "it learns again what is remote"
    b.rlm = b.start_rlm()
    b.produce(10)
    b.lead()
    wait_until(lambda: b.log.highest_offset_in_remote_storage == b.rolled_end())
    copies = remote(cluster.rlmm)
    assert first_copies < {m.remote_log_segment_id for m in copies}, "nothing copied again"
    assert [m.start_offset for m in copies] == [s.base_offset for s in b.log.segments[:-1]]


def test_a_new_leader_continues_from_the_remote_log_end_and_followers_track_it(cluster):
    a, b = cluster("a", broker_id=1), cluster("b", broker_id=2)
    a.log.maybe_assign_epoch_start_offset(0, 0)
    a.produce(20)
    replicate(a, b)
    a.lead()
    b.follow()
    wait_until(lambda: a.log.highest_offset_in_remote_storage == a.rolled_end())
    wait_until(lambda: copied_up_to(b, a.rolled_end()), message="the follower learns what is remote")
    a.follow()  # the controller elects b: a's copier stops
    b.lead(epoch=1)
    b.produce(15, epoch=1)
    wait_until(lambda: copied_up_to(b, b.rolled_end()), message="the new leader copies its new segments")
    copies = remote(cluster.rlmm)
    assert [m.start_offset for m in copies] == [s.base_offset for s in b.log.segments[:-1]]
    assert {m.broker_id for m in copies} == {1, 2}
    assert copies[-1].segment_leader_epochs.keys() >= {1}


def test_stop_partitions_of_a_deleted_topic_deletes_its_remote_data(cluster):
    b = cluster()
    b.produce(20)
    b.lead()
    wait_until(lambda: b.log.highest_offset_in_remote_storage == b.rolled_end())
    errors = []
    b.rlm.stop_partitions([StopPartition(TP, True, True, True)], lambda tp, e: errors.append(e))
    assert not errors
    assert list(cluster.rlmm.list_remote_log_segments(TIP)) == []
    assert [n for n in remote_files(cluster.rsm) if not n.endswith(".txnindex")] == []
    assert not b.rlm.leader_copy_rlm_tasks and not b.rlm.leader_expiration_rlm_tasks


def test_remote_log_copy_disable_stops_copying_but_not_expiration(cluster):
    b = cluster(remote_log_copy_disable=True)
    b.produce(20)
    b.lead()
    assert not b.rlm.leader_copy_rlm_tasks and TIP in b.rlm.leader_expiration_rlm_tasks
    b.next_run()
    b.next_run()
    assert remote(cluster.rlmm) == []
    assert b.log.delete_old_segments() == 0, "retention.ms, not local retention, for a read-only tier"


def test_a_topic_without_remote_storage_gets_no_tasks(cluster):
    b = cluster(remote_storage_enable=False)
    b.produce(10)
    b.lead()
    assert not b.rlm.leader_copy_rlm_tasks and not b.rlm.topic_id_by_partition
