"""Lab 13, who may do what (docs/labs/13-who-may-do-what.md): `_find_result` in
kafka/metadata/authorizer/standard_authorizer_data.py, Kafka's StandardAuthorizerData.findResult -- does this
one ACL speak to this request, and does it allow or deny it? -- first through the authoriser's decisions, then
on a real broker whose clients log in with SCRAM over SASL_PLAINTEXT and are asked what their ACLs allow.

Seed 002 ("Inside the Apache Kafka Broker"): the I/O thread takes a request from the queue, checks
it, and only then does the work; the check is the authoriser's. Its rules (KIP-140, KIP-290, Kafka's
docs/security "Authorization and ACLs"): a DENY beats any ALLOW, an ALLOW of Read, Write, Delete or
Alter also allows Describe, and ACLs apply by LITERAL name, by the `*` wildcard and by PREFIXED name.
"""

from __future__ import annotations

import re
import uuid
from types import SimpleNamespace

import confluent_kafka as ck
import pytest

from kafka.clients.admin import AdminClient, NewTopic
from kafka.image.standard_acl import StandardAcl
from kafka.metadata.authorizer.standard_authorizer_data import ALLOWED, DENIED, StandardAuthorizerData
from kafka.protocol.acl import (
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    ResourcePattern,
)
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import AclPermissionType as Perm
from kafka.protocol.acl import PatternType as Pt
from kafka.protocol.acl import ResourceType as Res
from kafka.server.kafka_config import KafkaConfig, parse_properties
from kafka.server.kafka_server import KafkaServer
from kafka.tools import storage_tool
from kafka.tools.lab import REPO
from kafka.utils.uuid import random_uuid
from tests.helpers import free_port, wait_until
from tests.metrics.scrape import scrape

HOST, OTHER_HOST = "10.0.0.1", "10.0.0.2"
ALLOW, DENY = Perm.ALLOW, Perm.DENY


def acl(principal: str, op: Op, perm: Perm = ALLOW, name: str = "orders", pattern: Pt = Pt.LITERAL,
        host: str = "*", res: Res = Res.TOPIC) -> StandardAcl:
    return StandardAcl(res, name, pattern, principal, host, op, perm)


def decide(acls: list[StandardAcl], op: Op, principal: str = "User:alice", host: str = HOST,
           name: str = "orders", res: Res = Res.TOPIC) -> str:
    """The authoriser's answer with these ACLs and nobody a super user: ALLOWED or DENIED."""
    data = StandardAuthorizerData({uuid.uuid4(): a for a in acls}, frozenset(), allow_if_no_acl=False)
    return data.authorize(principal, host, op, res, name).result


def test_an_acl_applies_only_to_its_principal_and_host():
    """an ACL applies to its own principal (or User:*) from its own host (or *), and to nobody else"""
    assert decide([acl("User:alice", Op.READ)], Op.READ) == ALLOWED, "alice's ALLOW READ must let alice read"
    assert decide([acl("User:alice", Op.READ)], Op.READ, principal="User:bob") == DENIED, \
        "alice's ACL must not let bob read (return None for an ACL of another principal)"
    assert decide([acl("User:*", Op.READ)], Op.READ, principal="User:bob") == ALLOWED, "User:* is everyone"
    assert decide([acl("User:alice", Op.READ, host=HOST)],
                  Op.READ) == ALLOWED, "an ACL for the client's own host"
    assert decide([acl("User:alice", Op.READ, host=HOST)], Op.READ, host=OTHER_HOST) == DENIED, \
        "an ACL for another host must not apply (host * is every host)"


def test_an_allow_matches_its_operation_and_all_matches_every_operation():
    """an ALLOW matches its own operation and no other; an ALLOW of All matches every operation"""
    assert decide([acl("User:alice", Op.WRITE)], Op.WRITE) == ALLOWED
    assert decide([acl("User:alice", Op.WRITE)], Op.READ) == DENIED, "an ALLOW WRITE is no ALLOW READ"
    assert decide([acl("User:alice", Op.DESCRIBE)], Op.READ) == DENIED, "DESCRIBE implies no READ"
    for op in (Op.READ, Op.WRITE, Op.DELETE, Op.ALTER_CONFIGS):
        assert decide([acl("User:alice", Op.ALL)], op) == ALLOWED, f"ALLOW ALL must allow {op.name}"


@pytest.mark.parametrize("granted", [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER], ids=lambda op: op.name)
def test_read_write_delete_and_alter_imply_describe(granted):
    """an ALLOW of Read, Write, Delete or Alter also allows Describe"""
    assert decide([acl("User:alice", granted)], Op.DESCRIBE) == ALLOWED, \
        f"an ALLOW {granted.name} must also allow DESCRIBE (IMPLIES_DESCRIBE)"


