"""ShareCoordinatorApis: the five handlers as a broker's dispatch table will call them, with a real
AuthHelper (brokers send these to each other: CLUSTER_ACTION is needed) and the real service behind.
The wire round trip with a persister is in test_default_state_persister.py."""

from __future__ import annotations

import pytest

from kafka.metadata.authorizer.standard_authorizer import StandardAuthorizer
from kafka.network.request_channel import Request
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import RequestHeader
from kafka.security.kafka_principal import KafkaPrincipal
from kafka.server.auth_helper import AuthHelper
from kafka.server.share_coordinator_apis import ShareCoordinatorApis
from tests.coordinator.share.share_coordinator_harness import TOPIC_ID, request

pytestmark = pytest.mark.fast

BROKER = KafkaPrincipal("User", "broker")


class Responses:
    """The responder: what each request was answered."""

    def __init__(self) -> None:
        self.sent: list[tuple[Request, dict]] = []

    def send_response(self, req: Request, body: dict) -> None:
        self.sent.append((req, body))


def incoming(api_key: ApiKey, body: dict, principal: KafkaPrincipal = BROKER) -> Request:
    version = APIS[api_key].max_version
    req = Request(0, "conn", "PLAINTEXT", "127.0.0.1", RequestHeader(api_key, version, 7, "broker-2", 0, 2),
                  memoryview(b""), principal=principal)
    req.body = request(api_key, body, version)
    return req


def apis(coordinator, authorizer=None) -> tuple[ShareCoordinatorApis, Responses]:
    responses = Responses()
    return ShareCoordinatorApis(coordinator.service, AuthHelper(authorizer), responses), responses


def test_the_table_serves_the_five_share_group_state_apis(coordinator):
    handlers, _ = apis(coordinator)
    assert set(handlers.handlers()) == {ApiKey.INITIALIZE_SHARE_GROUP_STATE, ApiKey.READ_SHARE_GROUP_STATE,
                                        ApiKey.WRITE_SHARE_GROUP_STATE, ApiKey.DELETE_SHARE_GROUP_STATE,
                                        ApiKey.READ_SHARE_GROUP_STATE_SUMMARY}


def test_a_principal_without_cluster_action_is_refused_for_every_partition(coordinator):
    handlers, responses = apis(coordinator, StandardAuthorizer(super_users=frozenset({"User:broker"})))
    req = incoming(ApiKey.WRITE_SHARE_GROUP_STATE,
                   dict(group_id="g", topics=[dict(topic_id=TOPIC_ID, partitions=[
        dict(partition=0), dict(partition=1)])]), KafkaPrincipal("User", "alice"))
    handlers.handlers()[ApiKey.WRITE_SHARE_GROUP_STATE](req)
    [(answered, body)] = responses.sent
    assert answered is req
    partitions = body["results"][0]["partitions"]
    assert [(p["partition"], p["error_code"], p["error_message"]) for p in partitions] == [
        (0, Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.CLUSTER_AUTHORIZATION_FAILED.message),
        (1, Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.CLUSTER_AUTHORIZATION_FAILED.message)]
    assert coordinator.records() == []


def test_a_broker_is_answered_once_the_record_commits(coordinator):
    handlers, responses = apis(coordinator, StandardAuthorizer(super_users=frozenset({"User:broker"})))
    handlers.handlers()[ApiKey.INITIALIZE_SHARE_GROUP_STATE](incoming(
        ApiKey.INITIALIZE_SHARE_GROUP_STATE, dict(group_id="g", topics=[dict(topic_id=TOPIC_ID, partitions=[
            dict(partition=2, state_epoch=0, start_offset=7)])])))
    handlers.handlers()[ApiKey.READ_SHARE_GROUP_STATE_SUMMARY](incoming(
        ApiKey.READ_SHARE_GROUP_STATE_SUMMARY, dict(group_id="g", topics=[dict(topic_id=TOPIC_ID, partitions=[
            dict(partition=2, leader_epoch=0)])])))
    [(_, initialized), (_, summary)] = responses.sent
    assert initialized == dict(results=[dict(topic_id=TOPIC_ID, partitions=[
        dict(partition=2, error_code=Errors.NONE, error_message=None)])])
    assert summary["results"][0]["partitions"][0]["start_offset"] == 7
