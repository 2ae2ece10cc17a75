"""tests/jvm/apache_kafka.py's SASL_SSL listener, the one bench/sasl_ssl.py --apache measures: Apache
Kafka 4.4.0 given tests/security/certificates.py's PEM keystore and truststore (KIP-651) and a
SCRAM-SHA-512 user written by `kafka-storage format --add-scram` lets that user produce and consume
over TLS, refuses a wrong password, and keeps its PLAINTEXT listener beside it."""

from __future__ import annotations

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient

from kafka.utils.free_port import free_port
from tests.helpers import unique_topic, wait_until
from tests.jvm import resolve
from tests.jvm.apache_kafka import ApacheKafka, SaslSsl
from tests.security.certificates import Certificates

pytestmark = [pytest.mark.broker, pytest.mark.timeout(240)]

USER, PASSWORD = "bench", "bench-secret"


@pytest.fixture(scope="module")
def apache(tmp_path_factory):
    home = tmp_path_factory.mktemp("apache-sasl-ssl")
    certs = Certificates.create(home / "certs")
    tls_port = free_port()
    try:
        kafka = ApacheKafka(home / "kafka", sasl_ssl=SaslSsl(tls_port, USER, PASSWORD,
                                                             certs.broker_ssl_configs())).start()
    except resolve.ResolveError as e:
        pytest.fail(str(e), pytrace=False)
    try:
        yield kafka, f"127.0.0.1:{tls_port}", certs
    finally:
        kafka.stop()


def login(bootstrap: str, certs: Certificates, password: str = PASSWORD, **extra) -> dict:
    return {"bootstrap.servers": bootstrap, "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.username": USER, "sasl.password": password, "ssl.ca.location": certs.ca_file, **extra}


def test_the_scram_user_produces_and_consumes_over_tls(apache):
    kafka, tls, certs = apache
    topic = unique_topic("apache-tls")
    producer = Producer(login(tls, certs))
    for i in range(10):
        producer.produce(topic, f"v{i}".encode())
    assert producer.flush(60) == 0
    consumer = Consumer(login(tls, certs, **{"group.id": topic, "auto.offset.reset": "earliest"}))
    consumer.subscribe([topic])
    got: list[str] = []

    def read_all() -> bool:
        message = consumer.poll(0.5)
        if message is not None and not message.error():
            got.append(message.value().decode())
        return len(got) == 10
    try:
        wait_until(read_all, timeout=60, message="the ten records over SASL_SSL")
    finally:
        consumer.close()
    assert got == [f"v{i}" for i in range(10)]
    # The PLAINTEXT listener beside it, which the bench's PLAINTEXT run uses, still answers.
    assert AdminClient({"bootstrap.servers": kafka.bootstrap}).list_topics(topic, timeout=30).topics[topic].error is None


def test_a_wrong_password_is_refused(apache):
    _, tls, certs = apache
    errors: list[KafkaError] = []
    admin = AdminClient(login(tls, certs, password="wrong", error_cb=errors.append, log_level=0))
    with pytest.raises(KafkaException):  # no metadata without a login
        admin.list_topics(timeout=5)

    def refused() -> bool:
        admin.poll(0.1)  # error_cb is served by poll
        return any(e.code() == KafkaError._AUTHENTICATION for e in errors)
    wait_until(refused, timeout=30, message="an authentication error")
