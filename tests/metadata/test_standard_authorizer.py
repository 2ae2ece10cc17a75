"""StandardAuthorizer's decisions, a table of cases as Kafka's StandardAuthorizerTest has them:
named users (no transport here sets one, so they are tested here), LITERAL, wildcard and PREFIXED
patterns, DENY before ALLOW, hosts, the operations READ/WRITE/DELETE/ALTER imply (DESCRIBE) and
ALTER_CONFIGS implies (DESCRIBE_CONFIGS), super.users, and allow.everyone.if.no.acl.found."""

from __future__ import annotations

import uuid

import pytest

from kafka.image.standard_acl import StandardAcl
from kafka.metadata.authorizer.standard_authorizer import StandardAuthorizer
from kafka.metrics import metric_names as m
from kafka.metrics.authorizer_metrics import AuthorizerMetrics
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import AclPermissionType as Perm
from kafka.protocol.acl import PatternType as Pt
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.acl import to_32bit_field

ALLOW, DENY = Perm.ALLOW, Perm.DENY
HOST, OTHER_HOST = "10.0.0.1", "10.0.0.2"


def acl(principal, op, perm=ALLOW, res=Res.TOPIC, name="orders", pattern=Pt.LITERAL, host="*") -> StandardAcl:
    return StandardAcl(res, name, pattern, principal, host, op, perm)


def authorizer(*acls, super_users=(), allow_if_no_acl=False) -> StandardAuthorizer:
    a = StandardAuthorizer(frozenset(super_users), allow_if_no_acl)
    a.load_snapshot({uuid.uuid4(): x for x in acls})
    return a


