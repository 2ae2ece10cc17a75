"""ShareGroupAdminApis (KIP-932's DescribeShareGroupOffsets, AlterShareGroupOffsets and
DeleteShareGroupOffsets) without a broker, over a real GroupCoordinatorService leading __consumer_offsets-0
through a real ReplicaManager, its persister calls going to an in-memory Persister (tests/server/share) as
KafkaServer sends them to the DefaultStatePersister. Requests go in as frames and responses come out as
the bytes a Processor would write. Also: ListGroups of the share type and DeleteGroups of a share group,
through GroupApis."""

from __future__ import annotations

import uuid

import pytest

from kafka.coordinator.group.group_coordinator_records import GROUP_METADATA_TOPIC_NAME
from kafka.coordinator.group.group_coordinator_requests import RequestContext
from kafka.coordinator.group.group_coordinator_service import high_watermark
from kafka.coordinator.group.share_group_manager import ShareGroupHeartbeatRequest
from kafka.protocol.acl import AclOperation, ResourceType
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from kafka.security.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka.server.auto_topic_creation_manager import AutoTopicCreationManager
from kafka.server.group_apis import GroupApis
from kafka.server.share.persister.persister import PartitionStateKey, PersisterStateBatch
from kafka.server.share_group_admin_apis import ShareGroupAdminApis
from kafka.utils.topic_partition import TopicPartition
from tests.server.handler_harness import BrokerParts, IoThread, allow, broker_registration, topic_records
from tests.server.share.in_memory_persister import InMemoryPersister

ORDERS_ID = uuid.UUID(int=7)
SECRET_ID = uuid.UUID(int=8)
ZERO = uuid.UUID(int=0)
ALICE = KafkaPrincipal(USER_TYPE, "alice")
CONTEXT = RequestContext("share-client", "/127.0.0.1", 1)


@pytest.fixture
def parts(tmp_path):
    parts = BrokerParts(tmp_path, {"offsets.topic.num.partitions": "1"})
    parts.coordinator, parts.timer = parts.group_coordinator()
    parts.install_publisher(group_coordinator=parts.coordinator)
    parts.publish(broker_registration(), *topic_records("orders", 2, topic_id=ORDERS_ID),
                  *topic_records("secret", 1, topic_id=SECRET_ID),
                  *topic_records(GROUP_METADATA_TOPIC_NAME, 1))
    parts.persister = persister = InMemoryPersister()
    # what KafkaServer wires: each persister call of the group coordinator, one partition at a time
    parts.coordinator.share_group_state_initializer = (
        lambda g, t, p, epoch, start: persister.initialize_state(PartitionStateKey(g, t, p), epoch, start))
    offsets = parts.coordinator.share_group_offsets
    offsets.share_group_state_summary_reader = lambda g, t, p: persister.read_summary(PartitionStateKey(g, t,
                                                                                                        p), 0)
    offsets.share_group_state_deleter = lambda g, t, p: persister.delete_state(PartitionStateKey(g, t, p))
    offsets.topics_image = lambda: {t.name: (t.topic_id, t.num_partitions)
                                    for t in parts.metadata_cache.all_topics()}
    offsets.partition_end_offset = lambda tp: high_watermark(parts.replica_manager, tp)
    parts.share_enabled = True
    yield parts
    parts.close(parts.coordinator.shutdown, parts.timer.shutdown)


def apis(parts: BrokerParts) -> IoThread:
    return IoThread(parts.request_helper,
                    ShareGroupAdminApis(parts.request_helper, parts.auth_helper, parts.coordinator,
                                                              parts.metadata_cache,
                                                              lambda: parts.share_enabled))


def group_apis(parts: BrokerParts) -> IoThread:
    return IoThread(parts.request_helper, GroupApis(
        parts.request_helper, parts.auth_helper, parts.coordinator, parts.metadata_cache,
        AutoTopicCreationManager(parts.config, parts.admin_manager), parts.config))


def heartbeat(parts: BrokerParts, member_epoch: int, topics=None) -> dict:
    future = parts.coordinator.share_group_heartbeat(
        ShareGroupHeartbeatRequest("g", "m", member_epoch, None, topics), CONTEXT)
    assert future.done()
    return future.result()


def joined_and_left(parts: BrokerParts) -> None:
    """A member read orders (its share state initialized) and left: g is an empty share group."""
    heartbeat(parts, 0, ["orders"])
    heartbeat(parts, -1)


