"""ACLs on a real broker (Kafka's AuthorizerIntegrationTest, in small): User:ANONYMOUS -- every PLAINTEXT
client's principal -- granted and denied per API family, each answer checked against the error code
Kafka documents for it; DescribeAcls, kafka-acls' output, and a confluent-kafka producer told
TOPIC_AUTHORIZATION_FAILED.

The cluster is secured as Kafka's documentation says to bootstrap one: first started with
User:ANONYMOUS in super.users, which creates the ACLs the cluster's own traffic needs (ClusterAction,
and Alter/Describe on the cluster so the tests may manage ACLs); then restarted without super users,
so from then on ANONYMOUS may do only what an ACL grants it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from confluent_kafka import Producer

from kafka.clients.admin import AdminClient
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
from tests.helpers import REPO, InProcessBroker, wait_until
from tests.integration.test_long_poll import fetch_body
from tests.metrics.scrape import scrape
from tests.wire import WireClient

pytestmark = pytest.mark.broker

AUTHORIZER = {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer"}
ANONYMOUS = "User:ANONYMOUS"
Op, Res = AclOperation, ResourceType


def binding(res: ResourceType, name: str, op: AclOperation, perm=AclPermissionType.ALLOW,
            pattern=PatternType.LITERAL, principal=ANONYMOUS) -> AclBinding:
    return AclBinding(ResourcePattern(res, name, pattern), AccessControlEntry(principal, "*", op, perm))


def grant(broker, *bindings: AclBinding) -> None:
    """Create the ACLs and wait until this broker's authoriser has them (DescribeAcls reads it)."""
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        assert admin.create_acls(bindings) == [None] * len(bindings)
        wait_until(lambda: set(bindings) <= set(admin.describe_acls(AclBindingFilter())),
                   message="the ACLs to reach the broker's authoriser")


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    data = tmp_path_factory.mktemp("acls") / "data"
    first = InProcessBroker(data, {**AUTHORIZER, "super.users": ANONYMOUS})
    try:
        grant(first, *(binding(Res.CLUSTER, "kafka-cluster", op) for op in (Op.CLUSTER_ACTION, Op.ALTER)))
    finally:
        first.stop()
    broker = InProcessBroker(data, {**AUTHORIZER, "request.trace.enable": "true"})
    try:
        client = WireClient(broker.port)
        wait_until(lambda: client.request(ApiKey.METADATA, 12, {"topics": None}).brokers,
                   message="a registered broker")
        yield broker
    finally:
        broker.stop()


def create_topic(client: WireClient, name: str) -> int:
    response = client.request(ApiKey.CREATE_TOPICS, 7, {
        "topics": [{"name": name, "num_partitions": 1, "replication_factor": 1}], "timeout_ms": 5000})
    return response.topics[0].error_code


def produce(client: WireClient, topic: str, **extra) -> int:
    response = client.request(ApiKey.PRODUCE, 9, {"acks": -1, "timeout_ms": 5000, **extra, "topic_data": [
        {"name": topic, "partition_data": [{"index": 0, "records": build_batch([(None, b"v")])}]}]})
    return response.responses[0].partition_responses[0].error_code


def init_producer_id(client: WireClient, transactional_id: str | None = None):
    return client.request(ApiKey.INIT_PRODUCER_ID, 4, {"transactional_id": transactional_id,
                                                       "transaction_timeout_ms": 60000})


def test_admin_and_produce_need_create_and_write(secured):
    """Runs first: ANONYMOUS has no WRITE anywhere yet, so an idempotent producer id is refused."""
    client = WireClient(secured.port)
    assert init_producer_id(client).error_code == Errors.CLUSTER_AUTHORIZATION_FAILED
    assert create_topic(client, "orders") == Errors.TOPIC_AUTHORIZATION_FAILED
    grant(secured, binding(Res.TOPIC, "orders", Op.CREATE))
    assert create_topic(client, "orders") == Errors.NONE
    assert produce(client, "orders") == Errors.TOPIC_AUTHORIZATION_FAILED
    grant(secured, binding(Res.TOPIC, "ord", Op.WRITE, pattern=PatternType.PREFIXED))
    wait_until(lambda: produce(client, "orders") == Errors.NONE, message="a produce once WRITE is granted")
    assert init_producer_id(client).error_code == Errors.NONE  # KIP-679: WRITE on some topic is enough
    # DENY before ALLOW: a literal DENY beats the prefixed ALLOW
    grant(secured, binding(Res.TOPIC, "orders", Op.WRITE, AclPermissionType.DENY))
    assert produce(client, "orders") == Errors.TOPIC_AUTHORIZATION_FAILED


