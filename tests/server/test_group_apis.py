"""GroupApis without a broker: built as KafkaServer builds it, over a real GroupCoordinatorService
whose shard of __consumer_offsets-0 appends through a real ReplicaManager (the metadata image says
this broker leads it), requests encoded as a client sends them, the encoded responses checked.

FindCoordinator names the leader of the group's partition, or asks for __consumer_offsets on first
use; a classic member joins, syncs, commits and fetches its offset; a transactional id's
coordinator is the TransactionCoordinator's to name, and without one there is none."""

from __future__ import annotations

import uuid

import pytest

from kafka.coordinator.group.group_coordinator_records import GROUP_METADATA_TOPIC_NAME
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.auto_topic_creation_manager import AutoTopicCreationManager
from kafka.server.group_apis import GroupApis
from tests.server.handler_harness import (
    HOST,
    NODE_ID,
    PORT,
    BrokerParts,
    IoThread,
    broker_registration,
    topic_records,
)

GROUP_OVERRIDES = {"offsets.topic.num.partitions": "1", "group.initial.rebalance.delay.ms": "100",
                   "group.min.session.timeout.ms": "100"}
GROUP, TRANSACTION = 0, 1  # FindCoordinator's key types


@pytest.fixture
def parts(tmp_path):
    parts = BrokerParts(tmp_path, GROUP_OVERRIDES)
    parts.coordinator, parts.timer = parts.group_coordinator()
    parts.install_publisher(group_coordinator=parts.coordinator)
    parts.publish(broker_registration(), *topic_records("orders", 2))
    yield parts
    parts.close(parts.coordinator.shutdown, parts.timer.shutdown)


def group_apis(parts: BrokerParts) -> tuple[IoThread, AutoTopicCreationManager]:
    creator = AutoTopicCreationManager(parts.config, parts.admin_manager)
    family = GroupApis(parts.request_helper, parts.auth_helper, parts.coordinator, parts.metadata_cache,
                       creator,
                       parts.config)
    return IoThread(parts.request_helper, family), creator


def find_coordinator(parts: BrokerParts, io_thread: IoThread, key: str, key_type: int = GROUP):
    (coordinator,) = parts.call(io_thread, ApiKey.FIND_COORDINATOR, 4,
                                dict(key_type=key_type, coordinator_keys=[key])).coordinators
    return coordinator


def test_find_coordinator_asks_for_the_offsets_topic_then_names_its_leader(parts):
    io_thread, creator = group_apis(parts)

    first = find_coordinator(parts, io_thread, "payments")
    assert (first.error_code, first.error_message) == (Errors.COORDINATOR_NOT_AVAILABLE,
                                                      f"{GROUP_METADATA_TOPIC_NAME} is being created")
    assert creator.is_inflight(GROUP_METADATA_TOPIC_NAME), "CreateTopics forwarded to the controller"

    parts.publish(*topic_records(GROUP_METADATA_TOPIC_NAME, 1))  # the controller created it; we lead it
    parts.controller_gone()  # the forward's own answer no longer matters: the topic is in the image
    found = find_coordinator(parts, io_thread, "payments")
    assert (found.error_code, found.node_id, found.host, found.port) == (Errors.NONE, NODE_ID, HOST, PORT)


def test_a_transactional_id_has_no_coordinator_on_a_broker_without_one(parts):
    io_thread, _ = group_apis(parts)
    answer = find_coordinator(parts, io_thread, "orders-tx", TRANSACTION)
    assert (answer.error_code, answer.error_message) == (Errors.COORDINATOR_NOT_AVAILABLE,
                                                        "this broker has no transaction coordinator")


