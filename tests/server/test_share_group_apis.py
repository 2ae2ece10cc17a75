"""ShareGroupApis (KIP-932) without a broker, over a real GroupCoordinatorService whose shard of
__consumer_offsets-0 appends through a real ReplicaManager: a member joins and ShareGroupDescribe shows it;
Kafka 4.4's refusals come first, in its order (share.version off, READ on the group, the member id,
DESCRIBE on the subscribed topics), and carry the code alone; ShareGroupDescribe answers the groups the
principal may not describe first."""

from __future__ import annotations

import uuid

import pytest

from kafka.coordinator.group.group_coordinator_records import GROUP_METADATA_TOPIC_NAME
from kafka.protocol.acl import AclOperation, ResourceType
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.security.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka.server.error_responses import error_response
from kafka.server.share_group_apis import ShareGroupApis
from tests.server.handler_harness import BrokerParts, IoThread, allow, broker_registration, topic_records

ORDERS_ID = uuid.UUID(int=7)
ALICE = KafkaPrincipal(USER_TYPE, "alice")
MEMBER = "share-member-0001"


@pytest.fixture
def parts(tmp_path):
    parts = BrokerParts(tmp_path, {"offsets.topic.num.partitions": "1"})
    parts.coordinator, parts.timer = parts.group_coordinator()
    parts.install_publisher(group_coordinator=parts.coordinator)
    parts.publish(broker_registration(), *topic_records("orders", 2, topic_id=ORDERS_ID),
                  *topic_records(GROUP_METADATA_TOPIC_NAME, 1))
    yield parts
    parts.close(parts.coordinator.shutdown, parts.timer.shutdown)


def share_group_apis(parts: BrokerParts, enabled: bool = True) -> IoThread:
    family = ShareGroupApis(parts.request_helper, parts.auth_helper, parts.coordinator, lambda: enabled)
    return IoThread(parts.request_helper, family)


def joining(member_id: str = MEMBER, topics=("orders",)) -> dict:
    return dict(group_id="g", member_id=member_id, member_epoch=0, rack_id=None,
                subscribed_topic_names=list(topics))


def describe(*groups: str) -> dict:
    return dict(group_ids=list(groups), include_authorized_operations=True)


def test_a_member_joins_and_describe_shows_it(parts):
    io_thread = share_group_apis(parts)

    joined = parts.call(io_thread, ApiKey.SHARE_GROUP_HEARTBEAT, 1, joining())
    # epoch 2: the member's subscription and the new target each bump the group epoch, as in Kafka 4.4
    assert (joined.error_code, joined.member_id, joined.member_epoch) == (Errors.NONE, MEMBER, 2)
    assert joined.heartbeat_interval_ms == 5000

    (group,) = parts.call(io_thread, ApiKey.SHARE_GROUP_DESCRIBE, 1, describe("g")).groups
    assert (group.error_code, group.group_state, group.assignor_name) == (Errors.NONE, "Stable", "simple")
    assert [(m.member_id, m.client_id, list(m.subscribed_topic_names)) for m in group.members] == [
        (MEMBER, "handler-test", ["orders"])]
    # asked for, and given: Kafka 4.4's operations on a group, READ, DELETE, DESCRIBE and (group configs)
    # DESCRIBE_CONFIGS and ALTER_CONFIGS, bits 3, 6, 8, 10 and 11
    assert group.authorized_operations == 3400


@pytest.mark.parametrize("member_id", ["", "m" * 37])
def test_a_member_id_that_is_empty_or_longer_than_a_uuid_is_invalid(parts, member_id):
    refused = parts.call(share_group_apis(parts), ApiKey.SHARE_GROUP_HEARTBEAT, 1, joining(member_id))
    assert (refused.error_code, refused.error_message, refused.member_epoch) == \
        (Errors.INVALID_REQUEST, None, 0)