def test_fetch_list_offsets_and_metadata_need_read_and_describe(secured):
    client = WireClient(secured.port)
    grant(secured, binding(Res.TOPIC, "clicks", Op.CREATE))
    assert create_topic(client, "clicks") == Errors.NONE
    fetched = client.request(ApiKey.FETCH, 11, fetch_body("clicks", 0, 0))
    assert fetched.responses[0].partitions[0].error_code == Errors.TOPIC_AUTHORIZATION_FAILED
    offsets = client.request(ApiKey.LIST_OFFSETS, 5, {"replica_id": -1, "isolation_level": 0, "topics": [
        {"name": "clicks", "partitions": [{"partition_index": 0, "timestamp": -1}]}]})
    assert offsets.topics[0].partitions[0].error_code == Errors.TOPIC_AUTHORIZATION_FAILED
    every = client.request(ApiKey.METADATA, 12, {"topics": None})
    assert "clicks" not in {t.name for t in every.topics}  # hidden, not refused
    named = client.request(ApiKey.METADATA, 12,
                           {"topics": [{"name": "clicks"}], "allow_auto_topic_creation": False})
    assert named.topics[0].error_code == Errors.TOPIC_AUTHORIZATION_FAILED
    grant(secured, binding(Res.TOPIC, "clicks", Op.READ))  # READ implies DESCRIBE
    fetched = client.request(ApiKey.FETCH, 11, fetch_body("clicks", 0, 0))
    assert fetched.responses[0].partitions[0].error_code == Errors.NONE
    described = client.request(ApiKey.METADATA, 12,
                               {"topics": [{"name": "clicks"}], "allow_auto_topic_creation": False,
                                "include_topic_authorized_operations": True})
    assert described.topics[0].error_code == Errors.NONE
    read_describe_create = (1 << Op.READ) | (1 << Op.DESCRIBE) | (1 << Op.CREATE)
    assert described.topics[0].topic_authorized_operations == read_describe_create


def test_describe_topic_partitions_needs_describe(secured):
    """KIP-966's paged metadata: a topic not describable is left out of all topics and refused by name."""
    client = WireClient(secured.port)
    grant(secured, binding(Res.TOPIC, "views", Op.CREATE))
    assert create_topic(client, "views") == Errors.NONE

    def describe(*names: str):
        return client.request(ApiKey.DESCRIBE_TOPIC_PARTITIONS, 0, {"topics": [{"name": n} for n in names]})
    assert "views" not in {t.name for t in describe().topics}
    (refused,) = describe("views").topics
    assert (refused.error_code, refused.partitions) == (Errors.TOPIC_AUTHORIZATION_FAILED, [])
    grant(secured, binding(Res.TOPIC, "views", Op.DESCRIBE))
    (described,) = describe("views").topics
    assert (described.error_code, len(described.partitions)) == (Errors.NONE, 1)
    assert described.topic_authorized_operations == (1 << Op.DESCRIBE) | (1 << Op.CREATE)
    assert "views" in {t.name for t in describe().topics}


def test_metadata_auto_creates_only_with_create(secured):
    client = WireClient(secured.port)
    grant(secured, binding(Res.TOPIC, "auto-", Op.DESCRIBE, pattern=PatternType.PREFIXED))
    asked = client.request(ApiKey.METADATA, 12,
                           {"topics": [{"name": "auto-a"}], "allow_auto_topic_creation": True})
    assert asked.topics[0].error_code == Errors.TOPIC_AUTHORIZATION_FAILED
    grant(secured, binding(Res.TOPIC, "auto-", Op.CREATE, pattern=PatternType.PREFIXED))
    asked = client.request(ApiKey.METADATA, 12,
                           {"topics": [{"name": "auto-a"}], "allow_auto_topic_creation": True})
    assert asked.topics[0].error_code in (Errors.LEADER_NOT_AVAILABLE, Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                          Errors.NONE)


