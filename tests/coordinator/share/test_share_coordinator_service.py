"""The five share-group state operations of the ShareCoordinatorService, over the coordinator runtime and
a real ReplicaManager and log on a mock clock: Kafka 4.4's validation, fencing and answers, and the
merge of the batches a WriteShareGroupState brings over the state held."""

from __future__ import annotations

import pytest

from kafka.coordinator.share.share_coordinator_config import ShareCoordinatorConfig
from kafka.coordinator.share.share_coordinator_records import ShareSnapshotKey, ShareUpdateKey
from kafka.coordinator.share.share_coordinator_service import ShareCoordinatorService
from kafka.coordinator.share.share_partition_key import SharePartitionKey
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from tests.coordinator.share.share_coordinator_harness import (
    TOPIC_ID,
    UNKNOWN_TOPIC_ID,
    ShareCoordinator,
    batch,
    done,
    image_with_topic,
    only_partition,
    request,
)
from tests.helpers import wait_until

pytestmark = pytest.mark.fast

AVAILABLE, ACKNOWLEDGED, ARCHIVED = 0, 2, 4


def state_of(answer: dict) -> tuple:
    assert answer["error_code"] == Errors.NONE, answer
    batches = [(b["first_offset"], b["last_offset"], b["delivery_state"], b["delivery_count"])
               for b in answer["state_batches"]]
    return answer["state_epoch"], answer["start_offset"], batches


# ---------------------------------------------------------------------- initialize, write, read
def test_initialize_then_read_gives_the_start_offset_and_no_batches(coordinator):
    assert coordinator.initialize(state_epoch=1, start_offset=100) == dict(
        partition=0, error_code=Errors.NONE, error_message=None)
    assert state_of(coordinator.read()) == (1, 100, [])
    [(_, record)] = coordinator.records()
    assert isinstance(record.key, ShareSnapshotKey) and record.value.snapshot_epoch == 0
    assert record.value.delivery_complete_count == 0  # a start offset: nothing complete yet


def test_a_write_and_a_read_round_trip(coordinator):
    coordinator.initialize(start_offset=0)
    assert coordinator.write([batch(0, 9, ACKNOWLEDGED, 1), batch(10, 14, AVAILABLE, 2)],
                             start_offset=0) == dict(
        partition=0, error_code=Errors.NONE, error_message=None)
    assert state_of(coordinator.read()) == (0, 0, [(0, 9, ACKNOWLEDGED, 1), (10, 14, AVAILABLE, 2)])
    assert isinstance(coordinator.records()[-1][1].key, ShareUpdateKey)


def test_overlapping_batches_merge_by_delivery_count_then_state(coordinator):
    coordinator.initialize(start_offset=0)
    coordinator.write([batch(0, 19, AVAILABLE, 1)])
    # offsets 5-9 redelivered and acknowledged; 8-12 archived at a higher count; within one write too
    coordinator.write([batch(5, 9, ACKNOWLEDGED, 2), batch(8, 12, ARCHIVED, 3)])
    assert state_of(coordinator.read())[2] == [(0, 4, AVAILABLE, 1), (5, 7, ACKNOWLEDGED, 2),
                                               (8, 12, ARCHIVED, 3),
                                               (13, 19, AVAILABLE, 1)]
    # an older, lower-count view of the same offsets loses; the same count with a later state wins
    coordinator.write([batch(0, 4, AVAILABLE, 0), batch(13, 19, ACKNOWLEDGED, 1)])
    assert state_of(coordinator.read())[2] == [(0, 4, AVAILABLE, 1), (5, 7, ACKNOWLEDGED, 2),
                                               (8, 12, ARCHIVED, 3),
                                               (13, 19, ACKNOWLEDGED, 1)]


def test_a_start_offset_moving_up_drops_the_batches_before_it(coordinator):
    coordinator.initialize(start_offset=0)
    coordinator.write([batch(0, 9, ACKNOWLEDGED, 1), batch(10, 19, AVAILABLE, 1)], start_offset=0)
    coordinator.write([], start_offset=15)
    assert state_of(coordinator.read()) == (0, 15, [(15, 19, AVAILABLE, 1)])
    coordinator.write([], start_offset=3)  # never back: the larger of the two is kept
    assert state_of(coordinator.read())[1] == 15


def test_the_delivery_complete_count_follows_kafkas_rule(coordinator):
    """KIP-1226: kept at the larger value while the start offset stays, taken from the write when the
    start offset moves up, ignored from a write behind the start offset."""
    coordinator.initialize(start_offset=10)
    coordinator.write([], start_offset=10, delivery_complete_count=4)
    coordinator.write([], start_offset=10, delivery_complete_count=2)
    assert coordinator.summary()["delivery_complete_count"] == 4
    coordinator.write([], start_offset=12, delivery_complete_count=1)
    assert coordinator.summary()["delivery_complete_count"] == 1
    coordinator.write([], start_offset=5, delivery_complete_count=9)
    assert coordinator.summary()["delivery_complete_count"] == 1


