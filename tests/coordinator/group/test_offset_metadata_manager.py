"""OffsetMetadataManager over a real SnapshotRegistry, as the runtime drives it (shard_harness.py):
commits become records that the replay applies; a transactional commit is pending until its
producer's COMMIT marker, an ABORT drops it, and OffsetFetch with require_stable says
UNSTABLE_OFFSET_COMMIT in between; reads see the committed state; a failed append's revert takes a
commit back; and a fresh shard replaying the log (a failover) has the same offsets."""

from __future__ import annotations

import uuid

import pytest

from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.coordinator.group.consumer_group_manager import HeartbeatRequest
from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka.protocol.errors import Errors
from kafka.timeline import LATEST_EPOCH
from kafka.utils.topic_partition import TopicPartition
from tests.coordinator.group.shard_harness import Config, Shard

pytestmark = pytest.mark.fast

TP = TopicPartition("t", 0)
COMMIT, ABORT = TransactionResult.COMMIT, TransactionResult.ABORT


def commit(shard, group_id, offset, tp=TP, member_id="", generation=-1, metadata="", api_version=9,
           fail=False):
    return shard.write(lambda: shard.offsets.commit_offset(
        group_id, member_id, None, generation, {tp: OffsetAndMetadata(offset, -1, metadata)}, api_version),
        fail=fail)


def txn_commit(shard, group_id, offset, producer_id=7, member_id="", generation=-1, api_version=3, tp=TP):
    return shard.write(lambda: shard.offsets.commit_transaction_offset(
        group_id, member_id, None, generation, {tp: OffsetAndMetadata(offset)}, api_version),
        producer_id=producer_id)


def fetch(shard, group_id, require_stable=False, tp=TP):
    """As the service does it: a read at the committed offset, or with require_stable a write at the
    latest."""
    epoch = LATEST_EPOCH if require_stable else shard.last_committed
    return shard.offsets.fetch_offsets(group_id, [tp], require_stable, last_committed_offset=epoch)[tp]


def state(shard) -> tuple:
    """Everything the manager holds: committed offsets and, per producer, pending ones."""
    return (sorted(shard.offsets.offsets.items()),
            sorted((pid, sorted(p.items()))
                   for pid, p in shard.offsets.pending_transactional_offsets.items()))


def test_a_commit_is_a_record_that_the_replay_applies():
    shard = Shard()
    assert commit(shard, "g", 10) == {TP: Errors.NONE}
    assert shard.offsets.offsets.get("g", "t", 0).offset == 10
    assert shard.groups["g"].type().value == "classic", "a simple group holds the offsets"
    assert fetch(shard, "g").offset == -1, "not committed yet: a read at the committed offset does not see it"
    shard.commit()
    assert fetch(shard, "g").offset == 10
    assert shard.offsets.num_offsets() == 1


def test_a_failed_append_reverts_the_commit():
    shard = Shard()
    commit(shard, "g", 5)
    shard.commit()
    assert commit(shard, "g", 10, fail=True) == Errors.NOT_LEADER_OR_FOLLOWER
    assert shard.offsets.offsets.get("g", "t", 0).offset == 5, "the snapshot's offset is back"
    assert commit(shard, "other", 1, fail=True) == Errors.NOT_LEADER_OR_FOLLOWER
    assert "other" not in shard.groups and shard.offsets.offsets.get("other", "t", 0) is None


def test_snapshot_commit_revert():
    shard = Shard()
    shard.registry.idempotent_create_snapshot(0)
    commit(shard, "g", 10)
    shard.registry.revert_to_snapshot(0)
    assert shard.offsets.num_offsets() == 0 and "g" not in shard.groups


