"""Acceptance (issue 29, SASL): real clients over SASL_PLAINTEXT and SASL_SSL listeners, and what bad
SASL input meets.

One broker for the module: PLAINTEXT (for setting users up), SASL_PLAINTEXT with PLAIN, SCRAM-SHA-256
and SCRAM-SHA-512, and SASL_SSL with SCRAM-SHA-512 and PLAIN. PLAIN's users come from the listener's
JAAS options; SCRAM users are created with kafka-configs (AlterUserScramCredentials), so every SCRAM
login here also proves the credential went through the controller, the metadata log and the
ScramPublisher into the network threads' CredentialCache.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import time

import pytest
import structlog

from kafka.clients.admin import AdminClient
from kafka.clients.errors import ConfigError, KafkaError
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.security.scram_mechanism import ScramMechanism
from kafka.security.scram_sasl_client import ScramSaslClient
from tests.helpers import REPO, InProcessBroker, free_port, unique_topic, wait_until
from tests.metrics.scrape import scrape
from tests.security import round_trip
from tests.security.certificates import Certificates
from tests.security.sasl_helpers import PLAIN_JAAS, SCRAM_JAAS, authenticate, handshake, librdkafka_sasl
from tests.wire import WireClient

pytestmark = pytest.mark.broker
IDLE_MS = 1500  # connections.max.idle.ms: how soon a login that never finishes is closed
DELAY_MS = 300  # connection.failed.authentication.delay.ms
KAFKA_PYTHON = REPO / ".venv-kafka-python" / "bin" / "python"


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Certificates:
    return Certificates.create(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def sasl_broker(tmp_path_factory, certs):
    sasl_port, ssl_port = free_port(), free_port()
    broker = InProcessBroker(tmp_path_factory.mktemp("data"), {
        "listeners": f"PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:{sasl_port},"
                     f"SASL_SSL://127.0.0.1:{ssl_port}",
        "connections.max.idle.ms": str(IDLE_MS), "num.network.threads": "1",
        "connection.failed.authentication.delay.ms": str(DELAY_MS),
        "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.sasl_ssl.sasl.enabled.mechanisms": "SCRAM-SHA-512,PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
        "listener.name.sasl_ssl.plain.sasl.jaas.config": PLAIN_JAAS,
        "sasl.jaas.config": SCRAM_JAAS,  # SCRAM's users come from the metadata log, not from here
        **certs.broker_ssl_configs()})
    broker.sasl_port, broker.ssl_port = sasl_port, ssl_port
    try:
        for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
            done = kafka_configs(broker, "--alter", "--entity-type", "users", "--entity-name", "alice",
                                 "--add-config", f"{mechanism}=[iterations=8192,password=alice-secret]")
            assert done.returncode == 0, done.stderr
            assert done.stdout == "Completed updating config for user alice.\n", done.stderr
        wait_until(lambda: broker.server.credential_cache.get("SCRAM-SHA-256", "alice") is not None
                   and broker.server.credential_cache.get("SCRAM-SHA-512", "alice") is not None,
                   message="alice's SCRAM credentials in the broker's CredentialCache")
        yield broker
    finally:
        broker.stop()


def kafka_configs(broker, *args: str) -> subprocess.CompletedProcess:
    """The real tool in its own process (it configures logging for itself)."""
    return subprocess.run([sys.executable, "-m", "kafka.tools.config_command", "--bootstrap-server",
                           broker.bootstrap,
                           *args], cwd=REPO, capture_output=True, text=True, timeout=60)


@pytest.fixture
def log_events():
    events: list[dict] = []

    def record(logger, method_name: str, event_dict: dict) -> dict:
        events.append(dict(event_dict))
        return event_dict

    processors = structlog.get_config()["processors"]
    processors.insert(0, record)
    yield events
    processors.remove(record)


def logins(events: list[dict]) -> set[tuple[str, str, str]]:
    return {(e.get("listener"), e.get("mechanism"), e.get("principal")) for e in events
            if e["event"] == "SASL authentication done"}


def metric(broker, name: str, listener: str) -> float:
    return sum(value for (sample, labels), value in scrape(broker).samples.items()
               if sample == f"kafka_server_socket_server_metrics_{name}" and ("listener", listener) in labels)


def produce_and_consume(conf: dict, count: int = 200) -> list[bytes]:
    return round_trip.produce_and_consume(conf, count, value_size=1000, over="SASL")


# ------------------------------------------------------------------ real clients
def test_confluent_kafka_over_sasl_ssl_with_scram_sha_512(sasl_broker, certs, log_events):
    conf = librdkafka_sasl(sasl_broker.ssl_port, "SASL_SSL", "SCRAM-SHA-512", "alice", "alice-secret",
                           certs.ca_file)
    assert produce_and_consume(conf) == [b"v%04d" % i for i in range(200)]
    assert logins(log_events) == {("SASL_SSL", "SCRAM-SHA-512", "User:alice")}
    assert metric(sasl_broker, "successful_authentication_total", "SASL_SSL") >= 2


def test_confluent_kafka_over_sasl_plaintext_with_plain(sasl_broker, log_events):
    conf = librdkafka_sasl(sasl_broker.sasl_port, "SASL_PLAINTEXT", "PLAIN", "alice", "alice-secret")
    assert produce_and_consume(conf) == [b"v%04d" % i for i in range(200)]
    assert logins(log_events) == {("SASL_PLAINTEXT", "PLAIN", "User:alice")}


@pytest.mark.skipif(shutil.which("kcat") is None, reason="make test installs Debian's kcat")
@pytest.mark.parametrize("listener, mechanism", [("SASL_SSL", "SCRAM-SHA-512"), ("SASL_PLAINTEXT", "PLAIN")])
def test_kcat_produces_and_consumes(sasl_broker, certs, listener, mechanism):
    port = sasl_broker.ssl_port if listener == "SASL_SSL" else sasl_broker.sasl_port
    options = ["-X", f"security.protocol={listener}", "-X", f"sasl.mechanism={mechanism}",
               "-X", "sasl.username=alice", "-X", "sasl.password=alice-secret"]
    if listener == "SASL_SSL":
        options += ["-X", f"ssl.ca.location={certs.ca_file}"]
    topic = unique_topic("kcat-sasl")

    def kcat(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(["kcat", "-b", f"127.0.0.1:{port}", *options, *args], input=stdin,
                              capture_output=True, timeout=60)

    produced = kcat("-P", "-t", topic, "-K:", stdin=b"".join(b"k%d:v%d\n" % (i, i) for i in range(100)))
    assert produced.returncode == 0, produced.stderr
    consumed = kcat("-C", "-t", topic, "-e", "-o", "beginning", "-f", "%k=%s\n")
    assert consumed.returncode == 0, consumed.stderr
    assert consumed.stdout.decode().splitlines() == [f"k{i}=v{i}" for i in range(100)]
    wrong = kcat("-L", "-m", "5", "-X", "sasl.password=wrong")
    assert wrong.returncode != 0 and b"Authentication failed" in wrong.stderr


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256"])
def test_aiokafka_round_trips(sasl_broker, mechanism):
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

    topic = unique_topic("aiokafka-sasl")
    conf = dict(bootstrap_servers=f"127.0.0.1:{sasl_broker.sasl_port}", security_protocol="SASL_PLAINTEXT",
                sasl_mechanism=mechanism, sasl_plain_username="alice", sasl_plain_password="alice-secret")

    async def run() -> list[bytes]:
        producer = AIOKafkaProducer(**conf)
        await producer.start()
        try:
            for i in range(50):
                await producer.send_and_wait(topic, b"a%03d" % i)
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(topic, auto_offset_reset="earliest", **conf)
        await consumer.start()
        values = []
        try:
            deadline = time.monotonic() + 30
            while len(values) < 50 and time.monotonic() < deadline:
                for records in (await consumer.getmany(timeout_ms=500)).values():
                    values += [r.value for r in records]
        finally:
            await consumer.stop()
        return values

    assert asyncio.run(run()) == [b"a%03d" % i for i in range(50)]


KAFKA_PYTHON_SCRIPT = """
import json, sys
from kafka import KafkaConsumer, KafkaProducer
bootstrap, topic = sys.argv[1], sys.argv[2]
conf = dict(bootstrap_servers=bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism="SCRAM-SHA-512",
            sasl_plain_username="alice", sasl_plain_password="alice-secret")
