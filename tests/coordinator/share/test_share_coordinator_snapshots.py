"""What __share_group_state holds and how a new leader resumes from it: a ShareSnapshot every
share.coordinator.snapshot.update.records.per.snapshot updates, a shard that replays the partition into
exactly the state the old one had, cold share partitions snapshotted on a timer, and the records behind
every partition's latest snapshot pruned (the topic is not compacted)."""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest

from kafka.coordinator.common.runtime.coordinator_record import CoordinatorRecord
from kafka.coordinator.share.share_coordinator_config import ShareCoordinatorConfig
from kafka.coordinator.share.share_coordinator_records import ShareSnapshotKey, ShareUpdateKey
from kafka.coordinator.share.share_coordinator_shard import ShareCoordinatorShard
from kafka.image.metadata_delta import TopicsDelta
from kafka.protocol.errors import Errors
from kafka.timeline import SnapshotRegistry
from tests.coordinator.share.share_coordinator_harness import (
    CONFIG,
    STATE_TP,
    TOPIC_ID,
    ShareCoordinator,
    batch,
    image_with_topic,
)

pytestmark = pytest.mark.fast

AVAILABLE, ACKNOWLEDGED, ARCHIVED = 0, 2, 4


def kinds(coordinator: ShareCoordinator) -> list[str]:
    return ["snapshot" if isinstance(r.key, ShareSnapshotKey) else "update" for _, r in coordinator.records()]


def test_a_snapshot_follows_every_n_updates(coordinator):
    """With 3 updates per snapshot: the initial snapshot, 3 updates, a snapshot holding all, 3 more..."""
    coordinator.initialize(start_offset=0)
    for i in range(7):
        assert coordinator.write([batch(i, i, ACKNOWLEDGED, 1)])["error_code"] == Errors.NONE
    assert kinds(coordinator) == ["snapshot", "update", "update", "update", "snapshot", "update", "update",
                                  "update"]
    snapshots = [r.value for _, r in coordinator.records() if isinstance(r.key, ShareSnapshotKey)]
    assert [s.snapshot_epoch for s in snapshots] == [0, 1]
    assert [(b.first_offset, b.last_offset) for b in snapshots[1].state_batches] == [(0, 3)]  # merged whole
    updates = [r.value for _, r in coordinator.records() if isinstance(r.key, ShareUpdateKey)]
    assert [u.snapshot_epoch for u in updates] == [0, 0, 0, 1, 1, 1]  # each names the snapshot it applies to


def test_zero_updates_per_snapshot_writes_only_snapshots(replica_manager, time):
    c = ShareCoordinator(replica_manager, time, config=ShareCoordinatorConfig(
        state_topic_num_partitions=1, snapshot_update_records_per_snapshot=0))
    try:
        c.initialize()
        c.write([batch(0, 0, ARCHIVED, 5)])
        c.write([batch(1, 1, ARCHIVED, 5)])
        assert kinds(c) == ["snapshot"] * 3
    finally:
        c.shutdown()


def test_a_new_leader_resumes_exactly(coordinator):
    """The promise of KIP-932's persister: after a failover the new shard, built only from the log,
    answers every read as the old one did, and fences the old leader as the old one would have."""
    for p in range(3):
        coordinator.initialize(partition=p, state_epoch=1, start_offset=10 * p)
    coordinator.read(partition=1, leader_epoch=4)
    for i in range(5):
        coordinator.write([batch(10 + i, 11 + i, i % 3 * 2, i)], partition=1, state_epoch=1, leader_epoch=4,
                          start_offset=10, delivery_complete_count=i)
    coordinator.write([batch(0, 3, ARCHIVED, 5)], partition=0, state_epoch=1, start_offset=1)
    coordinator.delete(partition=2)
    before = [coordinator.read(partition=p, leader_epoch=4) for p in range(3)]
    summaries = [coordinator.summary(partition=p) for p in range(3)]
    old_state = dict(coordinator.shard().share_state_map)

    coordinator.service.on_resignation(0, 1)
    coordinator.shutdown()
    new = ShareCoordinator(coordinator.replica_manager, coordinator.time, leader_epoch=1)
    try:
        assert dict(new.shard().share_state_map) == old_state
        assert [new.summary(partition=p) for p in range(3)] == summaries
        assert [new.read(partition=p, leader_epoch=4) for p in range(3)] == before
        fenced = new.write([batch(20, 20, ACKNOWLEDGED, 9)], partition=1, state_epoch=1, leader_epoch=3)
        assert fenced["error_code"] == Errors.FENCED_LEADER_EPOCH
    finally:
        new.shutdown()