def test_only_those_imply_and_alter_configs_implies_describe_configs():
    """Create implies nothing; an ALLOW of AlterConfigs also allows DescribeConfigs, and no Describe"""
    assert decide([acl("User:alice", Op.CREATE)], Op.DESCRIBE) == DENIED, "CREATE implies nothing"
    assert decide([acl("User:alice", Op.ALTER_CONFIGS)], Op.DESCRIBE_CONFIGS) == ALLOWED, \
        "an ALLOW ALTER_CONFIGS must also allow DESCRIBE_CONFIGS (IMPLIES_DESCRIBE_CONFIGS)"
    assert decide([acl("User:alice", Op.ALTER_CONFIGS)],
                  Op.DESCRIBE) == DENIED, "ALTER_CONFIGS implies no DESCRIBE"
    assert decide([acl("User:alice", Op.DESCRIBE_CONFIGS)], Op.ALTER_CONFIGS) == DENIED


def test_a_deny_beats_an_allow_and_implies_nothing():
    """a DENY beats any ALLOW, on a LITERAL, wildcard or PREFIXED pattern,
    but denies only its own operation"""
    allow_read = acl("User:alice", Op.READ)
    assert decide([allow_read, acl("User:alice", Op.READ, DENY)], Op.READ) == DENIED, "DENY before ALLOW"
    assert decide([allow_read, acl("User:*", Op.READ, DENY, name="ord", pattern=Pt.PREFIXED)],
                  Op.READ) == DENIED, \
        "a DENY for User:* on the prefix ord- applies to alice on orders"
    assert decide([allow_read, acl("User:alice", Op.ALL, DENY, name="*")],
                  Op.READ) == DENIED, "a DENY ALL on *"
    assert decide([allow_read, acl("User:alice", Op.READ, DENY)], Op.DESCRIBE) == ALLOWED, \
        "a DENY READ must not deny DESCRIBE (DENY implies nothing), which the ALLOW READ allows"
    assert decide([allow_read, acl("User:alice", Op.WRITE, DENY)],
                  Op.READ) == ALLOWED, "a DENY WRITE is no DENY READ"
    assert decide([allow_read, acl("User:alice", Op.READ, DENY, host=OTHER_HOST)], Op.READ) == ALLOWED, \
        "a DENY for another host does not apply"


# ------------------------------------------------------------------ a real broker, real clients
def page_properties() -> dict[str, str]:
    """The lab page's lab13.properties, as the student saves it (one place says how the broker runs)."""
    text = (REPO / "docs" / "labs" / "13-who-may-do-what.md").read_text(encoding="utf-8")
    block = re.search(r"^```properties\n(# lab13\.properties.*?)^```", text, re.S | re.M).group(1)
    return parse_properties(block)


def login(port: int, user: str, **extra) -> dict:
    return {"bootstrap.servers": f"127.0.0.1:{port}", "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": user, "sasl.password": f"{user}-secret",
            "client.id": user, **extra}


def binding(principal: str, op: Op, perm: Perm = ALLOW, name: str = "orders",
            pattern: Pt = Pt.LITERAL) -> AclBinding:
    return AclBinding(ResourcePattern(Res.TOPIC, name, pattern), AccessControlEntry(principal, "*", op, perm))


@pytest.fixture
def secured(tmp_path):
    """The page's broker on a free port, formatted with its admin and with alice and carol as SCRAM users."""
    port = free_port()
    props = {**page_properties(), "listeners": f"SASL_PLAINTEXT://127.0.0.1:{port}",
             "advertised.listeners": f"SASL_PLAINTEXT://127.0.0.1:{port}", "log.dirs": str(tmp_path / "data"),
             "metrics.listener": "http://127.0.0.1:0"}
    config = tmp_path / "lab13.properties"
    config.write_text("".join(f"{key}={value}\n" for key, value in props.items()), encoding="utf-8")
    users = [f"SCRAM-SHA-512=[name={user},password={user}-secret]" for user in ("admin", "alice", "carol")]
    assert storage_tool.main(["format", "-t", random_uuid(), "-c", str(config),
                              *(arg for user in users for arg in ("--add-scram", user))]) == 0
    server = KafkaServer(KafkaConfig(props))  # not InProcessBroker: it would look for a PLAINTEXT listener
    server.startup()
    try:
        yield SimpleNamespace(server=server, port=port, bootstrap=f"127.0.0.1:{port}")
    finally:
        server.shutdown()