CASES = [
    # (ACLs, principal, host, operation, resource type, name, allowed?, why)
    ([], "User:alice", HOST, Op.READ, Res.TOPIC, "orders", False, "no ACL: denied by default"),
    ([acl("User:alice", Op.READ)], "User:alice", HOST, Op.READ, Res.TOPIC, "orders", True, "literal allow"),
    ([acl("User:alice", Op.READ)], "User:bob", HOST, Op.READ, Res.TOPIC, "orders", False,
     "another principal"),
    ([acl("User:alice", Op.READ)], "User:alice", HOST, Op.WRITE, Res.TOPIC, "orders", False,
     "another operation"),
    ([acl("User:alice", Op.READ)], "User:alice", HOST, Op.READ, Res.TOPIC, "orders2", False,
     "literal is exact"),
    ([acl("User:alice", Op.READ)], "User:alice", HOST, Op.READ, Res.GROUP, "orders", False, "another type"),
    ([acl("User:*", Op.READ)], "User:bob", HOST, Op.READ, Res.TOPIC, "orders", True, "wildcard principal"),
    ([acl("User:alice", Op.READ, name="*")], "User:alice", HOST, Op.READ, Res.TOPIC, "any", True,
     "wildcard resource"),
    ([acl("User:alice", Op.READ, name="ord", pattern=Pt.PREFIXED)], "User:alice", HOST, Op.READ, Res.TOPIC,
     "orders", True, "prefixed pattern"),
    ([acl("User:alice", Op.READ, name="ord", pattern=Pt.PREFIXED)], "User:alice", HOST, Op.READ, Res.TOPIC,
     "or", False, "a prefix longer than the name"),
    ([acl("User:alice", Op.READ, name="ord", pattern=Pt.LITERAL)], "User:alice", HOST, Op.READ, Res.TOPIC,
     "orders", False, "a literal is no prefix"),
    ([acl("User:alice", Op.ALL)], "User:alice", HOST, Op.DELETE, Res.TOPIC, "orders", True,
     "ALL allows anything"),
    ([acl("User:alice", Op.READ), acl("User:alice", Op.READ, DENY)], "User:alice", HOST, Op.READ, Res.TOPIC,
     "orders", False, "DENY wins over ALLOW"),
    ([acl("User:alice", Op.READ), acl("User:*", Op.READ, DENY, name="o", pattern=Pt.PREFIXED)], "User:alice",
     HOST,
     Op.READ, Res.TOPIC, "orders", False, "a prefixed wildcard DENY wins"),
    ([acl("User:alice", Op.ALL), acl("User:alice", Op.ALL, DENY, name="*")], "User:alice", HOST, Op.WRITE,
     Res.TOPIC, "orders", False, "a DENY ALL on * wins"),
    ([acl("User:alice", Op.READ, host=HOST)], "User:alice", HOST, Op.READ, Res.TOPIC, "orders", True,
     "its host"),
    ([acl("User:alice", Op.READ, host=HOST)], "User:alice", OTHER_HOST, Op.READ, Res.TOPIC, "orders", False,
     "another host"),
    ([acl("User:alice", Op.READ), acl("User:alice", Op.READ, DENY, host=OTHER_HOST)], "User:alice", HOST,
     Op.READ,
     Res.TOPIC, "orders", True, "a DENY for another host"),
    ([acl("User:alice", Op.WRITE)], "User:alice", HOST, Op.DESCRIBE, Res.TOPIC, "orders", True,
     "WRITE -> DESCRIBE"),
    ([acl("User:alice", Op.READ)], "User:alice", HOST, Op.DESCRIBE, Res.TOPIC, "orders", True,
     "READ -> DESCRIBE"),
    ([acl("User:alice", Op.DELETE)], "User:alice", HOST, Op.DESCRIBE, Res.TOPIC, "orders", True,
     "DELETE -> DESCRIBE"),
    ([acl("User:alice", Op.ALTER)], "User:alice", HOST, Op.DESCRIBE, Res.TOPIC, "orders", True,
     "ALTER -> DESCRIBE"),
    ([acl("User:alice", Op.CREATE)], "User:alice", HOST, Op.DESCRIBE, Res.TOPIC, "orders", False,
     "CREATE implies nothing"),
    ([acl("User:alice", Op.ALTER_CONFIGS)], "User:alice", HOST, Op.DESCRIBE_CONFIGS, Res.TOPIC, "orders",
     True,
     "ALTER_CONFIGS -> DESCRIBE_CONFIGS"),
    ([acl("User:alice", Op.DESCRIBE)], "User:alice", HOST, Op.READ, Res.TOPIC, "orders", False,
     "DESCRIBE implies no READ"),
    ([acl("User:alice", Op.DESCRIBE), acl("User:alice", Op.READ, DENY)], "User:alice", HOST, Op.DESCRIBE,
     Res.TOPIC,
     "orders", True, "a DENY of READ denies no DESCRIBE"),
    ([acl("User:bob", Op.READ)], "User:alice", HOST, Op.READ, Res.TOPIC, "orders", False,
     "ACLs on the resource, none for the principal"),
    ([acl("User:alice", Op.CLUSTER_ACTION, res=Res.CLUSTER, name="kafka-cluster")], "User:alice", HOST,
     Op.CLUSTER_ACTION, Res.CLUSTER, "kafka-cluster", True, "the cluster"),
    # KIP-1107: a CIDR host holds a range of addresses, IPv4 or IPv6; a DENY by CIDR wins as any DENY
    ([acl("User:alice", Op.READ, host="10.0.0.0/8")], "User:alice", HOST, Op.READ, Res.TOPIC, "orders", True,
     "the client's address lies in the CIDR"),
    ([acl("User:alice", Op.READ, host="10.0.0.0/31")], "User:alice", OTHER_HOST, Op.READ, Res.TOPIC, "orders",
     False, "the client's address lies outside the CIDR"),
    ([acl("User:alice", Op.READ, host="2001:db8::/32")], "User:alice", "2001:db8::7", Op.READ, Res.TOPIC,
     "orders", True, "an IPv6 CIDR"),
    ([acl("User:alice", Op.READ, host="2001:db8::/32")], "User:alice", HOST, Op.READ, Res.TOPIC, "orders",
     False, "an IPv4 client and an IPv6 CIDR"),
    ([acl("User:alice", Op.READ), acl("User:alice", Op.READ, DENY, host="10.0.0.0/24")], "User:alice", HOST,
     Op.READ, Res.TOPIC, "orders", False, "a DENY by CIDR wins"),
]