def test_a_classic_member_joins_syncs_commits_and_fetches_its_offset(parts):
    parts.publish(*topic_records(GROUP_METADATA_TOPIC_NAME, 1))
    io_thread, _ = group_apis(parts)

    def join_body(member_id: str) -> dict:
        return dict(group_id="g", session_timeout_ms=10_000, rebalance_timeout_ms=1000, member_id=member_id,
                    group_instance_id=None, protocol_type="consumer",
                    protocols=[dict(name="range", metadata=b"")])

    first = parts.call(io_thread, ApiKey.JOIN_GROUP, 7, join_body(""))  # KIP-394: a member id first
    assert first.error_code == Errors.MEMBER_ID_REQUIRED and first.member_id
    join = parts.send(io_thread, ApiKey.JOIN_GROUP, 7, join_body(first.member_id))
    assert not parts.answered(join), "waits in the rebalance, no I/O thread held"
    parts.time.sleep(100)  # group.initial.rebalance.delay.ms: then the rebalance completes
    parts.timer.advance_clock(0)
    joined = parts.response(join)
    assert (joined.error_code, joined.generation_id, joined.leader) == (Errors.NONE, 1, joined.member_id)

    synced = parts.call(io_thread, ApiKey.SYNC_GROUP, 5, dict(
        group_id="g", generation_id=1, member_id=joined.member_id, group_instance_id=None,
        protocol_type="consumer",
        protocol_name="range", assignments=[dict(member_id=joined.member_id, assignment=b"orders-0")]))
    assert (synced.error_code, synced.assignment) == (Errors.NONE, b"orders-0")

    committed = parts.call(io_thread, ApiKey.OFFSET_COMMIT, 8, dict(
        group_id="g", generation_id_or_member_epoch=1, member_id=joined.member_id, group_instance_id=None,
        topics=[dict(name="orders",
                     partitions=[dict(partition_index=0, committed_offset=42, committed_leader_epoch=-1,
                                                     committed_metadata=""),
                                 dict(partition_index=7, committed_offset=1,
                                                     committed_leader_epoch=-1,
                                                     committed_metadata="")])]))
    # Kafka's order: the partitions KafkaApis refuses itself first, then the coordinator's answers
    assert [(p.partition_index, p.error_code) for p in committed.topics[0].partitions] == [
        (7, Errors.UNKNOWN_TOPIC_OR_PARTITION), (0, Errors.NONE)]

    fetched = parts.call(io_thread, ApiKey.OFFSET_FETCH, 8, dict(require_stable=False, groups=[
        dict(group_id="g", topics=[dict(name="orders", partition_indexes=[0])])]))
    (group,) = fetched.groups
    assert (group.error_code,
            [(p.partition_index, p.committed_offset) for p in group.topics[0].partitions]) == (
        Errors.NONE, [(0, 42)])


def test_offset_commit_and_fetch_v10_resolve_topic_ids_through_the_metadata_cache(parts):
    """KIP-848's v10: topics by id. Known ids are committed under the topic's name; an unknown id is
    UNKNOWN_TOPIC_ID, answered by GroupApis itself before the coordinator's answers (Kafka's Builder)."""
    parts.publish(*topic_records(GROUP_METADATA_TOPIC_NAME, 1))
    io_thread, _ = group_apis(parts)
    orders, nobody = parts.metadata_cache.get_topic("orders").topic_id, uuid.uuid4()

    def partitions(offset: int) -> list[dict]:
        return [dict(partition_index=0, committed_offset=offset, committed_leader_epoch=-1,
                     committed_metadata="")]

    committed = parts.call(io_thread, ApiKey.OFFSET_COMMIT, 10, dict(
        group_id="simple", generation_id_or_member_epoch=-1, member_id="", group_instance_id=None,
        topics=[dict(topic_id=orders, partitions=partitions(42)),
                dict(topic_id=nobody, partitions=partitions(1))]))
    assert [(t.topic_id, [(p.partition_index, p.error_code) for p in t.partitions])
            for t in committed.topics] == [(nobody, [(0, Errors.UNKNOWN_TOPIC_ID)]),
                                           (orders, [(0, Errors.NONE)])]

    fetched = parts.call(io_thread, ApiKey.OFFSET_FETCH, 10, dict(require_stable=False, groups=[dict(
        group_id="simple", topics=[dict(topic_id=nobody, partition_indexes=[3]),
                                   dict(topic_id=orders, partition_indexes=[0])])]))
    assert [(t.topic_id, [(p.partition_index, p.committed_offset, p.error_code) for p in t.partitions])
            for t in fetched.groups[0].topics] == [(orders, [(0, 42, Errors.NONE)]),
                                                   (nobody, [(3, -1, Errors.UNKNOWN_TOPIC_ID)])]
    everything = parts.call(io_thread, ApiKey.OFFSET_FETCH, 10, dict(require_stable=False, groups=[dict(
        group_id="simple", topics=None)]))
    assert [t.topic_id for t in everything.groups[0].topics] == [orders]
    by_name = parts.call(io_thread, ApiKey.OFFSET_FETCH, 9, dict(require_stable=False, groups=[dict(
        group_id="simple", topics=[dict(name="orders", partition_indexes=[0])])]))
    assert by_name.groups[0].topics[0].partitions[0].committed_offset == 42