def test_one_request_for_several_partitions_is_answered_by_topic(coordinator):
    for p in range(3):
        coordinator.initialize(partition=p, start_offset=p)
    answer = done(coordinator.service.read_state(request(ApiKey.READ_SHARE_GROUP_STATE,
                                                         dict(group_id="g", topics=[
        dict(topic_id=TOPIC_ID,
             partitions=[dict(partition=2, leader_epoch=0), dict(partition=0, leader_epoch=0)]),
        dict(topic_id=UNKNOWN_TOPIC_ID, partitions=[dict(partition=0, leader_epoch=0)])]))))
    [known, unknown] = answer["results"]
    assert [(p["partition"], p["start_offset"]) for p in known["partitions"]] == [(2, 2), (0, 0)]
    assert unknown["partitions"][0]["error_code"] == Errors.INVALID_REQUEST  # never initialized


# ---------------------------------------------------------------------- refusals
def test_reading_or_writing_a_share_partition_never_initialized_is_an_invalid_request(coordinator):
    read = coordinator.read()
    assert (read["error_code"], read["error_message"]) == (
        Errors.INVALID_REQUEST, "Read operation on uninitialized share partition not allowed.")
    write = coordinator.write([batch(0, 1, AVAILABLE, 1)])
    assert (write["error_code"], write["error_message"]) == (
        Errors.INVALID_REQUEST, "Write operation on uninitialized share partition not allowed.")
    assert coordinator.records() == []


@pytest.mark.parametrize(("fields", "message"), [
    (dict(partition=-1), "The partition id cannot be a negative number."),
    (dict(leader_epoch=-1), "The leader epoch cannot be a negative number."),
    (dict(state_epoch=-1), "The state epoch cannot be a negative number."),
])
def test_negative_ids_and_epochs_are_invalid_requests(coordinator, fields, message):
    coordinator.initialize()
    answer = coordinator.write([], **fields)
    assert (answer["error_code"], answer["error_message"]) == (Errors.INVALID_REQUEST, message)


def test_an_older_leader_is_fenced_once_a_newer_one_has_read(coordinator):
    coordinator.initialize()
    assert coordinator.read(leader_epoch=5)["error_code"] == Errors.NONE  # the new leader's read records 5
    assert coordinator.write([batch(0, 0, ACKNOWLEDGED, 1)],
                             leader_epoch=4)["error_code"] == Errors.FENCED_LEADER_EPOCH
    assert coordinator.read(leader_epoch=4)["error_code"] == Errors.FENCED_LEADER_EPOCH
    assert coordinator.write([batch(0, 0, ACKNOWLEDGED, 1)], leader_epoch=5)["error_code"] == Errors.NONE
    assert coordinator.summary()["leader_epoch"] == 5


def test_a_read_writes_a_record_only_when_the_leader_epoch_is_new(coordinator):
    coordinator.initialize()
    coordinator.read(leader_epoch=0)
    assert len(coordinator.records()) == 1  # epoch 0 already known from the snapshot
    coordinator.read(leader_epoch=3)
    coordinator.read(leader_epoch=3)
    [_, (_, update)] = coordinator.records()
    assert isinstance(update.key, ShareUpdateKey)
    assert update.value.leader_epoch == 3 and update.value.state_batches == ()


def test_a_write_from_before_an_offsets_reset_is_fenced_by_the_state_epoch(coordinator):
    coordinator.initialize(state_epoch=1, start_offset=0)
    coordinator.write([batch(0, 4, ACKNOWLEDGED, 1)], state_epoch=1)
    assert coordinator.initialize(state_epoch=2, start_offset=50)["error_code"] == Errors.NONE  # the reset
    assert coordinator.write([batch(5, 9, ACKNOWLEDGED, 1)],
                             state_epoch=1)["error_code"] == Errors.FENCED_STATE_EPOCH
    assert coordinator.initialize(state_epoch=1)["error_code"] == Errors.FENCED_STATE_EPOCH
    assert state_of(coordinator.read()) == (2, 50, [])


def test_a_topic_or_partition_the_metadata_does_not_know_is_refused(coordinator):
    answer = coordinator.initialize(topic_id=UNKNOWN_TOPIC_ID)
    assert answer["error_code"] == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert coordinator.initialize(partition=3)["error_code"] == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert coordinator.summary(partition=3)["error_code"] == Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert coordinator.delete(partition=3)["error_code"] == Errors.UNKNOWN_TOPIC_OR_PARTITION


def test_an_empty_group_id_or_topic_list_gets_an_empty_answer(coordinator):
    service = coordinator.service
    no_group = dict(group_id="", topics=[dict(topic_id=TOPIC_ID, partitions=[dict(partition=0)])])
    no_topics = dict(group_id="g", topics=[])
    no_partitions = dict(group_id="g", topics=[dict(topic_id=TOPIC_ID, partitions=[])])
    for call, api_key, body in [(service.write_state, ApiKey.WRITE_SHARE_GROUP_STATE, no_group),
                                (service.read_state, ApiKey.READ_SHARE_GROUP_STATE, no_topics),
                                (service.delete_state, ApiKey.DELETE_SHARE_GROUP_STATE, no_partitions)]:
        assert done(call(request(api_key, body))) == dict(results=[])


