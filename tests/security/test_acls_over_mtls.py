"""ACLs for named principals on a real broker: clients on an mTLS listener are User:alice and User:bob
(their certificates' CN, through ssl.principal.mapping.rules), while the brokers' own traffic and the
admin stay on PLAINTEXT as User:ANONYMOUS, made a super user -- the setup docs/acls.md recommends
until SASL exists. alice may write `orders`, bob may read it in group `billing`; each is refused the
other's part with Kafka's error code, through confluent-kafka (librdkafka) as a user would see it."""

from __future__ import annotations

import confluent_kafka as ck
import pytest

from kafka.clients.admin import AdminClient, NewTopic
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
from tests.helpers import InProcessBroker, free_port, unique_topic, wait_until
from tests.security.certificates import Certificates

pytestmark = pytest.mark.broker


def allow(res: ResourceType, name: str, principal: str, op: AclOperation) -> AclBinding:
    return AclBinding(ResourcePattern(res, name, PatternType.LITERAL),
                      AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW))


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Certificates:
    return Certificates.create(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def secured(tmp_path_factory, certs):
    mtls_port = free_port()
    broker = InProcessBroker(tmp_path_factory.mktemp("data"), {
        "listeners": f"PLAINTEXT://127.0.0.1:0,MTLS://127.0.0.1:{mtls_port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,MTLS:SSL,CONTROLLER:PLAINTEXT",
        **certs.broker_ssl_configs("required"),
        "listener.name.mtls.ssl.principal.mapping.rules": "RULE:^CN=(.*?),OU=.*$/$1/L,DEFAULT",
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": "User:ANONYMOUS", "group.initial.rebalance.delay.ms": "0"})
    broker.mtls_port = mtls_port
    try:
        yield broker
    finally:
        broker.stop()


def as_user(broker, certs: Certificates, cn: str) -> dict:
    cert, key = certs.client(cn)
    return {"bootstrap.servers": f"127.0.0.1:{broker.mtls_port}", "security.protocol": "SSL",
            "ssl.ca.location": certs.ca_file, "ssl.certificate.location": cert, "ssl.key.location": key}


def delivery_errors(conf: dict, topic: str, count: int = 3) -> list:
    errors = []
    producer = ck.Producer({**conf, "message.timeout.ms": 10000})
    for i in range(count):
        producer.produce(topic, b"v%d" % i, on_delivery=lambda err, _msg: errors.append(err))
    producer.flush(15)
    return errors


def test_named_principals_get_what_their_acls_grant(secured, certs):
    topic, group = unique_topic("orders"), unique_topic("billing")
    bindings = [allow(ResourceType.TOPIC, topic, "User:alice", AclOperation.WRITE),
                allow(ResourceType.TOPIC, topic, "User:bob", AclOperation.READ),
                allow(ResourceType.GROUP, group, "User:bob", AclOperation.READ)]
    with AdminClient({"bootstrap.servers": secured.bootstrap}) as admin:  # PLAINTEXT: the super user
        assert admin.create_topics([NewTopic(topic, 1, 1)]) == {topic: None}
        assert admin.create_acls(bindings) == [None] * 3
        wait_until(lambda: set(bindings) <= set(admin.describe_acls(AclBindingFilter())),
                   message="the ACLs in the broker's authoriser")

    assert delivery_errors(as_user(secured, certs, "alice"), topic) == [None] * 3
    bob_wrote = delivery_errors(as_user(secured, certs, "bob"), topic, count=1)
    assert bob_wrote[0] is not None and bob_wrote[0].name() == "TOPIC_AUTHORIZATION_FAILED", bob_wrote

    def consume(cn: str):
        consumer = ck.Consumer({**as_user(secured, certs, cn), "group.id": group,
                                "auto.offset.reset": "earliest"})
        consumer.subscribe([topic])
        got: list = []
        try:
            def polled():
                message = consumer.poll(0.5)
                if message is not None:
                    got.append(message.error().name() if message.error() else message.value())
                return len(got) >= 3 or any(isinstance(g, str) for g in got)
            wait_until(polled, timeout=30, message=f"{cn}'s consumer", interval=0)
        finally:
            consumer.close()
        return got

    assert consume("bob") == [b"v0", b"v1", b"v2"]
    alice_read = consume("alice")
    assert "GROUP_AUTHORIZATION_FAILED" in alice_read, alice_read
