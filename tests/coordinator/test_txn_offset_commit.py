"""Transactional offset commits (KIP-98, KIP-447) in the GroupCoordinator over a real ReplicaManager
and log: TxnOffsetCommit's offsets stay pending until the producer's marker reaches the group's
partition of __consumer_offsets, a reload replays them the same way, and OffsetFetch with
require_stable says UNSTABLE_OFFSET_COMMIT while they wait. Who may commit: a classic group's member
and generation (KIP-447), a KIP-848 consumer group's member and member epoch."""

from __future__ import annotations

import uuid

from kafka.coordinator import coordinator_records as records
from kafka.coordinator.consumer_group_manager import HeartbeatRequest
from kafka.coordinator.offset_and_metadata import OffsetAndMetadata
from kafka.log.append_origin import AppendOrigin
from kafka.protocol.control_records import end_txn_marker_batch
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import iter_batches
from kafka.utils.topic_partition import TopicPartition
from tests.coordinator.test_group_coordinator import join_and_sync, start_coordinator

TP = TopicPartition("t", 0)
OFFSETS_TP = TopicPartition(records.GROUP_METADATA_TOPIC_NAME, 0)
PRODUCER_ID, EPOCH = 7, 0


def txn_commit(coordinator, group_id, offset, producer_id=PRODUCER_ID, epoch=EPOCH, member_id="",
               generation_id=-1, group_instance_id=None, tp=TP) -> dict:
    statuses = []
    coordinator.offset_metadata_manager.txn_commit_offsets(
        group_id, "txn-1", producer_id, epoch, member_id, group_instance_id, generation_id,
        {tp: OffsetAndMetadata(offset, -1, "", coordinator.time.milliseconds())}, statuses.append)
    assert len(statuses) == 1, "the append to __consumer_offsets answers at once on one broker"
    return statuses[0]


def write_marker(replica_manager, coordinator, committed: bool, producer_id=PRODUCER_ID, epoch=EPOCH) -> None:
    """What T1's WriteTxnMarkers handler does: append the marker, then tell the group coordinator."""
    statuses = []
    replica_manager.append_records(5000, -1, True, {OFFSETS_TP: end_txn_marker_batch(
        producer_id, epoch, committed, 0, coordinator.time.milliseconds())}, statuses.append,
        origin=AppendOrigin.COORDINATOR)
    assert statuses[0][OFFSETS_TP].error == Errors.NONE
    coordinator.handle_txn_completion(producer_id, [0], committed)


def fetch(coordinator, group_id, require_stable=False):
    error, offsets = coordinator.offset_metadata_manager.fetch_offsets(group_id, require_stable, [TP])
    assert error == Errors.NONE
    return offsets[TP]