def test_while_share_version_is_0_both_apis_answer_unsupported_version(parts):
    io_thread = share_group_apis(parts, enabled=False)
    refused = parts.call(io_thread, ApiKey.SHARE_GROUP_HEARTBEAT, 1, joining())
    assert refused.error_code == Errors.UNSUPPORTED_VERSION
    groups = parts.call(io_thread, ApiKey.SHARE_GROUP_DESCRIBE, 1, describe("g", "h")).groups
    assert [(g.group_id, g.error_code) for g in groups] == [("g", Errors.UNSUPPORTED_VERSION),
                                                            ("h", Errors.UNSUPPORTED_VERSION)]


def test_read_on_the_group_and_describe_on_its_topics_are_needed_to_join(parts):
    parts.with_authorizer(allow(ALICE, AclOperation.READ, ResourceType.GROUP, "g"),
                          allow(ALICE, AclOperation.DESCRIBE, ResourceType.GROUP, "g"))
    io_thread = share_group_apis(parts)

    assert parts.call(io_thread, ApiKey.SHARE_GROUP_HEARTBEAT, 1, {**joining(), "group_id": "other"},
                      principal=ALICE).error_code == Errors.GROUP_AUTHORIZATION_FAILED
    assert parts.call(io_thread, ApiKey.SHARE_GROUP_HEARTBEAT, 1, joining(),
                      principal=ALICE).error_code == Errors.TOPIC_AUTHORIZATION_FAILED


def test_describe_answers_the_groups_the_principal_may_not_see_first(parts):
    parts.with_authorizer(allow(ALICE, AclOperation.DESCRIBE, ResourceType.GROUP, "g"))
    groups = parts.call(share_group_apis(parts), ApiKey.SHARE_GROUP_DESCRIBE, 1, describe("g", "secret"),
                        principal=ALICE).groups
    assert [(g.group_id, g.error_code) for g in groups] == [("secret", Errors.GROUP_AUTHORIZATION_FAILED),
                                                            ("g", Errors.GROUP_ID_NOT_FOUND)]


def test_the_error_responses_of_share_group_apis_name_every_group_and_partition():
    describe_body = error_response(ApiKey.SHARE_GROUP_DESCRIBE, 1, _Body(group_ids=["a", "b"]),
                                   Errors.NOT_COORDINATOR)
    assert [(g["group_id"], g["error_code"]) for g in describe_body["groups"]] == [
        ("a", Errors.NOT_COORDINATOR), ("b", Errors.NOT_COORDINATOR)]
    heartbeat_body = error_response(ApiKey.SHARE_GROUP_HEARTBEAT, 1, _Body(), Errors.UNKNOWN_SERVER_ERROR)
    assert (heartbeat_body["error_code"], heartbeat_body["error_message"]) == \
        (Errors.UNKNOWN_SERVER_ERROR, None)
    state = _Body(group_id="g", topics=[_Body(topic_id=ORDERS_ID,
                                              partitions=[_Body(partition=0), _Body(partition=3)])])
    for api_key in (ApiKey.INITIALIZE_SHARE_GROUP_STATE, ApiKey.READ_SHARE_GROUP_STATE,
                    ApiKey.WRITE_SHARE_GROUP_STATE, ApiKey.DELETE_SHARE_GROUP_STATE,
                    ApiKey.READ_SHARE_GROUP_STATE_SUMMARY):
        body = error_response(api_key, 0, state, Errors.COORDINATOR_NOT_AVAILABLE)
        assert [(t["topic_id"], [(p["partition"], p["error_code"]) for p in t["partitions"]])
                for t in body["results"]] == [(ORDERS_ID, [(0, Errors.COORDINATOR_NOT_AVAILABLE),
                                                           (3, Errors.COORDINATOR_NOT_AVAILABLE)])]


class _Body:
    """A decoded request's fields, as the handler reads them (attributes)."""

    def __init__(self, **fields) -> None:
        self.__dict__.update(fields)
