"""KafkaMetadataLog: __cluster_metadata-0 on the commit log, with the leader-epoch cache raft needs."""

from __future__ import annotations

import os

from kafka.log.log_config import LogConfig
from kafka.protocol.record_batch import DefaultRecord, build_batch, iter_batches
from kafka.raft.file_quorum_state_store import FileQuorumStateStore
from kafka.raft.kafka_metadata_log import KafkaMetadataLog
from kafka.raft.quorum_state_store import ElectionState
from kafka.raft.replicated_log import OffsetAndEpoch
from kafka.utils.time import MockTime


def batch(*values: bytes) -> bytes:
    return build_batch([DefaultRecord(i, 1000, None, v) for i, v in enumerate(values)], timestamp=1000)


def open_log(tmp_path) -> KafkaMetadataLog:
    return KafkaMetadataLog(str(tmp_path / "__cluster_metadata-0"), LogConfig(segment_bytes=4096), MockTime())


def test_epochs_are_remembered_and_survive_a_restart(tmp_path):
    log = open_log(tmp_path)
    log.append_as_leader(batch(b"a", b"b"), epoch=1)  # offsets 0-1
    log.append_as_leader(batch(b"c"), epoch=3)  # offset 2
    assert (log.end_offset(), log.last_fetched_epoch()) == (3, 3)
    assert log.end_offset_for_epoch(1) == OffsetAndEpoch(2, 1)
    assert log.end_offset_for_epoch(2) == OffsetAndEpoch(2, 1), "an epoch never seen: the one below it"
    assert log.end_offset_for_epoch(3) == OffsetAndEpoch(3, 3)
    log.close()
    again = open_log(tmp_path)  # the cache is rebuilt from the batches' partition leader epochs
    assert (again.end_offset(), again.last_fetched_epoch(), again.end_offset_for_epoch(1)) == (
        3, 3, OffsetAndEpoch(2, 1))
    again.close()


def test_a_follower_ending_in_an_epoch_the_leader_ended_sooner_diverges(tmp_path):
    leader = open_log(tmp_path)
    leader.append_as_leader(batch(b"a", b"b"), epoch=1)
    leader.append_as_leader(batch(b"c"), epoch=2)
    assert leader.validate_offset_and_epoch(2, 1).kind == "VALID"
    assert leader.validate_offset_and_epoch(3, 2).kind == "VALID"
    diverging = leader.validate_offset_and_epoch(3, 1)  # the follower has offsets 0-2 all from epoch 1
    assert (diverging.kind, diverging.offset_and_epoch) == ("DIVERGING", OffsetAndEpoch(2, 1))
    leader.close()


def test_a_follower_keeps_the_leaders_offsets_and_truncates_a_diverging_tail(tmp_path):
    source = open_log(tmp_path / "leader")
    source.append_as_leader(batch(b"a", b"b"), epoch=1)
    source.append_as_leader(batch(b"x"), epoch=1)
    follower = open_log(tmp_path / "follower")
    follower.append_as_follower(source.read(0, 1 << 20).records, epoch=1)
    assert follower.end_offset() == 3
    follower.truncate_to(2)
    assert (follower.end_offset(), follower.last_fetched_epoch()) == (2, 1)
    assert [b.last_offset for b in iter_batches(follower.read(0, 1 << 20).records)] == [1]
    source.close()
    follower.close()


def test_a_torn_tail_is_recovered_on_restart(tmp_path):
    log = open_log(tmp_path)
    log.append_as_leader(batch(b"a"), epoch=1)
    log.append_as_leader(batch(b"b"), epoch=1)
    log.close()
    segment = tmp_path / "__cluster_metadata-0" / f"{0:020d}.log"
    with open(segment, "r+b") as f:  # a crash in the middle of the second batch
        f.truncate(os.path.getsize(segment) - 5)
    again = open_log(tmp_path)
    assert again.end_offset() == 1
    again.append_as_leader(batch(b"c"), epoch=2)
    assert again.end_offset() == 2
    again.close()


def test_quorum_state_is_kafkas_json_and_survives(tmp_path):
    store = FileQuorumStateStore(str(tmp_path / "quorum-state"))
    assert store.read_election_state() is None
    store.write_election_state(ElectionState(5, leader_id=None, voted_id=2, voters=frozenset({1, 2, 3})))
    text = (tmp_path / "quorum-state").read_text()
    assert '"leaderEpoch":5' in text and '"votedId":2' in text and '"leaderId":-1' in text
    assert store.read_election_state() == ElectionState(5, None, 2, frozenset({1, 2, 3}))


def test_a_snapshot_moves_the_log_start_and_survives_a_restart(tmp_path):
    log = open_log(tmp_path)
    for i in range(6):
        log.append_as_leader(batch(b"v%d" % i), epoch=1)
    log.update_high_watermark(6)
    snapshot_id = OffsetAndEpoch(4, 1)
    writer = log.create_new_snapshot(snapshot_id)
    writer.append(batch(b"state"))
    writer.freeze()
    log.on_snapshot_frozen(snapshot_id)
    assert log.delete_before_snapshot(snapshot_id)
    assert (log.start_offset(), log.latest_snapshot_id()) == (4, snapshot_id)
    assert log.validate_offset_and_epoch(2, 1).kind == "SNAPSHOT"
    assert (tmp_path / "__cluster_metadata-0" / "00000000000000000004-0000000001.checkpoint").exists()
    log.close()
    again = open_log(tmp_path)
    assert (again.start_offset(), again.end_offset(), again.latest_snapshot_id()) == (4, 6, snapshot_id)
    assert [b.base_offset for b in iter_batches(again.read_snapshot(snapshot_id).records())] == [0]
    again.close()


def test_a_fetched_snapshot_past_the_log_end_replaces_the_log(tmp_path):
    log = open_log(tmp_path)
    log.append_as_leader(batch(b"old"), epoch=1)
    writer = log.store_snapshot(OffsetAndEpoch(10, 3))
    writer.append(batch(b"state"))
    writer.freeze()
    log.on_snapshot_frozen(OffsetAndEpoch(10, 3))
    assert log.truncate_to_latest_snapshot()
    assert (log.start_offset(), log.end_offset(), log.last_fetched_epoch()) == (10, 10, 3)
    log.close()