def test_transactional_offsets_are_pending_until_the_commit_marker(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    try:
        assert txn_commit(coordinator, "g", 10) == {TP: Errors.NONE}
        assert fetch(coordinator, "g").offset == -1  # invisible while the transaction is open
        assert fetch(coordinator, "g", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT
        write_marker(replica_manager, coordinator, committed=True)
        assert fetch(coordinator, "g").offset == 10
        assert fetch(coordinator, "g", require_stable=True).error == Errors.NONE
    finally:
        coordinator.shutdown()


def test_the_batch_is_transactional_and_carries_the_producer(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    try:
        txn_commit(coordinator, "g", 10)
        data = replica_manager.read_partition_log(OFFSETS_TP, 0, 1 << 20)
        (batch,) = list(iter_batches(data.records))
        assert batch.is_transactional and not batch.is_control_batch
        assert (batch.producer_id, batch.producer_epoch) == (PRODUCER_ID, EPOCH)
    finally:
        coordinator.shutdown()


def test_an_abort_drops_the_pending_offsets_and_keeps_the_committed_one(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    try:
        statuses = []
        coordinator.offset_metadata_manager.commit_offset(
            "g", "", None, -1, {TP: OffsetAndMetadata(3, -1, "", time.milliseconds())}, statuses.append)
        txn_commit(coordinator, "g", 10)
        write_marker(replica_manager, coordinator, committed=False)
        assert fetch(coordinator, "g", require_stable=True).offset == 3
    finally:
        coordinator.shutdown()


def test_a_commit_written_after_the_transactional_one_wins(replica_manager, time):
    """The transaction commits after a plain commit written later in the log: the log order decides."""
    coordinator = start_coordinator(replica_manager, time)
    try:
        txn_commit(coordinator, "g", 10)
        statuses = []
        coordinator.offset_metadata_manager.commit_offset(
            "g", "", None, -1, {TP: OffsetAndMetadata(20, -1, "", time.milliseconds())}, statuses.append)
        write_marker(replica_manager, coordinator, committed=True)
        assert fetch(coordinator, "g").offset == 20
    finally:
        coordinator.shutdown()


def test_a_marker_for_another_producer_leaves_the_offsets_pending(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    try:
        txn_commit(coordinator, "g", 10)
        write_marker(replica_manager, coordinator, committed=True, producer_id=99)
        assert fetch(coordinator, "g", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT
    finally:
        coordinator.shutdown()


def test_a_reload_replays_committed_aborted_and_open_transactions(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    txn_commit(coordinator, "committed", 10, producer_id=1)
    txn_commit(coordinator, "aborted", 11, producer_id=2)
    txn_commit(coordinator, "open", 12, producer_id=3)
    write_marker(replica_manager, coordinator, committed=True, producer_id=1)
    write_marker(replica_manager, coordinator, committed=False, producer_id=2)
    coordinator.shutdown()

    coordinator = start_coordinator(replica_manager, time)  # a failover: the new leader replays the log
    try:
        assert fetch(coordinator, "committed").offset == 10
        assert fetch(coordinator, "aborted").offset == -1
        assert fetch(coordinator, "open").offset == -1
        assert fetch(coordinator, "open", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT
        assert coordinator.group_manager.get_group("aborted") is None  # nothing of it survived
        # The open transaction's marker arrives at the new leader, which completes it.
        write_marker(replica_manager, coordinator, committed=True, producer_id=3)
        assert fetch(coordinator, "open", require_stable=True).offset == 12
    finally:
        coordinator.shutdown()


def test_a_reload_reads_past_a_lagging_high_watermark_to_the_log_end(replica_manager, time):
    """Found by the nemesis (seed 2): the old leader of the group's partition appended TxnOffsetCommit and
    was paused before its followers heard the HW move past it. The new leader, HW below those offsets,
    must load them as pending, or the COMMIT marker that follows completes nothing and OffsetFetch
    answers the offsets of the transaction before, behind the output the transaction committed."""
    coordinator = start_coordinator(replica_manager, time)
    txn_commit(coordinator, "g", 12)
    coordinator.shutdown()
    replica_manager.get_partition(OFFSETS_TP).log.update_high_watermark(0)  # the new leader's view
    coordinator = start_coordinator(replica_manager, time)
    try:
        assert fetch(coordinator, "g", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT
        write_marker(replica_manager, coordinator, committed=True)
        assert fetch(coordinator, "g", require_stable=True).offset == 12
    finally:
        coordinator.shutdown()


def test_a_reload_keeps_a_plain_commit_written_after_a_committed_transaction(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    txn_commit(coordinator, "g", 10)
    statuses = []
    coordinator.offset_metadata_manager.commit_offset(
        "g", "", None, -1, {TP: OffsetAndMetadata(20, -1, "", time.milliseconds())}, statuses.append)
    write_marker(replica_manager, coordinator, committed=True)
    coordinator.shutdown()
    coordinator = start_coordinator(replica_manager, time)
    try:
        assert fetch(coordinator, "g").offset == 20
    finally:
        coordinator.shutdown()


def test_kip_447_member_and_generation_are_checked(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    try:
        member_id = join_and_sync(coordinator, "g", session_timeout_ms=10_000)
        assert txn_commit(coordinator, "g", 1, member_id="ghost", generation_id=1) == {TP: Errors.UNKNOWN_MEMBER_ID}
        assert txn_commit(coordinator, "g", 1, member_id=member_id, generation_id=0) == {
            TP: Errors.ILLEGAL_GENERATION}
        # Before v3 the request names no member: accepted for a group with members.
        assert txn_commit(coordinator, "g", 1) == {TP: Errors.NONE}
        assert txn_commit(coordinator, "g", 2, member_id=member_id, generation_id=1) == {TP: Errors.NONE}
        assert fetch(coordinator, "g").offset == -1
    finally:
        coordinator.shutdown()


def test_a_static_member_replaced_by_a_newer_instance_is_fenced(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    try:
        joined = []
        coordinator.handle_join_group("s", "", "instance-1", False, "client", "/127.0.0.1", 1000, 10_000,
                                      "consumer", [("range", b"")], joined.append)
        current = joined[0].member_id
        assert txn_commit(coordinator, "s", 1, member_id="an-old-member-id", generation_id=1,
                          group_instance_id="instance-1") == {TP: Errors.FENCED_INSTANCE_ID}
        assert current
    finally:
        coordinator.shutdown()


def test_a_group_this_broker_does_not_coordinate(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    try:
        coordinator.on_resignation([0])
        assert txn_commit(coordinator, "g", 1) == {TP: Errors.NOT_COORDINATOR}
    finally:
        coordinator.shutdown()


def test_the_transaction_verifier_refuses_a_group_not_in_the_transaction(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    try:
        asked = []

        def verifier(transactional_id, producer_id, producer_epoch, partition):
            asked.append((transactional_id, producer_id, producer_epoch, partition))
            return Errors.INVALID_TXN_STATE

        coordinator.transaction_verifier = verifier
        assert txn_commit(coordinator, "g", 1) == {TP: Errors.INVALID_TXN_STATE}
        assert asked == [("txn-1", PRODUCER_ID, EPOCH, 0)]
        data = replica_manager.read_partition_log(OFFSETS_TP, 0, 1 << 20)
        assert not data.records  # the partition is unharmed: nothing was written
    finally:
        coordinator.shutdown()


def test_a_group_nobody_knows_named_with_a_generation_is_an_illegal_generation(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    try:
        assert txn_commit(coordinator, "g", 1, member_id="m", generation_id=1) == {TP: Errors.ILLEGAL_GENERATION}
        assert coordinator.group_manager.get_group("g") is None, "no group made of it"
        assert txn_commit(coordinator, "g", 1, member_id="m") == {TP: Errors.NONE}, "-1: a simple group's commit"
    finally:
        coordinator.shutdown()


def join_consumer_group(coordinator, group_id: str, member_id: str) -> int:
    """A KIP-848 member joins through ConsumerGroupHeartbeat; its member epoch."""
    coordinator.consumer_groups.topics_image = lambda: {TP.topic: (uuid.UUID(int=1), 1)}
    answers = []
    coordinator.consumer_groups.consumer_group_heartbeat(HeartbeatRequest(
        group_id, member_id, 0, rebalance_timeout_ms=30000, subscribed_topic_names=[TP.topic], topic_partitions={}),
        "client", "/127.0.0.1", answers.append)
    assert len(answers) == 1 and answers[0]["error_code"] == Errors.NONE, answers
    return answers[0]["member_epoch"]


def test_a_consumer_group_member_commits_with_its_member_epoch(replica_manager, time):
    """The bug: a KIP-848 member's TxnOffsetCommit was checked against the classic groups (UNKNOWN_MEMBER_ID
    for every one). It is checked against the consumer group, as Kafka's ConsumerGroup.validateOffsetCommit
    with isTransactional, and the stale epoch is ILLEGAL_GENERATION (TxnOffsetCommit before v6)."""
    coordinator = start_coordinator(replica_manager, time)
    try:
        epoch = join_consumer_group(coordinator, "cg", "m")
        assert txn_commit(coordinator, "cg", 1, member_id="ghost", generation_id=epoch) == {TP: Errors.UNKNOWN_MEMBER_ID}
        assert txn_commit(coordinator, "cg", 1, member_id="", generation_id=epoch) == {TP: Errors.UNKNOWN_MEMBER_ID}
        for stale in (epoch + 1, epoch - 1, -1):
            assert txn_commit(coordinator, "cg", 1, member_id="m", generation_id=stale) == {
                TP: Errors.ILLEGAL_GENERATION}, stale
        assert txn_commit(coordinator, "cg", 5) == {TP: Errors.NONE}, "no member named at all: accepted"
        assert txn_commit(coordinator, "cg", 10, member_id="m", generation_id=epoch) == {TP: Errors.NONE}
        assert fetch(coordinator, "cg").offset == -1
        assert fetch(coordinator, "cg", require_stable=True).error == Errors.UNSTABLE_OFFSET_COMMIT
        write_marker(replica_manager, coordinator, committed=True)
        assert fetch(coordinator, "cg", require_stable=True).offset == 10, "the marker commits them, as for classic"
        assert coordinator.consumer_groups.consumer_group("cg").members.keys() == {"m"}, "still a consumer group"
    finally:
        coordinator.shutdown()


def test_a_consumer_group_members_aborted_offsets_go_and_a_reload_replays_the_committed(replica_manager, time):
    coordinator = start_coordinator(replica_manager, time)
    epoch = join_consumer_group(coordinator, "cg", "m")
    assert txn_commit(coordinator, "cg", 10, member_id="m", generation_id=epoch) == {TP: Errors.NONE}
    write_marker(replica_manager, coordinator, committed=True)
    assert txn_commit(coordinator, "cg", 20, producer_id=8, member_id="m", generation_id=epoch) == {TP: Errors.NONE}
    write_marker(replica_manager, coordinator, committed=False, producer_id=8)
    assert fetch(coordinator, "cg", require_stable=True).offset == 10
    coordinator.shutdown()

    coordinator = start_coordinator(replica_manager, time)
    try:
        assert fetch(coordinator, "cg", require_stable=True).offset == 10
        assert txn_commit(coordinator, "cg", 30, member_id="m", generation_id=epoch) == {TP: Errors.NONE}, \
            "the member and its epoch came back with the group's records"
    finally:
        coordinator.shutdown()