def test_replaying_the_records_into_a_fresh_shard_rebuilds_the_same_maps(coordinator):
    coordinator.initialize(start_offset=0, state_epoch=3)
    coordinator.read(leader_epoch=2)
    for i in range(5):
        coordinator.write([batch(i * 2, i * 2 + 3, ACKNOWLEDGED, i)], state_epoch=3, leader_epoch=2)
    shard = ShareCoordinatorShard(SnapshotRegistry(""), coordinator.time, CONFIG)
    for offset, record in coordinator.records():
        shard.replay(offset, -1, -1, record)
    old = coordinator.shard()
    for name in ("share_state_map", "leader_epoch_map", "state_epoch_map", "snapshot_update_count"):
        assert dict(getattr(shard, name)) == dict(getattr(old, name)), name


def test_an_update_the_shard_replays_with_no_snapshot_before_it_starts_the_state(time):
    shard = ShareCoordinatorShard(SnapshotRegistry(""), time, CONFIG)
    from kafka.coordinator.share.persister_state_batch import PersisterStateBatch
    from kafka.coordinator.share.share_coordinator_records import ShareUpdateValue
    key = ShareUpdateKey("g", TOPIC_ID, 0)
    shard.replay(0, -1, -1,
                 CoordinatorRecord(key, ShareUpdateValue(0, 2, 5, -1, (PersisterStateBatch(5, 6, 2, 1),))))
    [(_, offset)] = shard.share_state_map.items()
    assert (offset.leader_epoch, offset.start_offset, offset.state_epoch) == (2, 5, 0)
    assert shard.snapshot_update_count[next(iter(shard.snapshot_update_count))] == 1


# ---------------------------------------------------------------------- the periodic jobs
def enable_share_groups(coordinator: ShareCoordinator) -> None:
    coordinator.service.on_metadata_update(None, image_with_topic(share_version=1))


def test_cold_share_partitions_get_a_fresh_snapshot(coordinator):
    enable_share_groups(coordinator)
    coordinator.initialize(partition=0)
    coordinator.write([batch(0, 0, ACKNOWLEDGED, 1)])
    coordinator.advance(30_000)
    coordinator.initialize(partition=1)  # written later: not cold yet at the first round
    last = coordinator.records()[-1][0]
    coordinator.advance(30_000)  # the cold snapshot job runs every 60 s
    new = [r for offset, r in coordinator.records() if offset > last]
    assert [(r.key.partition, r.value.snapshot_epoch) for r in new] == [(0, 1)]
    cold = new[0].value
    assert cold.write_timestamp == coordinator.time.milliseconds() != cold.create_timestamp
    assert [(b.first_offset, b.delivery_state) for b in cold.state_batches] == [(0, ACKNOWLEDGED)]


def test_records_behind_every_latest_snapshot_are_pruned(replica_manager, time):
    c = ShareCoordinator(replica_manager, time,
                         config=replace(CONFIG, cold_partition_snapshot_interval_ms=10**9))
    try:
        enable_share_groups(c)
        c.initialize(partition=0)  # offset 0
        c.initialize(partition=1)  # offset 1
        for i in range(4):         # offsets 2-5: 3 updates, then a snapshot of partition 0 at 5
            c.write([batch(i, i, ACKNOWLEDGED, 1)])
        c.advance(30_000)  # the prune job: partition 1's snapshot at offset 1 holds the log back
        assert replica_manager.get_partition(STATE_TP).log.log_start_offset == 1
        c.initialize(partition=1, state_epoch=1)  # offset 6: a newer snapshot of partition 1
        c.advance(30_000)
        assert replica_manager.get_partition(STATE_TP).log.log_start_offset == 5
        assert [r.key.partition for _, r in c.records()] == [0, 1]  # what a new leader needs, no more
    finally:
        c.shutdown()


def test_periodic_jobs_stop_when_share_groups_are_disabled(coordinator, replica_manager):
    enable_share_groups(coordinator)
    coordinator.initialize(partition=0)
    coordinator.initialize(partition=0, state_epoch=1)
    coordinator.service.on_metadata_update(None, image_with_topic(share_version=0))
    coordinator.advance(120_000)
    assert replica_manager.get_partition(STATE_TP).log.log_start_offset == 0
    assert coordinator.timer.size() == 0


def test_the_share_partitions_of_a_deleted_topic_are_tombstoned(coordinator):
    other = uuid.UUID(int=99)
    coordinator.initialize(partition=0)
    coordinator.initialize(partition=1)
    delta = TopicsDelta(image_with_topic().topics)
    delta.deleted_topic_ids.add(TOPIC_ID)
    coordinator.service.on_metadata_update(_Delta(delta), image_with_topic())
    tombstones = [r.key.partition for _, r in coordinator.records() if r.value is None]
    assert sorted(tombstones) == [0, 1]
    assert coordinator.summary()["start_offset"] == -1
    assert other not in {k.topic_id for k in coordinator.shard().share_state_map}


class _Delta:
    def __init__(self, topics_delta: TopicsDelta) -> None:
        self.topics_delta = topics_delta