# ---------------------------------------------------------------------- where the coordinator is
def test_a_coordinator_not_started_answers_coordinator_not_available(replica_manager, time):
    c = ShareCoordinator(replica_manager, time, start=False)
    answer = c.read()
    assert (answer["error_code"], answer["error_message"]) == (Errors.COORDINATOR_NOT_AVAILABLE,
                                                               "Share coordinator is not available.")
    assert c.summary()["error_code"] == Errors.COORDINATOR_NOT_AVAILABLE


def test_while_the_partition_loads_the_answer_is_load_in_progress_then_it_is_served(replica_manager, time):
    c = ShareCoordinator(replica_manager, time, load_now=False)
    try:
        answer = c.initialize()
        assert answer["error_code"] == Errors.COORDINATOR_LOAD_IN_PROGRESS
        assert answer["error_message"].startswith("Unable to initialize share group state: ")
        c.loader_executor.run_all()
        assert c.initialize()["error_code"] == Errors.NONE
    finally:
        c.shutdown()


def test_a_partition_not_led_here_answers_not_coordinator(coordinator):
    coordinator.service.on_resignation(0, 1)
    assert coordinator.read()["error_code"] == Errors.NOT_COORDINATOR


def test_the_key_picks_the_partition_as_kafka_does(coordinator):
    service = ShareCoordinatorService(ShareCoordinatorConfig(), coordinator.runtime, coordinator.time)
    service.startup()
    assert service.partition_for(SharePartitionKey("g:1", TOPIC_ID, 3)) == 5  # what Kafka 4.4 computes
    assert service.share_group_state_topic_configs() == {
        "cleanup.policy": "delete", "compression.type": "producer", "segment.bytes": "104857600",
        "min.insync.replicas": "2", "retention.ms": "-1"}


# ---------------------------------------------------------------------- summary and delete
def test_the_summary_of_a_state_nobody_initialized_has_no_start_offset(coordinator):
    assert coordinator.summary() == dict(partition=0, error_code=Errors.NONE, error_message=None,
                                         start_offset=-1,
                                         delivery_complete_count=-1, leader_epoch=0, state_epoch=0)


def test_the_summary_reads_without_fencing_or_recording_anything(coordinator):
    coordinator.initialize(state_epoch=2, start_offset=40)
    coordinator.read(leader_epoch=7)
    records = len(coordinator.records())
    answer = coordinator.summary(leader_epoch=1)  # an old epoch: not fenced
    assert (answer["error_code"], answer["state_epoch"], answer["leader_epoch"], answer["start_offset"]) == (
        Errors.NONE, 2, 7, 40)
    assert len(coordinator.records()) == records


def test_delete_writes_a_tombstone_and_the_state_is_gone(coordinator):
    coordinator.initialize(start_offset=5)
    assert coordinator.delete() == dict(partition=0, error_code=Errors.NONE, error_message=None)
    (_, tombstone) = coordinator.records()[-1]
    assert isinstance(tombstone.key, ShareSnapshotKey) and tombstone.value is None
    assert coordinator.read()["error_code"] == Errors.INVALID_REQUEST
    assert coordinator.summary()["start_offset"] == -1
    records = len(coordinator.records())
    assert coordinator.delete()["error_code"] == Errors.NONE  # nothing to delete: nothing written
    assert len(coordinator.records()) == records


# ---------------------------------------------------------------------- as the broker builds it
def test_the_built_service_runs_on_its_own_threads(replica_manager, time):
    """ShareCoordinatorService.build: share.coordinator.threads event threads, a loader thread and a timer
    reaper; a write is answered from them, and shutdown stops them all."""
    service = ShareCoordinatorService.build(1, ShareCoordinatorConfig(state_topic_num_partitions=1),
                                            replica_manager,
                                            time)
    try:
        service.startup(lambda: 1)
        service.on_metadata_update(None, image_with_topic())
        service.on_election(0, 0)
        initialize = request(ApiKey.INITIALIZE_SHARE_GROUP_STATE, dict(group_id="g", topics=[dict(
            topic_id=TOPIC_ID, partitions=[dict(partition=0, state_epoch=0, start_offset=3)])]))

        def initialized() -> bool:
            answer = only_partition(service.initialize_state(initialize).result(10))
            return answer["error_code"] == Errors.NONE
        wait_until(initialized, message="the shard to load and answer")
        summary = service.read_state_summary(request(ApiKey.READ_SHARE_GROUP_STATE_SUMMARY, dict(
            group_id="g", topics=[dict(topic_id=TOPIC_ID, partitions=[dict(partition=0, leader_epoch=0)])])))
        assert only_partition(summary.result(10))["start_offset"] == 3
    finally:
        service.shutdown()