producer = KafkaProducer(**conf)
for n in range(30):
    producer.send(topic, b"kp-%02d" % n)
producer.flush(30)
producer.close()
consumer = KafkaConsumer(topic, auto_offset_reset="earliest", consumer_timeout_ms=10000, **conf)
values = []
for message in consumer:
    values.append(message.value.decode())
    if len(values) == 30:
        break
consumer.close()
print(json.dumps(values))
"""


def test_kafka_python_with_scram(sasl_broker, tmp_path):
    assert KAFKA_PYTHON.exists(), f"{KAFKA_PYTHON} is missing: `make test` creates it"
    script = tmp_path / "kafka_python_scram.py"
    script.write_text(KAFKA_PYTHON_SCRIPT)
    run = subprocess.run([str(KAFKA_PYTHON), "-I", str(script), f"127.0.0.1:{sasl_broker.sasl_port}",
                          unique_topic("kafka-python-sasl")], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [f"kp-{n:02d}" for n in range(30)]


def test_our_admin_client_logs_in_with_scram_over_sasl_ssl(sasl_broker, certs, log_events):
    admin = AdminClient({"bootstrap.servers": f"127.0.0.1:{sasl_broker.ssl_port}",
                         "security.protocol": "SASL_SSL",
                         "ssl.truststore.type": "PEM", "ssl.truststore.location": certs.ca_file,
                         "sasl.mechanism": "SCRAM-SHA-512", "sasl.jaas.config":
                             'org.apache.kafka.common.security.scram.ScramLoginModule required '
                             'username="alice" '
                             'password="alice-secret";'})
    try:
        _, _, nodes = admin.describe_cluster()
        assert [n.port for n in nodes] == [sasl_broker.ssl_port]
        assert admin.describe_user_scram_credentials(["alice"]) == {"alice": {1: 8192, 2: 8192}}
    finally:
        admin.close()
    assert ("SASL_SSL", "SCRAM-SHA-512", "User:alice") in logins(log_events)


def test_kafka_configs_describes_and_deletes_a_credential(sasl_broker):
    bob = ["--entity-type", "users", "--entity-name", "bob"]
    assert kafka_configs(sasl_broker, *bob, "--alter", "--add-config",
                         "SCRAM-SHA-256=[password=bob-secret]").returncode == 0
    described = kafka_configs(sasl_broker, *bob, "--describe")
    assert ("SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-256=iterations=4096"
            in described.stdout)
    assert kafka_configs(sasl_broker, *bob, "--alter", "--delete-config", "SCRAM-SHA-256").returncode == 0
    wait_until(lambda: sasl_broker.server.credential_cache.get("SCRAM-SHA-256", "bob") is None,
               message="bob's credential gone from the cache")
    too_few = kafka_configs(sasl_broker, *bob, "--alter", "--add-config",
                            "SCRAM-SHA-256=[iterations=100,password=x]")
    assert too_few.returncode == 1 and "iterations 100 is outside 4096..16384" in too_few.stderr
    missing = kafka_configs(sasl_broker, *bob, "--alter", "--delete-config", "SCRAM-SHA-512")
    assert missing.returncode == 1 and "does not exist" in missing.stderr


# ------------------------------------------------------------------ bad input
def closed(client: WireClient) -> bool:
    return wait_until(client.is_closed_by_broker, timeout=10, message="the broker to close the connection")


def test_a_wrong_password_fails_after_the_delay_is_counted_and_logged_once(sasl_broker, log_events):
    failed = metric(sasl_broker, "failed_authentication_total", "SASL_PLAINTEXT")
    for _ in range(3):
        client = WireClient(sasl_broker.sasl_port)
        assert handshake(client, "PLAIN").error_code == Errors.NONE
        started = time.monotonic()
        # a user of its own: logged once per interval
        response = authenticate(client, b"\x00mallory\x00guess")
        assert time.monotonic() - started >= DELAY_MS / 1000 * 0.9
        assert (response.error_code, response.error_message) == (
            Errors.SASL_AUTHENTICATION_FAILED, "Authentication failed: Invalid username or password")
        assert closed(client)
        client.close()
    wait_until(lambda: metric(sasl_broker, "failed_authentication_total", "SASL_PLAINTEXT") == failed + 3,
               message="three failed logins counted")
    lines = [e for e in log_events if e["event"] == "Failed authentication"]
    assert len(lines) == 1 and lines[0]["principal"] == "User:mallory" and lines[0]["address"] == "127.0.0.1"


@pytest.mark.parametrize("mechanism", ["GSSAPI", "OAUTHBEARER", "NOPE", ""])
def test_an_unknown_or_disabled_mechanism_gets_the_enabled_list(sasl_broker, mechanism):
    client = WireClient(sasl_broker.sasl_port)
    response = handshake(client, mechanism)
    assert response.error_code == Errors.UNSUPPORTED_SASL_MECHANISM
    assert response.mechanisms == ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]
    assert closed(client)
    client.close()


def scram_first(client: WireClient, user: str = "alice"):
    scram = ScramSaslClient(ScramMechanism.SCRAM_SHA_256, user, "alice-secret")
    assert handshake(client, "SCRAM-SHA-256").error_code == Errors.NONE
    response = authenticate(client, scram.evaluate_challenge(b""))
    assert response.error_code == Errors.NONE, response.error_message
    return scram, bytes(response.auth_bytes)


@pytest.mark.parametrize("tamper, message", [
    (lambda final: final.replace(b",p=", b"x,p=", 1), "Invalid client nonce in the final client message."),
    (lambda final: final[:-8] + b"AAAAAAA=", "Invalid client credentials"),
    (lambda final: final[: len(final) // 2], "invalid SCRAM client-final message"),
    (lambda final: b"\xff\xfe garbage", "not UTF-8"),
])
def test_a_scram_exchange_with_a_wrong_nonce_proof_or_token_fails_cleanly(sasl_broker, tamper, message):
    client = WireClient(sasl_broker.sasl_port)
    scram, server_first = scram_first(client)
    response = authenticate(client, tamper(scram.evaluate_challenge(server_first)))
    assert response.error_code == Errors.SASL_AUTHENTICATION_FAILED and message in response.error_message
    assert closed(client)
    client.close()


@pytest.mark.parametrize("token, message", [
    (b"", "invalid SCRAM client-first message"),
    (b"n,,n=nobody,r=abc", "Invalid user credentials"),
    (b"\x00" * 100, "invalid SCRAM client-first message"),
])
def test_a_garbage_scram_client_first_fails_cleanly(sasl_broker, token, message):
    client = WireClient(sasl_broker.sasl_port)
    assert handshake(client, "SCRAM-SHA-256").error_code == Errors.NONE
    response = authenticate(client, token)
    assert response.error_code == Errors.SASL_AUTHENTICATION_FAILED and message in response.error_message
    assert closed(client)
    client.close()


def test_a_truncated_sasl_request_or_a_request_before_the_handshake_is_closed(sasl_broker):
    truncated = WireClient(sasl_broker.sasl_port)
    assert handshake(truncated, "PLAIN").error_code == Errors.NONE
    # header, no body
    truncated.send_frame(b"\x00\x00\x00\x0c\x00\x24\x00\x02\x00\x00\x00\x07\x00\x00\x00\x10")
    assert closed(truncated)
    early = WireClient(sasl_broker.sasl_port)
    early.send_frame(b"\x00\x00\x00\x0c\x00\x03\x00\x01\x00\x00\x00\x01\x00\x02ab")  # Metadata before login
    assert closed(early)
    garbage = WireClient(sasl_broker.sasl_port)
    garbage.send_frame(b"\x00\x00\x00\x03abc")
    assert closed(garbage)
    for client in (truncated, early, garbage):
        client.close()


def test_a_frame_over_sasl_server_max_receive_size_is_closed_before_login(sasl_broker):
    client = WireClient(sasl_broker.sasl_port)
    client.send_frame((600_000).to_bytes(4, "big") + b"\x00" * 100)
    assert closed(client)
    client.close()


def test_a_login_that_never_finishes_is_closed_after_the_idle_time(sasl_broker):
    client = WireClient(sasl_broker.sasl_port, timeout=IDLE_MS / 1000 * 5)
    assert handshake(client, "SCRAM-SHA-256").error_code == Errors.NONE  # then silence
    assert client.sock.recv(1) == b""
    client.close()


def test_api_versions_before_the_handshake_and_sasl_handshake_after_login(sasl_broker):
    client = WireClient(sasl_broker.sasl_port)
    versions = client.request(ApiKey.API_VERSIONS, 3,
                              {"client_software_name": "t", "client_software_version": "1"})
    assert ApiKey.SASL_AUTHENTICATE in {k.api_key for k in versions.api_keys}
    assert handshake(client, "PLAIN").error_code == Errors.NONE
    assert authenticate(client, b"\x00alice\x00alice-secret").error_code == Errors.NONE
    assert handshake(client, "PLAIN").error_code == Errors.ILLEGAL_SASL_STATE
    assert client.request(ApiKey.METADATA, 1, {"topics": []}).brokers
    client.close()
    plain = WireClient(sasl_broker.port)
    # no SASL on a PLAINTEXT listener
    assert handshake(plain, "PLAIN").error_code == Errors.ILLEGAL_SASL_STATE
    plain.close()


def test_sasl_handshake_v0_then_raw_tokens(sasl_broker):
    client = WireClient(sasl_broker.sasl_port)
    assert handshake(client, "PLAIN", version=0).error_code == Errors.NONE
    token = b"\x00alice\x00alice-secret"
    client.send_frame(len(token).to_bytes(4, "big") + token)
    assert client.read_frame() == b""  # PLAIN's empty answer, framed raw
    assert client.request(ApiKey.METADATA, 1, {"topics": []}).brokers
    client.close()


def test_our_client_refused_a_login_logs_it_and_fails_the_call(sasl_broker, log_events):
    admin = AdminClient({"bootstrap.servers": f"127.0.0.1:{sasl_broker.sasl_port}",
                         "security.protocol": "SASL_PLAINTEXT",
                         "sasl.mechanism": "SCRAM-SHA-256", "default.api.timeout.ms": 2000,
                         "request.timeout.ms": 2000,
                         "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule '
                                             'required username="alice" password="wrong";'})
    try:
        with pytest.raises(KafkaError):  # a timeout or a disconnect: the login never completes
            admin.describe_cluster()
    finally:
        admin.close()
    failures = [e for e in log_events if e["event"] == "SASL authentication with the broker failed"]
    assert failures and "SASL_AUTHENTICATION_FAILED: Authentication failed: Invalid client credentials" in \
        failures[0]["reason"]
    with pytest.raises(ConfigError, match="sasl.jaas.config"):
        AdminClient({"bootstrap.servers": "127.0.0.1:1", "security.protocol": "SASL_SSL",
                     "sasl.mechanism": "PLAIN"})
