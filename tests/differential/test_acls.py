"""ACLs asked of both brokers, each running Kafka's StandardAuthorizer: CreateAcls' validation,
DescribeAcls' and DeleteAcls' filters (LITERAL, PREFIXED, MATCH, ANY), and the error code each API
answers a principal an ACL denies (User:ANONYMOUS, every PLAINTEXT client).

`allow.everyone.if.no.acl.found=true` on both keeps their own traffic and every resource no ACL
names allowed, so the scenarios deny exactly what their DENY ACLs name."""

from __future__ import annotations

import pytest

from kafka.protocol.acl import AclBindingFilter
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.record_batch import build_batch
from tests.differential.oracle import Intended, Pair, Side
from tests.helpers import BrokerProcess, unique_topic, wait_until
from tests.jvm import resolve
from tests.jvm.apache_kafka import ApacheKafka

SECURED = {"group.initial.rebalance.delay.ms": "0",
           "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
           "allow.everyone.if.no.acl.found": "true"}
TOPIC, GROUP, CLUSTER, TXN, ANY = 2, 3, 4, 5, 1
LITERAL, PREFIXED, MATCH, ANY_PATTERN = 3, 4, 2, 1
ALL, READ, WRITE, DESCRIBE = 2, 3, 4, 8
ALLOW, DENY = 3, 2


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    try:
        apache = ApacheKafka(tmp_path_factory.mktemp("apache-acls"), overrides=SECURED).start()
    except resolve.ResolveError as e:
        pytest.fail(str(e), pytrace=False)
    ours = BrokerProcess(tmp_path_factory.mktemp("ours-acls") / "data", {"node.id": "1", **SECURED})
    both = Pair(Side("ours", ours.port), Side("apache", apache.nodes[0].port))
    try:
        yield both
    finally:
        both.close()
        ours.stop()
        apache.stop()


def creation(name: str, principal: str = "User:ANONYMOUS", op: int = ALL, perm: int = DENY, res: int = TOPIC,
             pattern: int = LITERAL, host: str = "*") -> dict:
    return {"resource_type": res, "resource_name": name, "resource_pattern_type": pattern,
            "principal": principal,
            "host": host, "operation": op, "permission_type": perm}


def describe(name: str | None = None, res: int = ANY, pattern: int = ANY_PATTERN,
             principal: str | None = None):
    return AclBindingFilter.of(res, name, pattern, principal, None, 1, 1).to_filter()


def acls_of(response) -> set:
    """DescribeAcls' resources as a set: neither broker promises an order within a resource."""
    return {(r.resource_type, r.resource_name, r.pattern_type, a.principal, a.host, a.operation,
             a.permission_type)
            for r in response.resources for a in r.acls}


def create(pair: Pair, *creations: dict):
    pair.same(ApiKey.CREATE_ACLS, 3, {"creations": list(creations)})
    wanted = {(c["resource_type"], c["resource_name"], c["resource_pattern_type"], c["principal"], c["host"],
               c["operation"], c["permission_type"]) for c in creations}
    for side in pair.sides:  # each broker answers DescribeAcls from what it has applied
        wait_until(lambda s=side: wanted <= acls_of(s.request(ApiKey.DESCRIBE_ACLS, 3, describe())),
                   message=f"{side.name} to apply the ACLs")


def test_create_acls_validates_as_kafka_does(pair):
    name = unique_topic("valid")
    pair.same(ApiKey.CREATE_ACLS, 3, {"creations": [
        creation(name, principal="User:alice", perm=ALLOW, op=READ),
        creation("my-cluster", res=CLUSTER, principal="User:alice", perm=ALLOW, op=READ),
        creation("", principal="User:alice", perm=ALLOW, op=READ),
        creation(name, principal="User:alice", perm=ALLOW, op=READ, res=TXN, pattern=PREFIXED),
    ]})
    # ANY where a binding needs a value, or a MATCH pattern, makes Kafka's whole request fail
    for bad in (dict(pattern=MATCH), dict(pattern=ANY_PATTERN), dict(op=1), dict(perm=1), dict(res=ANY)):
        pair.same(ApiKey.CREATE_ACLS, 3, {"creations": [
            creation(name, principal="User:alice", perm=ALLOW, op=READ),
            creation(name, **{"principal": "User:alice", "perm": ALLOW, "op": READ, **bad})]})