def describe(parts, topics=None, version: int = 1, principal=None, group_id: str = "g"):
    body = dict(groups=[dict(group_id=group_id, topics=topics)])
    kwargs = {} if principal is None else dict(principal=principal)
    (group,) = parts.call(apis(parts), ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, version, body, **kwargs).groups
    return group


def rows(group) -> dict[tuple[str, int], tuple]:
    return {(t.topic_name, p.partition_index): (p.start_offset, p.lag, p.error_code)
            for t in group.topics for p in t.partitions}


def test_describe_shows_each_share_partitions_start_offset_and_lag(parts):
    joined_and_left(parts)
    assert rows(describe(parts)) == {("orders", 0): (-1, -1, Errors.NONE),
                                     ("orders", 1): (-1, -1, Errors.NONE)}
    key = PartitionStateKey("g", ORDERS_ID, 0)
    parts.persister.write_state(key, 2, 0, 3, [PersisterStateBatch(3, 4, 2, 1)], delivery_complete_count=2)
    parts.replica_manager.get_partition(TopicPartition("orders", 0)).append_records_to_leader(
        build_batch([(b"k", b"v")] * 8), 1)
    described = describe(parts,
                         [dict(topic_name="orders", partitions=[0]), dict(topic_name="nope", partitions=[5])])
    assert rows(described) == {("orders", 0): (3, -1, Errors.NONE), ("nope", 5): (-1, -1, Errors.NONE)}, \
        "this persister keeps no delivery complete count (KIP-1226): the lag is unknown"
    assert [t.topic_id for t in described.topics] == [ORDERS_ID, ZERO]
    v0 = describe(parts, [dict(topic_name="orders", partitions=[0])], version=0)
    assert rows(v0) == {("orders", 0): (3, -1, Errors.NONE)}


def test_describe_asks_describe_on_the_group_and_on_each_topic(parts):
    joined_and_left(parts)
    parts.with_authorizer(allow(ALICE, AclOperation.DESCRIBE, ResourceType.GROUP, "g"),
                          allow(ALICE, AclOperation.DESCRIBE, ResourceType.TOPIC, "orders"))
    named = describe(parts,
                     [dict(topic_name="orders", partitions=[1]), dict(topic_name="secret", partitions=[0])],
                     principal=ALICE)
    assert rows(named) == {("orders", 1): (-1, -1, Errors.NONE),
                           ("secret", 0): (-1, -1, Errors.TOPIC_AUTHORIZATION_FAILED)}
    assert named.topics[1].partitions[0].error_message == "Topic authorization failed."
    assert set(rows(describe(parts, principal=ALICE))) == {("orders", 0), ("orders", 1)}
    other = describe(parts, group_id="h", principal=ALICE)
    assert (other.error_code, other.topics) == (Errors.GROUP_AUTHORIZATION_FAILED, [])


def test_alter_sets_an_empty_groups_start_offsets_and_refuses_what_it_may_not(parts):
    joined_and_left(parts)
    parts.with_authorizer(allow(ALICE, AclOperation.READ, ResourceType.GROUP, "g"),
                          allow(ALICE, AclOperation.READ, ResourceType.TOPIC, "orders"),
                          allow(ALICE, AclOperation.READ, ResourceType.TOPIC, "nope"))
    body = dict(group_id="g", topics=[
        dict(topic_name="orders", partitions=[dict(partition_index=0, start_offset=42),
                                              dict(partition_index=9, start_offset=1)]),
        dict(topic_name="secret", partitions=[dict(partition_index=0, start_offset=1)]),
        dict(topic_name="nope", partitions=[dict(partition_index=0, start_offset=1)])])
    answer = parts.call(apis(parts), ApiKey.ALTER_SHARE_GROUP_OFFSETS, 0, body, principal=ALICE)
    assert (answer.error_code, answer.error_message) == (Errors.NONE, None)
    assert [(t.topic_name, t.topic_id, [(p.partition_index, p.error_code) for p in t.partitions])
            for t in answer.responses] == [
        ("secret", SECRET_ID, [(0, Errors.TOPIC_AUTHORIZATION_FAILED)]),
        ("nope", ZERO, [(0, Errors.UNKNOWN_TOPIC_OR_PARTITION)]),
        ("orders", ORDERS_ID, [(0, Errors.NONE), (9, Errors.UNKNOWN_TOPIC_OR_PARTITION)])]
    assert parts.persister.states[PartitionStateKey("g", ORDERS_ID, 0)]["start_offset"] == 42
    described = describe(parts, [dict(topic_name="orders", partitions=[0])], principal=ALICE)
    assert rows(described)[("orders", 0)][0] == 42, "READ implies DESCRIBE"


