"""ACLs on three KRaft nodes as real processes: an ACL created through one broker is a record in the
metadata log, so every node's authoriser enforces it (Kafka's AclsImage on every node).

`allow.everyone.if.no.acl.found=true` keeps the cluster's own traffic (User:ANONYMOUS on PLAINTEXT,
like every client) allowed on the cluster resource, which no ACL names; a DENY for ANONYMOUS on one
topic then refuses it everywhere, while a topic no ACL names stays open and replicated."""

from __future__ import annotations

import pytest

from kafka.clients.admin import NewTopic
from kafka.protocol.acl import (
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from tests.cluster.kraft_cluster import started_cluster
from tests.helpers import wait_until
from tests.wire import WireClient

pytestmark = pytest.mark.timeout(300)

SECURED = {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
           "allow.everyone.if.no.acl.found": "true"}
DENY_SECRET = AclBinding(ResourcePattern(ResourceType.TOPIC, "secret", PatternType.LITERAL),
                         AccessControlEntry("User:ANONYMOUS", "*", AclOperation.ALL, AclPermissionType.DENY))


def metadata_error(port: int, topic: str) -> int | None:
    try:
        client = WireClient(port, timeout=5)
        try:
            answer = client.request(ApiKey.METADATA, 12, {"topics": [{"name": topic}],
                                                          "allow_auto_topic_creation": False})
        finally:
            client.close()
    except (OSError, ConnectionError):
        return None
    return answer.topics[0].error_code


def produce_error(port: int, topic: str) -> int:
    client = WireClient(port, timeout=10)
    try:
        answer = client.request(ApiKey.PRODUCE, 9, {"acks": -1, "timeout_ms": 5000, "topic_data": [
            {"name": topic, "partition_data": [{"index": 0, "records": build_batch([(None, b"v")])}]}]})
    finally:
        client.close()
    return answer.responses[0].partition_responses[0].error_code


def test_an_acl_created_through_one_broker_is_enforced_by_every_broker(tmp_path, request):
    with started_cluster(tmp_path, request, SECURED) as cluster:
        node1 = cluster.nodes[1]
        cluster.await_leader(node1)
        with node1.admin() as admin:
            for topic in ("secret", "open"):
                wait_until(lambda t=topic: admin.create_topics([NewTopic(t, 1, 3)]).get(t) is None
                           or metadata_error(node1.broker_port, t) == Errors.NONE, timeout=60,
                           message=f"{topic} created")
        for node in cluster.nodes.values():
            wait_until(lambda n=node: metadata_error(n.broker_port, "secret") == Errors.NONE, timeout=60,
                       message=f"node {node.node_id} to see the topic")
        with node1.admin() as admin:
            assert admin.create_acls([DENY_SECRET]) == [None]
        for node in cluster.nodes.values():
            with node.admin() as admin:
                wait_until(lambda a=admin: DENY_SECRET in a.describe_acls(AclBindingFilter()), timeout=30,
                           message=f"node {node.node_id}'s authoriser to hold the ACL")
            assert metadata_error(node.broker_port, "secret") == Errors.TOPIC_AUTHORIZATION_FAILED
            assert produce_error(node.broker_port, "secret") == Errors.TOPIC_AUTHORIZATION_FAILED
        # the topic no ACL names is open, and its acks=all produce shows replication (ClusterAction) works
        wait_until(lambda: any(produce_error(n.broker_port, "open") == Errors.NONE
                               for n in cluster.nodes.values()),
                   timeout=60, message="an acks=all produce to the open topic, through its leader")