def topics_seen(conf: dict) -> set[str]:
    producer = ck.Producer(conf)
    try:
        return set(producer.list_topics(timeout=10).topics)
    finally:
        producer.close()  # before the broker stops, or librdkafka complains of refused connections


def fetch_error(conf: dict, topic: str) -> int | None:
    """The error carol's consumer meets reading partition 0 from the start (None: it read a record).
    Her group is not hers either: a GROUP_AUTHORIZATION_FAILED on the way is not what is asked."""
    consumer = ck.Consumer({**conf, "group.id": "carol", "enable.auto.commit": False})
    consumer.assign([ck.TopicPartition(topic, 0, 0)])
    outcome: list = []

    def answered() -> bool:
        message = consumer.poll(0.5)
        if message is not None and (message.error() is None
                                    or message.error().code() != ck.KafkaError.GROUP_AUTHORIZATION_FAILED):
            outcome.append(message.error().code() if message.error() else None)
        return bool(outcome)
    try:
        wait_until(answered, timeout=15, message="carol's fetch to be answered", interval=0)
        return outcome[0]
    finally:
        consumer.close()


def test_a_real_broker_lets_alice_write_and_refuses_carol(secured):
    """a real broker over SASL_PLAINTEXT: alice, granted Write, produces with confluent-kafka;
    carol is refused, then denied Read"""
    admin = AdminClient({"bootstrap.servers": secured.bootstrap, "security.protocol": "SASL_PLAINTEXT",
                         "sasl.mechanism": "SCRAM-SHA-512", "sasl.jaas.config":
                             'org.apache.kafka.common.security.scram.ScramLoginModule required '
                             'username="admin" '
                             'password="admin-secret";'})
    try:
        assert admin.create_topics([NewTopic("orders", 1, 1)]) == {"orders": None}
        grants = [binding("User:alice", Op.WRITE)]
        assert admin.create_acls(grants) == [None]
        wait_until(lambda: set(grants) <= set(admin.describe_acls(AclBindingFilter())),
                   message="alice's ACL loaded")

        errors: list = []
        producer = ck.Producer(login(secured.port, "alice", **{"linger.ms": 1, "message.timeout.ms": 10000}))
        producer.produce("orders", b"order-1", on_delivery=lambda err, _msg: errors.append(err))
        producer.flush(15)
        producer.close()
        assert errors == [None], f"alice's WRITE on orders should let her produce: {errors}"
        assert "orders" in topics_seen(login(secured.port,
                                             "alice")), "an ALLOW WRITE implies DESCRIBE: alice sees it"

        carol = login(secured.port, "carol")
        assert "orders" not in topics_seen(carol), "carol has no ACL: Metadata must hide orders from her"
        producer = ck.Producer({**carol, "message.timeout.ms": 5000})
        errors.clear()
        producer.produce("orders", b"sneaky", on_delivery=lambda err, _msg: errors.append(err))
        producer.flush(15)
        producer.close()
        assert [e.code() for e in errors] == [ck.KafkaError.TOPIC_AUTHORIZATION_FAILED], errors

        grants = [binding("User:*", Op.READ, name="ord", pattern=Pt.PREFIXED),
                  binding("User:carol", Op.READ, DENY)]
        assert admin.create_acls(grants) == [None, None]
        wait_until(lambda: set(grants) <= set(admin.describe_acls(AclBindingFilter())),
                   message="the new ACLs loaded")
    finally:
        admin.close()
    assert "orders" in topics_seen(carol), (
        "carol's DENY READ implies nothing: the ALLOW READ for User:* lets her see it")
    assert fetch_error(carol,
                       "orders") == ck.KafkaError.TOPIC_AUTHORIZATION_FAILED, "the DENY must beat the ALLOW"

    # a request joins the trace once its response is sent: just after she read it
    def carols_fetch() -> str | None:
        page = secured.server.metrics_endpoint.request_trace.render_page(
            {"api": ["FetchConsumer"], "client_id": ["carol"], "limit": ["1"]})
        return page if "principal=User:carol" in page else None
    trace = wait_until(carols_fetch, timeout=5, message="carol's fetch in the request trace")
    assert ("authorize User:carol READ TOPIC:orders -> DENIED by DENY READ for User:carol@* on "
            "TOPIC:LITERAL:orders"
            in trace), trace
    denied = scrape(secured).value("kafka_server_authorizer_metrics_authorization_denied_total")
    assert denied >= 3, f"carol's refusals should be counted, {denied}"
