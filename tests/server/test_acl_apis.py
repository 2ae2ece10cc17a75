"""AclApis without a broker: DescribeAcls answers from a real StandardAuthorizer fed the ACLs of the
metadata image (AccessControlEntryRecords through the AclPublisher); CreateAcls needs ALTER on the
cluster, and is the controller's to decide; with no authoriser every ACL request is SECURITY_DISABLED."""

from __future__ import annotations

import pytest

from kafka.protocol.acl import CLUSTER_NAME, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.security.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka.server.acl_apis import AclApis
from tests.server.handler_harness import BrokerParts, IoThread, allow, broker_registration

ALICE, BOB = KafkaPrincipal(USER_TYPE, "alice"), KafkaPrincipal(USER_TYPE, "bob")
ANY = 1  # the ANY of resource types, operations and permission types in a filter


@pytest.fixture
def parts(tmp_path):
    parts = BrokerParts(tmp_path)
    parts.publish(broker_registration())
    yield parts
    parts.close()


def acl_apis(parts: BrokerParts) -> IoThread:
    return IoThread(parts.request_helper,
                    AclApis(parts.request_helper, parts.auth_helper, parts.forwarding_manager))


def creation(principal: KafkaPrincipal) -> dict:
    return dict(resource_type=ResourceType.TOPIC, resource_name="orders",
                resource_pattern_type=PatternType.LITERAL,
                principal=str(principal), host="*", operation=AclOperation.READ,
                permission_type=AclPermissionType.ALLOW)


def test_describe_acls_answers_from_the_authorizers_acls(parts):
    parts.with_authorizer(allow(ALICE, AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME),
                          allow(BOB, AclOperation.READ, ResourceType.TOPIC, "orders"))

    response = parts.call(acl_apis(parts), ApiKey.DESCRIBE_ACLS, 3, dict(
        resource_type_filter=ResourceType.TOPIC, resource_name_filter=None,
        pattern_type_filter=PatternType.ANY,
        principal_filter=None, host_filter=None, operation=ANY, permission_type=ANY), principal=ALICE)

    assert response.error_code == Errors.NONE
    assert [(r.resource_name, [(a.principal, a.operation) for a in r.acls]) for r in response.resources] == [
        ("orders", [(str(BOB), AclOperation.READ)])]


def test_create_acls_needs_alter_on_the_cluster_then_goes_to_the_controller(parts):
    parts.with_authorizer(allow(ALICE, AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME))
    io_thread = acl_apis(parts)

    refused = parts.call(io_thread, ApiKey.CREATE_ACLS, 3, dict(creations=[creation(BOB)]), principal=BOB)
    assert [r.error_code for r in refused.results] == [Errors.CLUSTER_AUTHORIZATION_FAILED]

    forwarded = parts.send(io_thread, ApiKey.CREATE_ACLS, 3, dict(creations=[creation(BOB)]), principal=ALICE)
    assert not parts.answered(forwarded)
    parts.controller_gone()
    assert [r.error_code for r in parts.response(forwarded).results] == [Errors.BROKER_NOT_AVAILABLE]


def test_without_an_authorizer_acls_are_security_disabled(parts):
    response = parts.call(acl_apis(parts), ApiKey.CREATE_ACLS, 3, dict(creations=[creation(BOB)]))
    assert [(r.error_code, r.error_message) for r in response.results] == [
        (Errors.SECURITY_DISABLED, "No Authorizer is configured.")]
