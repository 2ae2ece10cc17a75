"""Acceptance (issue 29, TLS): real clients over SSL listeners, and what bad TLS input meets.

One broker for the module with three listeners: PLAINTEXT, SSL (a client certificate requested)
and MTLS (SSL with ssl.client.auth=required and its own principal mapping rules, set through
listener.name.mtls.ssl.*). Certificates are made for the session by tests/security/certificates.py.
"""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import sys

import pytest
import structlog

from kafka.clients.admin import AdminClient
from kafka.clients.errors import KafkaError
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.header import decode_response, encode_request
from tests.helpers import REPO, InProcessBroker, free_port, unique_topic, wait_until
from tests.metrics.scrape import scrape
from tests.security import round_trip
from tests.security.certificates import Certificates
from tests.server.test_startup_errors import start_broker, the_error
from tests.wire import WireClient

pytestmark = pytest.mark.broker
IDLE_MS = 1500  # connections.max.idle.ms: how soon a stalled handshake is closed


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Certificates:
    return Certificates.create(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def tls_broker(tmp_path_factory, certs):
    ssl_port, mtls_port = free_port(), free_port()
    broker = InProcessBroker(tmp_path_factory.mktemp("data"), {
        "listeners": f"PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:{ssl_port},MTLS://127.0.0.1:{mtls_port}",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,CONTROLLER:PLAINTEXT",
        "connections.max.idle.ms": str(IDLE_MS), "num.network.threads": "1",
        **certs.broker_ssl_configs("requested"),
        "listener.name.mtls.ssl.client.auth": "required",
        "listener.name.mtls.ssl.principal.mapping.rules": "RULE:^CN=(.*?),OU=(.*?),.*$/$1@$2/L,DEFAULT"})
    broker.ssl_port, broker.mtls_port = ssl_port, mtls_port
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def log_events():
    """The broker's log events of this test, as dicts (recorded before rendering, whatever the level)."""
    events: list[dict] = []

    def record(logger, method_name: str, event_dict: dict) -> dict:
        events.append(dict(event_dict))
        return event_dict

    processors = structlog.get_config()["processors"]
    processors.insert(0, record)  # the list the cached loggers share, as tests/conftest.py's quiet_logs does
    yield events
    processors.remove(record)


def handshakes(events: list[dict]) -> list[tuple[str, str]]:
    return [(e.get("listener"), e.get("principal")) for e in events if e["event"] == "TLS handshake done"]


def closes(events: list[dict], text: str) -> int:
    return sum(1 for e in events if e["event"] == "closing connection" and text in str(e.get("reason")))


def librdkafka_ssl(port: int, certs: Certificates, client: str | None = None) -> dict:
    conf = {"bootstrap.servers": f"127.0.0.1:{port}", "security.protocol": "SSL",
            "ssl.ca.location": certs.ca_file}
    if client:
        cert, key = certs.client(client)
        conf.update({"ssl.certificate.location": cert, "ssl.key.location": key})
    return conf


def produce_and_consume(conf: dict, count: int = 500) -> list[bytes]:
    # ~1 MB: the fetch crosses TLS in chunks
    return round_trip.produce_and_consume(conf, count, value_size=2000, over="TLS")


def metric(broker, name: str, listener: str) -> float:
    return sum(value for (sample, labels), value in scrape(broker).samples.items()
               if sample == f"kafka_server_socket_server_metrics_{name}" and ("listener", listener) in labels)


def tls_client_context(certs: Certificates, client: tuple[str, str] | None = None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=certs.ca_file)
    if client:
        context.load_cert_chain(*client)
    return context


def closed_by_broker(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, ssl.SSLError):
        return True
    except (BlockingIOError, TimeoutError, ssl.SSLWantReadError):
        return False


# ------------------------------------------------------------------ real clients
def test_confluent_kafka_over_ssl_without_a_client_certificate(tls_broker, certs, log_events):
    values = produce_and_consume(librdkafka_ssl(tls_broker.ssl_port, certs))
    assert values == [b"v%04d" % i for i in range(500)]
    assert ("SSL", "User:ANONYMOUS") in handshakes(log_events)
    assert metric(tls_broker, "successful_authentication_total", "SSL") >= 2


def test_confluent_kafka_over_mtls_gets_the_mapped_principal(tls_broker, certs, log_events):
    values = produce_and_consume(librdkafka_ssl(tls_broker.mtls_port, certs, client="Alice"))
    assert values == [b"v%04d" % i for i in range(500)]
    assert set(handshakes(log_events)) == {("MTLS", "User:alice@eng")}  # RULE:...$1@$2/L


def test_a_requested_certificate_gives_the_whole_subject_by_default(tls_broker, certs, log_events):
    produce_and_consume(librdkafka_ssl(tls_broker.ssl_port, certs, client="bob"), count=10)
    assert set(handshakes(log_events)) == {("SSL", "User:CN=bob,OU=eng,O=Example,C=US")}


@pytest.mark.skipif(shutil.which("kcat") is None, reason="make test installs Debian's kcat")
def test_kcat_lists_produces_and_consumes_over_mtls(tls_broker, certs):
    cert, key = certs.client("carol")
    tls = ["-X", "security.protocol=SSL", "-X", f"ssl.ca.location={certs.ca_file}",
           "-X", f"ssl.certificate.location={cert}", "-X", f"ssl.key.location={key}"]
    bootstrap = f"127.0.0.1:{tls_broker.mtls_port}"
    topic = unique_topic("kcat-tls")

    def kcat(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(["kcat", "-b", bootstrap, *tls, *args], input=stdin, capture_output=True,
                              timeout=60)

    produced = kcat("-P", "-t", topic, "-K:", stdin=b"".join(b"k%d:v%d\n" % (i, i) for i in range(100)))
    assert produced.returncode == 0, produced.stderr
    listing = kcat("-L")
    assert f"127.0.0.1:{tls_broker.mtls_port}".encode() in listing.stdout, listing.stderr
    consumed = kcat("-C", "-t", topic, "-e", "-o", "beginning", "-f", "%k=%s\n")
    assert consumed.returncode == 0, consumed.stderr
    assert consumed.stdout.decode().splitlines() == [f"k{i}=v{i}" for i in range(100)]


def test_our_own_admin_client_speaks_ssl(tls_broker, certs):
    admin = AdminClient({"bootstrap.servers": f"127.0.0.1:{tls_broker.ssl_port}", "security.protocol": "SSL",
                         "ssl.truststore.type": "PEM", "ssl.truststore.location": certs.ca_file})
    try:
        _, _, nodes = admin.describe_cluster()
        assert [n.port for n in nodes] == [tls_broker.ssl_port]
    finally:
        admin.close()


def test_requests_pipelined_in_one_tls_record_are_all_answered(tls_broker, certs):
    """Three requests in one TLS record: OpenSSL decrypts them together, and the selector never sees
    the second and third; the Processor must read them from its buffered channels."""
    client = WireClient(tls_broker.ssl_port, timeout=5)
    client.sock = tls_client_context(certs).wrap_socket(client.sock, server_hostname="127.0.0.1")
    api = APIS[ApiKey.API_VERSIONS]
    body = {"client_software_name": "t", "client_software_version": "1"}
    client.send_frame(b"".join(encode_request(api, 3, cid, "pipelined", body) for cid in (1, 2, 3)))
    answered = [decode_response(api, 3, client.read_frame())[0] for _ in range(3)]  # a 5 s timeout each
    assert answered == [1, 2, 3]
    client.close()


def test_kafka_topics_over_mtls_with_a_command_config(tls_broker, certs, tmp_path):
    cert, key = certs.client("tools")
    config = tmp_path / "client-ssl.properties"
    config.write_text("security.protocol=SSL\nssl.truststore.type=PEM\n"
                      f"ssl.truststore.location={certs.ca_file}\nssl.keystore.type=PEM\n"
                      f"ssl.keystore.location={tmp_path / 'tools.pem'}\n")
    (tmp_path / "tools.pem").write_text(open(cert).read() + open(key).read())
    topic = unique_topic("tool-tls")
    for args in (["--create", "--topic", topic], ["--list"]):
        result = subprocess.run([sys.executable, "-m", "kafka.tools.topics", "--bootstrap-server",
                                 f"127.0.0.1:{tls_broker.mtls_port}", "--command-config", str(config), *args],
                                capture_output=True, text=True, timeout=60, cwd=REPO)
        assert result.returncode == 0, result.stderr
    assert topic in result.stdout.split()


def test_our_client_refuses_a_broker_its_truststore_does_not_vouch_for(tls_broker, certs, log_events):
    admin = AdminClient({"bootstrap.servers": f"127.0.0.1:{tls_broker.ssl_port}", "security.protocol": "SSL",
                         "ssl.truststore.type": "PEM", "ssl.truststore.location": certs.other_ca_file,
                         "request.timeout.ms": 2000, "default.api.timeout.ms": 3000})
    try:
        with pytest.raises(KafkaError):  # a timeout: no broker it trusts answers
            admin.describe_cluster()
    finally:
        admin.close()
    assert any(e["event"] == "TLS handshake with the broker failed"
               and "CERTIFICATE_VERIFY_FAILED" in e["error"]
               for e in log_events)


# ------------------------------------------------------------------ bad input
def test_a_tls_client_on_the_plaintext_port_is_closed_and_logged_once(tls_broker, certs, log_events):
    for _ in range(3):
        with socket.create_connection(("127.0.0.1", tls_broker.port), timeout=10) as raw:
            with pytest.raises((ssl.SSLError, ConnectionError, OSError)):
                tls_client_context(certs).wrap_socket(raw, server_hostname="127.0.0.1")
    assert closes(log_events, "the client speaks TLS to a PLAINTEXT listener") == 1
    assert_still_served(tls_broker, certs)


def test_a_plaintext_client_on_the_ssl_port_fails_its_handshake(tls_broker, certs, log_events):
    failed = metric(tls_broker, "failed_authentication_total", "SSL")
    for _ in range(3):
        with socket.create_connection(("127.0.0.1", tls_broker.ssl_port), timeout=10) as raw:
            raw.sendall(b"\x00\x00\x00\x15\x00\x12\x00\x03\x00\x00\x00\x01\x00\x05kcat!" + b"\x00" * 4)
            wait_until(lambda: closed_by_broker(raw), timeout=10,
                       message="the broker to close the connection")
    wait_until(lambda: metric(tls_broker, "failed_authentication_total", "SSL") == failed + 3, timeout=10,
               message="three failed handshakes counted")
    # one line at most for the three (none if an earlier test's failure on this listener was logged
    # within the interval): the rest are counted, not logged
    assert closes(log_events, "TLS handshake failed") <= 1
    assert_still_served(tls_broker, certs)


def test_a_handshake_that_never_finishes_is_closed_after_the_idle_time(tls_broker, certs):
    with socket.create_connection(("127.0.0.1", tls_broker.ssl_port), timeout=10) as raw:
        raw.sendall(b"\x16\x03\x01\x00\x10")  # the start of a ClientHello, then silence
        raw.settimeout(IDLE_MS / 1000 * 5)
        assert raw.recv(1) == b""  # the broker closed it: connections.max.idle.ms
    assert_still_served(tls_broker, certs)


@pytest.mark.parametrize("kind", ["expired", "untrusted", "none"])
def test_mtls_refuses_a_bad_or_missing_client_certificate(tls_broker, certs, kind):
    failed = metric(tls_broker, "failed_authentication_total", "MTLS")
    client = None if kind == "none" else certs.client("mallory", **{kind: True})
    with socket.create_connection(("127.0.0.1", tls_broker.mtls_port), timeout=10) as raw:
        tls = tls_client_context(certs, client).wrap_socket(raw, server_hostname="127.0.0.1")
        # TLS 1.3: the client's side is done before the broker checks the certificate; the refusal
        # arrives as an alert on the first read
        with pytest.raises((ssl.SSLError, ConnectionError)):
            tls.sendall(b"\x00\x00\x00\x00")
            tls.recv(1)
    wait_until(lambda: metric(tls_broker, "failed_authentication_total", "MTLS") == failed + 1, timeout=10,
               message="the failed handshake counted")
    assert_still_served(tls_broker, certs)


def assert_still_served(broker, certs) -> None:
    """Nothing else is disturbed: a good TLS client is served at once."""
    admin = AdminClient({"bootstrap.servers": f"127.0.0.1:{broker.ssl_port}", "security.protocol": "SSL",
                         "ssl.truststore.type": "PEM", "ssl.truststore.location": certs.ca_file})
    try:
        assert admin.describe_cluster()[2]
    finally:
        admin.close()


# ------------------------------------------------------------------ start-up refuses what it cannot serve
@pytest.mark.parametrize("overrides, key", [
    ({"listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0"}, "ssl.keystore.location"),  # no keystore
    ({"listener.security.protocol.map": "PLAINTEXT:TLS,CONTROLLER:PLAINTEXT"},
     "listener.security.protocol.map"),
    # GSSAPI, the default, is not built
    ({"listeners": "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0"}, "sasl.enabled.mechanisms"),
])
def test_the_broker_does_not_start_with_a_listener_it_cannot_serve(tmp_path, overrides, key):
    error = the_error(start_broker(tmp_path, **overrides))
    assert f"'{key}'" in error