def test_groups_need_read_on_the_group_and_the_topic(secured):
    client = WireClient(secured.port)
    found = client.request(ApiKey.FIND_COORDINATOR, 3, {"key": "billing", "key_type": 0})
    assert found.error_code == Errors.GROUP_AUTHORIZATION_FAILED
    joined = client.request(ApiKey.JOIN_GROUP, 5, {"group_id": "billing", "session_timeout_ms": 10000,
                                                   "rebalance_timeout_ms": 10000, "member_id": "",
                                                   "protocol_type": "consumer", "protocols": []})
    assert joined.error_code == Errors.GROUP_AUTHORIZATION_FAILED
    fetched = client.request(ApiKey.OFFSET_FETCH, 5, {"group_id": "billing", "topics": None})
    assert fetched.error_code == Errors.GROUP_AUTHORIZATION_FAILED
    described = client.request(ApiKey.DESCRIBE_GROUPS, 5,
                               {"groups": ["billing"], "include_authorized_operations": True})
    assert described.groups[0].error_code == Errors.GROUP_AUTHORIZATION_FAILED
    grant(secured, binding(Res.GROUP, "billing", Op.READ))
    committed = client.request(ApiKey.OFFSET_COMMIT, 2,
                               {"group_id": "billing", "generation_id_or_member_epoch": -1,
                                "member_id": "", "retention_time_ms": -1, "topics": [
        {"name": "secret", "partitions": [{"partition_index": 0, "committed_offset": 1}]}]})
    assert committed.topics[0].partitions[0].error_code == Errors.TOPIC_AUTHORIZATION_FAILED
    wait_until(lambda: client.request(ApiKey.FIND_COORDINATOR, 3,
                                      {"key": "billing", "key_type": 0}).error_code
               == Errors.NONE, message="the group's coordinator")
    # the coordinator's shard loads the new partition in the background: COORDINATOR_LOAD_IN_PROGRESS till
    # then
    describe = {"groups": ["billing"], "include_authorized_operations": True}
    wait_until(lambda: client.request(ApiKey.DESCRIBE_GROUPS, 5, describe).groups[0].error_code
               != Errors.COORDINATOR_LOAD_IN_PROGRESS, message="the group's shard loaded")
    described = client.request(ApiKey.DESCRIBE_GROUPS, 5, describe)
    assert described.groups[0].error_code == Errors.NONE
    assert described.groups[0].authorized_operations == (1 << Op.READ) | (1 << Op.DESCRIBE)


def test_producer_ids_need_idempotent_write_or_the_transactional_id(secured):
    client = WireClient(secured.port)
    assert init_producer_id(client, "tx-1").error_code == Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    found = client.request(ApiKey.FIND_COORDINATOR, 3, {"key": "tx-1", "key_type": 1})
    assert found.error_code == Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    ended = client.request(ApiKey.END_TXN, 3,
                           {"transactional_id": "tx-1", "producer_id": 1, "producer_epoch": 0,
                            "committed": True})
    assert ended.error_code == Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    produced = client.request(ApiKey.PRODUCE, 9, {"acks": -1, "timeout_ms": 5000, "transactional_id": "tx-1",
                                                  "topic_data": []})
    assert produced.responses == []  # refused whole: TRANSACTIONAL_ID_AUTHORIZATION_FAILED on every partition
    grant(secured, binding(Res.TRANSACTIONAL_ID, "tx-", Op.WRITE, pattern=PatternType.PREFIXED))
    wait_until(lambda: client.request(ApiKey.FIND_COORDINATOR, 3, {"key": "tx-1", "key_type": 1}).error_code
               == Errors.NONE,
               message="the transaction coordinator (FindCoordinator needs DESCRIBE, WRITE implies it)")
    wait_until(lambda: init_producer_id(client, "tx-1").error_code == Errors.NONE,
               message="a transactional producer id once WRITE on its transactional id is granted")
    grant(secured, binding(Res.CLUSTER, "kafka-cluster", Op.IDEMPOTENT_WRITE))
    assert init_producer_id(client).error_code == Errors.NONE