def test_transactional_offsets_are_pending_until_the_commit_marker():
    shard = Shard()
    assert txn_commit(shard, "g", 10) == {TP: Errors.NONE}
    shard.commit()
    assert fetch(shard, "g").offset == -1, "invisible while the transaction is open"
    assert fetch(shard, "g", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT
    shard.write_marker(7, COMMIT)
    assert fetch(shard, "g", require_stable=True) .offset == 10
    assert fetch(shard, "g").offset == -1, "the marker is not committed yet"
    shard.commit()
    assert fetch(shard, "g").offset == 10 and fetch(shard, "g").error == Errors.NONE


def test_an_abort_drops_the_pending_offsets_and_keeps_the_committed_one():
    shard = Shard()
    commit(shard, "g", 3)
    txn_commit(shard, "g", 10)
    shard.write_marker(7, ABORT)
    assert fetch(shard, "g", require_stable=True).offset == 3
    assert shard.offsets.num_pending_transactional_offsets() == 0


def test_a_commit_written_after_the_transactional_one_wins():
    shard = Shard()
    txn_commit(shard, "g", 10)
    commit(shard, "g", 20)
    shard.write_marker(7, COMMIT)
    assert fetch(shard, "g", require_stable=True).offset == 20, "the log order decides"


def test_a_marker_for_another_producer_leaves_the_offsets_pending():
    shard = Shard()
    txn_commit(shard, "g", 10)
    shard.write_marker(99, COMMIT)
    assert fetch(shard, "g", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT


def test_a_tombstone_removes_pending_offsets_too():
    shard = Shard()
    txn_commit(shard, "g", 10)
    assert shard.write(lambda: shard.offsets.delete_offsets("g", [TP])) == {TP: Errors.NONE}
    assert fetch(shard, "g", require_stable=True).error == Errors.NONE
    shard.write_marker(7, COMMIT)
    assert fetch(shard, "g", require_stable=True).offset == -1


def test_a_failover_replays_committed_aborted_and_open_transactions():
    shard = Shard()
    txn_commit(shard, "committed", 10, producer_id=1)
    txn_commit(shard, "aborted", 11, producer_id=2)
    txn_commit(shard, "open", 12, producer_id=3)
    shard.write_marker(1, COMMIT)
    shard.write_marker(2, ABORT)
    fresh = shard.reload()
    assert fetch(fresh, "committed").offset == 10
    assert fetch(fresh, "aborted").offset == -1
    assert fetch(fresh, "open", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT
    fresh.write_marker(3, COMMIT)  # the open transaction's marker reaches the new coordinator
    assert fetch(fresh, "open", require_stable=True).offset == 12


def test_replaying_the_log_gives_the_same_offsets():
    shard = Shard()
    commit(shard, "g", 1)
    txn_commit(shard, "g", 2, producer_id=1)
    commit(shard, "g", 3, tp=TopicPartition("t", 1))
    txn_commit(shard, "h", 4, producer_id=2)
    commit(shard, "g", 5)
    shard.write_marker(1, COMMIT)
    txn_commit(shard, "g", 6, producer_id=3, tp=TopicPartition("u", 0))
    shard.write(lambda: shard.offsets.delete_offsets("g", [TopicPartition("t", 1)]))
    fresh = shard.reload()
    assert state(fresh) == state(shard)
    assert set(fresh.groups) == set(shard.groups) == {"g", "h"}


def test_a_group_nobody_knows_named_with_a_generation_is_an_illegal_generation():
    """... before OffsetCommit v9 and TxnOffsetCommit v6, which say GROUP_ID_NOT_FOUND (Kafka 4.4)."""
    shard = Shard()
    error = commit(shard, "g", 1, member_id="m", generation=1, api_version=8)
    assert isinstance(error, ApiError) and error.error == Errors.ILLEGAL_GENERATION
    assert "g" not in shard.groups, "no group made of it"
    error = commit(shard, "g", 1, member_id="m", generation=1, api_version=9)
    assert error.error == Errors.GROUP_ID_NOT_FOUND
    error = txn_commit(shard, "g", 1, member_id="m", generation=1, api_version=5)
    assert error.error == Errors.ILLEGAL_GENERATION
    error = txn_commit(shard, "g", 1, member_id="m", generation=1, api_version=6)
    assert error.error == Errors.GROUP_ID_NOT_FOUND


def test_metadata_too_large_is_refused_per_partition():
    shard = Shard(config=Config(offset_metadata_max_size=3))
    other = TopicPartition("t", 1)
    response = shard.write(lambda: shard.offsets.commit_offset(
        "g", "", None, -1,
        {TP: OffsetAndMetadata(1, metadata="long"), other: OffsetAndMetadata(2, metadata="ok")}))
    assert response == {TP: Errors.OFFSET_METADATA_TOO_LARGE, other: Errors.NONE}
    assert shard.offsets.offsets.get("g", "t", 0) is None and shard.offsets.offsets.get("g", "t",
                                                                                        1).offset == 2


def test_the_commit_is_stamped_by_the_coordinator_and_retention_time_gives_an_expiry():
    shard = Shard()
    now = shard.time.milliseconds()
    shard.write(lambda: shard.offsets.commit_offset("g", "", None, -1, {TP: OffsetAndMetadata(1)}, 4, 1000))
    stored = shard.offsets.offsets.get("g", "t", 0)
    assert (stored.commit_timestamp_ms, stored.expire_timestamp_ms) == (now, now + 1000)


def test_fetch_all_and_unknown_groups():
    shard = Shard()
    commit(shard, "g", 1)
    commit(shard, "g", 2, tp=TopicPartition("u", 3))
    shard.commit()
    every = shard.offsets.fetch_offsets("g", None, last_committed_offset=shard.last_committed)
    assert {tp: o.offset for tp, o in every.items()} == {TP: 1, TopicPartition("u", 3): 2}
    assert shard.offsets.fetch_offsets("nobody", [TP])[TP].offset == -1
    assert shard.offsets.fetch_offsets("nobody", None) == {}


def join(shard, group_id, member_id, topics=("orders",)) -> int:
    """A KIP-848 member joins through ConsumerGroupHeartbeat; its member epoch."""
    response = shard.write(lambda: shard.consumer_groups.consumer_group_heartbeat(HeartbeatRequest(
        group_id, member_id, 0, rebalance_timeout_ms=30000, subscribed_topic_names=list(topics),
        topic_partitions={}),
        "client", "/127.0.0.1"))
    assert response["error_code"] == Errors.NONE, response
    return response["member_epoch"]


def test_expired_offsets_become_tombstones_but_not_a_subscribed_topic_or_a_pending_one():
    shard = Shard(config=Config(offsets_retention_ms=1000))
    commit(shard, "simple", 1)
    epoch = join(shard, "cg", "a")
    orders = TopicPartition("orders", 0)
    assert shard.write(lambda: shard.offsets.commit_offset(
        "cg", "a", None, epoch, {orders: OffsetAndMetadata(5), TP: OffsetAndMetadata(6)}, 9)) == {
        orders: Errors.NONE, TP: Errors.NONE}
    txn_commit(shard, "simple", 2)
    def expired() -> list:
        """What the shard's cleanup timer asks, group by group
        (GroupCoordinatorShard.cleanup_group_metadata)."""
        records: list = []
        for group_id in ("cg", "simple"):
            shard.offsets.cleanup_group_expired_offsets(group_id, records, shard.time.milliseconds())
        return records

    shard.time.advance(999)
    assert expired() == []
    shard.time.advance(1)
    tombstones = expired()
    assert [(r.key.group, r.key.topic, r.value) for r in tombstones] == [("cg", "t", None)], \
        "cg reads orders; simple's t-0 waits for its transaction"
    shard.write(lambda: CoordinatorResult(tombstones))
    shard.write_marker(7, ABORT)
    records = []
    assert shard.offsets.cleanup_group_expired_offsets("simple", records,
                                                       shard.time.milliseconds()) is True, \
        "nothing left: it may go"
    assert [(r.key.group, r.key.topic) for r in records] == [("simple", "t")]
    assert shard.offsets.cleanup_group_expired_offsets("cg", [], shard.time.milliseconds()) is False


def test_a_consumer_group_member_commits_with_its_member_epoch():
    shard = Shard()
    epoch = join(shard, "cg", "m")
    assert commit(shard, "cg", 1, member_id="ghost", generation=epoch).error == Errors.UNKNOWN_MEMBER_ID
    assert commit(shard, "cg", 1, member_id="m", generation=epoch,
                  api_version=8).error == Errors.UNSUPPORTED_VERSION
    assert commit(shard, "cg", 1, member_id="m", generation=epoch + 1).error == Errors.STALE_MEMBER_EPOCH
    assert commit(shard, "cg", 1, member_id="m", generation=epoch) == {TP: Errors.NONE}
    assert txn_commit(shard, "cg", 1, member_id="m", generation=epoch + 1).error == Errors.ILLEGAL_GENERATION
    for older in (epoch - 1, -1):  # KIP-1251: judged by the epoch the partition was assigned at
        assert txn_commit(shard, "cg", 1, member_id="m",
                          generation=older).error == Errors.ILLEGAL_GENERATION, older
    assert txn_commit(shard, "cg", 1, member_id="m", generation=epoch - 1, api_version=6).error == \
        Errors.STALE_MEMBER_EPOCH, "TxnOffsetCommit v6 knows STALE_MEMBER_EPOCH"
    assert txn_commit(shard, "cg", 5) == {TP: Errors.NONE}, "no member named at all: accepted"
    assert txn_commit(shard, "cg", 10, member_id="m", generation=epoch) == {TP: Errors.NONE}
    assert fetch(shard, "cg", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT
    shard.write_marker(7, COMMIT)
    assert fetch(shard, "cg", require_stable=True).offset == 10
    assert set(shard.consumer_groups.consumer_group("cg").members) == {"m"}, "still a consumer group"


def test_offset_fetch_checks_a_consumer_group_member():
    shard = Shard()
    epoch = join(shard, "cg", "m")
    assert shard.offsets.fetch_offsets("cg", [TP], member_id="m", member_epoch=epoch)[TP].offset == -1
    with pytest.raises(ApiError) as e:
        shard.offsets.fetch_offsets("cg", [TP], member_id="m", member_epoch=epoch + 1)
    assert e.value.error == Errors.STALE_MEMBER_EPOCH


def test_offset_delete_refuses_the_topics_a_consumer_group_reads():
    shard = Shard()
    epoch = join(shard, "cg", "m")
    orders = TopicPartition("orders", 0)
    commit(shard, "cg", 1, member_id="m", generation=epoch)
    response = shard.write(lambda: shard.offsets.delete_offsets("cg", [orders, TP, TopicPartition("t", 9)]))
    assert response == {orders: Errors.GROUP_SUBSCRIBED_TO_TOPIC, TP: Errors.NONE,
                        TopicPartition("t", 9): Errors.NONE}
    assert shard.offsets.offsets.get("cg", "t", 0) is None
    assert shard.write(lambda: shard.offsets.delete_offsets("nobody",
                                                            [TP])).error == Errors.GROUP_ID_NOT_FOUND


def test_delete_all_offsets_writes_one_tombstone_per_partition():
    shard = Shard()
    commit(shard, "g", 1)
    commit(shard, "g", 2, tp=TopicPartition("u", 0))
    txn_commit(shard, "g", 3)
    txn_commit(shard, "g", 4, producer_id=8, tp=TopicPartition("v", 0))
    records = []
    assert shard.offsets.delete_all_offsets("g", records) == 3
    shard.write(lambda: CoordinatorResult(records))
    shard.write_marker(7, COMMIT)
    shard.write_marker(8, COMMIT)
    assert shard.offsets.num_offsets() == 0 and not shard.offsets.open_transactions.contains_group("g")


def test_an_offset_of_another_topic_id_is_none_to_a_fetch_by_id():
    """Kafka 4.4 keeps the topic id with each offset (OffsetCommitValue v4) and, asked by id (OffsetFetch
    v10), hides an offset committed under another id of that name: the topic was deleted and made again.
    Asked by name, or about an offset from before ids were kept (zero), the offset is there."""
    old, new = uuid.UUID(int=1), uuid.UUID(int=2)
    shard = Shard()
    shard.write(lambda: shard.offsets.commit_offset("g", "", None, -1,
                                                    {TP: OffsetAndMetadata(10, topic_id=old)}, 9))
    shard.commit()
    fresh = shard.reload()  # the id comes back from the record
    for s in (shard, fresh):
        by_id = [s.offsets.fetch_offsets("g", [TP], topic_ids={"t": i})[TP].offset for i in (old, new)]
        assert (by_id, fetch(s, "g").offset) == ([10, -1], 10)
    shard.write(lambda: shard.offsets.commit_offset("g", "", None, -1, {TP: OffsetAndMetadata(11)}, 9))
    shard.commit()
    assert shard.offsets.fetch_offsets("g", [TP], topic_ids={"t": new})[TP].offset == 11