def test_describe_and_delete_filters_match_as_kafka_does(pair):
    base = unique_topic("filt")
    creations = [creation(base, principal="User:bob", perm=ALLOW, op=READ),
                 creation(base[:6], principal="User:bob", perm=ALLOW, op=WRITE, pattern=PREFIXED),
                 creation("*", principal="User:carol", perm=ALLOW, op=DESCRIBE),
                 creation(base + "-g", principal="User:bob", perm=ALLOW, op=READ, res=GROUP)]
    create(pair, *creations)
    for f in (describe(base, TOPIC, MATCH), describe(base, TOPIC, LITERAL),
              describe(base[:6], TOPIC, PREFIXED),
              describe(None, GROUP), describe(principal="User:bob")):
        ours, theirs = pair.ask(ApiKey.DESCRIBE_ACLS, 3, f)
        assert (ours.error_code, acls_of(ours)) == (theirs.error_code, acls_of(theirs)), f
    ours, theirs = pair.ask(ApiKey.DELETE_ACLS, 3, {"filters": [describe(base, TOPIC, MATCH)]})

    def deleted(response):
        return [(r.error_code, sorted((a.resource_name, a.pattern_type, a.principal, a.operation)
                                      for a in r.matching_acls)) for r in response.filter_results]
    assert deleted(ours) == deleted(theirs)


def test_a_denied_principal_gets_kafkas_error_codes(pair):
    topic, group = unique_topic("denied"), unique_topic("denied-group")
    created = pair.ask(ApiKey.CREATE_TOPICS, 7, {"topics": [{"name": topic, "num_partitions": 1,
                                                             "replication_factor": 1, "assignments": [],
                                                             "configs": []}], "timeout_ms": 30000,
                                                 "validate_only": False})
    assert [c.topics[0].error_code for c in created] == [0, 0]
    create(pair, creation(topic), creation(group, res=GROUP))
    produce = {"transactional_id": None, "acks": -1, "timeout_ms": 30000, "topic_data": [
        {"name": topic, "partition_data": [{"index": 0, "records": build_batch([(None, b"v")])}]}]}
    pair.same(ApiKey.PRODUCE, 9, produce)
    pair.same(ApiKey.METADATA, 12, {"topics": [{"name": topic}], "allow_auto_topic_creation": False,
                                    "include_topic_authorized_operations": False},
              intended=(Intended("brokers*", "each broker's own address"),
                        Intended("controller_id", "node ids")))
    pair.same(ApiKey.LIST_OFFSETS, 5, {"replica_id": -1, "isolation_level": 0, "topics": [
        {"name": topic,
         "partitions": [{"partition_index": 0, "current_leader_epoch": -1, "timestamp": -1}]}]})
    pair.same(ApiKey.DELETE_TOPICS, 4, {"topic_names": [topic], "timeout_ms": 30000})
    pair.same(ApiKey.DESCRIBE_CONFIGS, 1, {"resources": [{"resource_type": 2, "resource_name": topic,
                                                          "configuration_keys": None}],
                                                          "include_synonyms": False},
              intended=(Intended("results[*].error_message", "the wording"),))
    pair.same(ApiKey.FIND_COORDINATOR, 3, {"key": group, "key_type": 0},
              intended=(Intended("error_message", "the wording"),))
    pair.same(ApiKey.JOIN_GROUP, 5,
              {"group_id": group, "session_timeout_ms": 10000, "rebalance_timeout_ms": 10000,
               "member_id": "", "group_instance_id": None, "protocol_type": "consumer",
               "protocols": [{"name": "range", "metadata": b""}]})
    pair.same(ApiKey.OFFSET_FETCH, 5, {"group_id": group, "topics": None})