def test_cluster_apis_and_describe_cluster_operations(secured):
    client = WireClient(secured.port)
    log_dirs = client.request(ApiKey.DESCRIBE_LOG_DIRS, 1, {"topics": None})
    assert log_dirs.error_code == Errors.NONE  # ALTER on the cluster implies DESCRIBE
    cluster = client.request(ApiKey.DESCRIBE_CLUSTER, 0, {"include_cluster_authorized_operations": True})
    granted = 1 << Op.CLUSTER_ACTION | 1 << Op.ALTER | 1 << Op.DESCRIBE
    assert cluster.cluster_authorized_operations & granted == granted
    configs = client.request(ApiKey.DESCRIBE_CONFIGS, 1, {"resources": [
        {"resource_type": 2, "resource_name": "nobody-may", "configuration_keys": None}],
        "include_synonyms": False})
    assert configs.results[0].error_code == Errors.TOPIC_AUTHORIZATION_FAILED
    deleted = client.request(ApiKey.DELETE_TOPICS, 4, {"topic_names": ["nobody-may"], "timeout_ms": 5000})
    assert deleted.responses[0].error_code == Errors.TOPIC_AUTHORIZATION_FAILED


def test_kafka_acls_lists_in_kafkas_format(secured):
    grant(secured, binding(Res.TOPIC, "listed", Op.WRITE, principal="User:alice"))
    out = subprocess.run([sys.executable, "-m", "kafka.tools.acl_command", "--bootstrap-server",
                          secured.bootstrap,
                          "--list", "--topic", "listed"], capture_output=True, text=True, cwd=REPO,
                          timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ("Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=listed, "
                          "patternType=LITERAL)`:\n\t(principal=User:alice, host=*, operation=WRITE, "
                          "permissionType=ALLOW)\n\n")
    removed = subprocess.run([sys.executable, "-m", "kafka.tools.acl_command", "--bootstrap-server",
                              secured.bootstrap, "--remove", "--force", "--topic", "listed"],
                             capture_output=True, text=True, cwd=REPO, timeout=60)
    assert removed.returncode == 0, removed.stderr
    with AdminClient({"bootstrap.servers": secured.bootstrap}) as admin:
        wait_until(lambda: not admin.describe_acls(AclBindingFilter(Res.TOPIC, "listed")),
                   message="the ACL removed")


def test_a_confluent_kafka_producer_is_told_topic_authorization_failed(secured):
    client = WireClient(secured.port)
    grant(secured, binding(Res.TOPIC, "readonly", Op.CREATE))
    assert create_topic(client, "readonly") == Errors.NONE
    errors = []
    producer = Producer({"bootstrap.servers": secured.bootstrap, "enable.idempotence": False,
                         "message.timeout.ms": 10000})
    producer.produce("readonly", b"v", on_delivery=lambda err, _msg: errors.append(err))
    producer.flush(15)
    assert errors and errors[0] is not None and errors[0].name() == "TOPIC_AUTHORIZATION_FAILED", errors


def test_without_an_authorizer_the_acl_apis_say_security_disabled(broker):
    client = WireClient(broker.port)
    described = client.request(ApiKey.DESCRIBE_ACLS, 3, AclBindingFilter().to_filter())
    assert described.error_code == Errors.SECURITY_DISABLED
    created = client.request(ApiKey.CREATE_ACLS, 3, {"creations": [
        binding(Res.TOPIC, "t", Op.READ).to_creation()]})
    assert created.results[0].error_code == Errors.SECURITY_DISABLED


def test_denials_are_counted_and_the_trace_shows_principal_and_decision(secured):
    client = WireClient(secured.port)
    before = scrape(secured).value("kafka_server_authorizer_metrics_authorization_denied_total")
    assert produce(client, "traced") == Errors.TOPIC_AUTHORIZATION_FAILED
    assert scrape(secured).value("kafka_server_authorizer_metrics_authorization_denied_total") >= before + 1
    assert scrape(secured).value("kafka_server_authorizer_metrics_acls_total_count") >= 2
    trace = secured.server.metrics_endpoint.request_trace
    page = wait_until(lambda: trace.render_page({"api": ["Produce"], "client_id": ["wire-test"],
                                                 "limit": ["1"]})
                      if "traced" in trace.render_page({"api": ["Produce"], "limit": ["1"]}) else None,
                      message="the denied Produce in the request trace")
    assert "principal=User:ANONYMOUS" in page
    assert "authorize User:ANONYMOUS WRITE TOPIC:traced -> DENIED by DefaultDeny" in page
