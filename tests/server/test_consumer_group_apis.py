"""ConsumerGroupApis (KIP-848) without a broker, over a real GroupCoordinatorService whose shard of
__consumer_offsets-0 appends through a real ReplicaManager: a member's first heartbeat is answered
with its epoch and its assignment, once the group's records commit; ConsumerGroupDescribe reads it
back; a principal without READ on the group is refused before the coordinator hears of it."""

from __future__ import annotations

import uuid

import pytest

from kafka.coordinator.group.group_coordinator_records import GROUP_METADATA_TOPIC_NAME
from kafka.protocol.acl import AclOperation, ResourceType
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.security.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka.server.consumer_group_apis import ConsumerGroupApis
from tests.server.handler_harness import BrokerParts, IoThread, allow, broker_registration, topic_records

ORDERS_ID = uuid.UUID(int=7)
ALICE = KafkaPrincipal(USER_TYPE, "alice")


@pytest.fixture
def parts(tmp_path):
    parts = BrokerParts(tmp_path, {"offsets.topic.num.partitions": "1"})
    parts.coordinator, parts.timer = parts.group_coordinator()
    parts.install_publisher(group_coordinator=parts.coordinator)
    parts.publish(broker_registration(), *topic_records("orders", 2, topic_id=ORDERS_ID),
                  *topic_records(GROUP_METADATA_TOPIC_NAME, 1))
    yield parts
    parts.close(parts.coordinator.shutdown, parts.timer.shutdown)


def consumer_group_apis(parts: BrokerParts) -> IoThread:
    return IoThread(parts.request_helper,
                    ConsumerGroupApis(parts.request_helper, parts.auth_helper, parts.coordinator))


def joining(member_id: str) -> dict:
    return dict(group_id="g", member_id=member_id, member_epoch=0, instance_id=None, rack_id=None,
                rebalance_timeout_ms=30_000, subscribed_topic_names=["orders"], server_assignor=None,
                topic_partitions=[])


def test_a_members_first_heartbeat_gets_its_epoch_and_assignment_and_describe_shows_it(parts):
    io_thread = consumer_group_apis(parts)
    member_id = str(uuid.UUID(int=1))

    heartbeat = parts.call(io_thread, ApiKey.CONSUMER_GROUP_HEARTBEAT, 0, joining(member_id))
    assert (heartbeat.error_code, heartbeat.member_id, heartbeat.member_epoch) == (Errors.NONE, member_id, 1)
    assert [(t.topic_id, sorted(t.partitions)) for t in heartbeat.assignment.topic_partitions] == [(ORDERS_ID,
                                                                                                    [0, 1])]

    (group,) = parts.call(io_thread, ApiKey.CONSUMER_GROUP_DESCRIBE, 0,
                          dict(group_ids=["g"], include_authorized_operations=False)).groups
    assert (group.error_code, group.group_epoch, [m.member_id for m in group.members]) == (Errors.NONE, 1,
                                                                                           [member_id])


def test_a_heartbeat_without_read_on_the_group_is_refused(parts):
    parts.with_authorizer(allow(ALICE, AclOperation.READ, ResourceType.GROUP, "another-group"))
    family = ConsumerGroupApis(parts.request_helper, parts.auth_helper, parts.coordinator)

    heartbeat = parts.call(IoThread(parts.request_helper, family), ApiKey.CONSUMER_GROUP_HEARTBEAT, 0,
                           joining(str(uuid.UUID(int=2))), principal=ALICE)

    # the epoch of an error answer is the response's default, 0, as Kafka's getErrorResponse leaves it
    assert (heartbeat.error_code, heartbeat.member_epoch) == (Errors.GROUP_AUTHORIZATION_FAILED, 0)
    assert parts.call(IoThread(parts.request_helper, family), ApiKey.CONSUMER_GROUP_DESCRIBE, 0, dict(
        group_ids=["g"],
        include_authorized_operations=False)).groups[0].error_code == Errors.GROUP_AUTHORIZATION_FAILED