@pytest.mark.parametrize("acls,principal,host,op,res,name,allowed,why", CASES, ids=[c[-1] for c in CASES])
def test_decisions(acls, principal, host, op, res, name, allowed, why):
    rule = authorizer(*acls).authorize(principal, host, op, res, name)
    assert (rule.result == "ALLOWED") == allowed, f"{why}: {rule}"


def test_super_users_may_do_anything_whatever_the_acls_say():
    a = authorizer(acl("User:admin", Op.ALL, DENY, name="*"), super_users={"User:admin"})
    assert a.authorize("User:admin", HOST, Op.DELETE, Res.TOPIC, "orders").reason == "SuperUser"
    assert a.authorize("User:alice", HOST, Op.DELETE, Res.TOPIC, "orders").result == "DENIED"


def test_allow_everyone_if_no_acl_found_only_where_no_acl_names_the_resource():
    a = authorizer(acl("User:bob", Op.READ), allow_if_no_acl=True)
    assert a.authorize("User:alice", HOST, Op.READ, Res.TOPIC, "other").reason == "DefaultAllow"
    assert a.authorize("User:alice", HOST, Op.READ, Res.TOPIC, "orders").result == "DENIED"


def test_authorize_by_resource_type_needs_an_allow_no_deny_cancels():
    """KIP-679: an idempotent producer may start with WRITE on any topic."""
    alice = "User:alice"
    assert not authorizer().authorize_by_resource_type(alice, HOST, Op.WRITE, Res.TOPIC)
    assert authorizer(acl(alice, Op.WRITE)).authorize_by_resource_type(alice, HOST, Op.WRITE, Res.TOPIC)
    denied_prefix = acl(alice, Op.WRITE, DENY, name="or", pattern=Pt.PREFIXED)
    assert not authorizer(acl(alice, Op.WRITE), denied_prefix).authorize_by_resource_type(
        alice, HOST, Op.WRITE, Res.TOPIC)
    assert authorizer(acl(alice, Op.WRITE, name="x"), denied_prefix).authorize_by_resource_type(
        alice, HOST, Op.WRITE, Res.TOPIC)
    assert not authorizer(acl(alice, Op.WRITE),
                          acl(alice, Op.WRITE, DENY, name="*")).authorize_by_resource_type(
        alice, HOST, Op.WRITE, Res.TOPIC)


def test_authorized_operations_are_the_supported_operations_allowed():
    a = authorizer(acl("User:alice", Op.WRITE), acl("User:alice", Op.ALTER_CONFIGS))
    ops = a.authorized_operations("User:alice", HOST, Res.TOPIC, "orders")
    assert ops == {Op.WRITE, Op.DESCRIBE, Op.ALTER_CONFIGS, Op.DESCRIBE_CONFIGS}
    assert to_32bit_field(ops) == (1 << 4) | (1 << 8) | (1 << 11) | (1 << 10)


def test_decisions_are_counted_allowed_and_denied():
    metrics = AuthorizerMetrics()
    a = StandardAuthorizer(frozenset(), False, metrics)
    a.load_snapshot({uuid.uuid4(): acl("User:alice", Op.READ)})
    a.authorize("User:alice", HOST, Op.READ, Res.TOPIC, "orders")
    a.authorize("User:bob", HOST, Op.READ, Res.TOPIC, "orders")
    a.authorize("User:bob", HOST, Op.READ, Res.TOPIC, "orders")
    registry = metrics.group.registry
    assert registry.get_sample_value(m.AUTHORIZATION_REQUESTS.prometheus_name) == 3
    assert registry.get_sample_value(m.AUTHORIZATION_DENIED.prometheus_name) == 2


def test_authorize_by_resource_type_matches_a_cidr_host():
    """Kafka's Authorizer.authorizeByResourceType asks CidrUtils too (KIP-1107)."""
    by_cidr = authorizer(acl("User:alice", Op.WRITE, host="10.0.0.0/8"))
    assert by_cidr.authorize_by_resource_type("User:alice", HOST, Op.WRITE, Res.TOPIC)
    assert not by_cidr.authorize_by_resource_type("User:alice", "192.168.0.1", Op.WRITE, Res.TOPIC)