def test_alter_of_a_group_with_members_is_refused_as_a_whole(parts):
    heartbeat(parts, 0, ["orders"])
    body = dict(group_id="g",
                topics=[dict(topic_name="orders", partitions=[dict(partition_index=0, start_offset=1)])])
    answer = parts.call(apis(parts), ApiKey.ALTER_SHARE_GROUP_OFFSETS, 0, body)
    assert (answer.error_code, answer.error_message, answer.responses) == (
        Errors.NON_EMPTY_GROUP, "The group is not empty.", [])
    parts.with_authorizer()
    denied = parts.call(apis(parts), ApiKey.ALTER_SHARE_GROUP_OFFSETS, 0, body, principal=ALICE)
    assert (denied.error_code, denied.error_message) == (Errors.GROUP_AUTHORIZATION_FAILED,
                                                         "Group authorization failed.")


def test_delete_offsets_forgets_the_topics_and_says_which_it_may_not(parts):
    joined_and_left(parts)
    parts.with_authorizer(allow(ALICE, AclOperation.DELETE, ResourceType.GROUP, "g"),
                          allow(ALICE, AclOperation.READ, ResourceType.TOPIC, "orders"))
    body = dict(group_id="g", topics=[dict(topic_name="secret"), dict(topic_name="orders")])
    answer = parts.call(apis(parts), ApiKey.DELETE_SHARE_GROUP_OFFSETS, 0, body, principal=ALICE)
    assert [(t.topic_name, t.topic_id, t.error_code) for t in answer.responses] == [
        ("secret", ZERO, Errors.TOPIC_AUTHORIZATION_FAILED), ("orders", ORDERS_ID, Errors.NONE)]
    assert parts.persister.states == {}, "the share state of orders is gone"
    assert describe(parts).topics == []
    gone = parts.call(apis(parts), ApiKey.DELETE_SHARE_GROUP_OFFSETS, 0, dict(group_id="x", topics=[]),
                      principal=ALICE)
    assert (gone.error_code, gone.responses) == (Errors.GROUP_AUTHORIZATION_FAILED, [])
    parts.auth_helper.authorizer = None
    gone = parts.call(apis(parts), ApiKey.DELETE_SHARE_GROUP_OFFSETS, 0, dict(group_id="x", topics=[]))
    assert (gone.error_code, gone.error_message) == (Errors.GROUP_ID_NOT_FOUND, "Group x not found.")


def test_every_call_is_unsupported_while_share_groups_are_off(parts):
    parts.share_enabled = False
    described = describe(parts)
    assert (described.error_code, described.error_message) == (Errors.UNSUPPORTED_VERSION, None)
    for key, body in ((ApiKey.ALTER_SHARE_GROUP_OFFSETS, dict(group_id="g", topics=[])),
                      (ApiKey.DELETE_SHARE_GROUP_OFFSETS, dict(group_id="g", topics=[]))):
        assert parts.call(apis(parts), key, 0, body).error_code == Errors.UNSUPPORTED_VERSION


def test_list_groups_of_the_share_type_and_delete_groups_of_a_share_group(parts):
    joined_and_left(parts)
    listed = parts.call(group_apis(parts), ApiKey.LIST_GROUPS, 5,
                        dict(states_filter=[], types_filter=["Share"]))
    assert [(g.group_id, g.protocol_type, g.group_state, g.group_type) for g in listed.groups] == [
        ("g", "share", "Empty", "share")]
    assert parts.call(group_apis(parts), ApiKey.LIST_GROUPS, 5,
                      dict(states_filter=[], types_filter=["consumer"])).groups == []
    deleted = parts.call(group_apis(parts), ApiKey.DELETE_GROUPS, 2, dict(groups_names=["g"]))
    assert [(r.group_id, r.error_code) for r in deleted.results] == [("g", Errors.NONE)]
    assert parts.persister.states == {}, "its share state was deleted first"
    assert parts.call(group_apis(parts), ApiKey.LIST_GROUPS, 5,
                      dict(states_filter=[], types_filter=[])).groups == []
