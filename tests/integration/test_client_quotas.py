"""Client quotas against a real broker: set through AlterClientQuotas (and kafka-configs), described
back, and enforced on a raw socket and on a real producer (confluent-kafka's throttle_cb), as
Kafka's ClientQuotasRequestTest and QuotaTest do. Timing is checked loosely: only that a throttled
connection waits, and that a producer trying far more than its quota is held near it."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from confluent_kafka import Producer

from kafka.clients.admin import AdminClient
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from tests.helpers import REPO, wait_until
from tests.integration.test_long_poll import create, fetch_body, produce
from tests.metrics.scrape import scrape
from tests.wire import WireClient

WIRE_CLIENT_ID = "wire-test"  # the client id tests.wire.WireClient sends
API_VERSIONS_BODY = {"client_software_name": "t", "client_software_version": "1"}


def set_quota(broker, entity: dict, **quotas) -> None:
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        assert admin.alter_client_quotas([(entity, quotas)]) == [None]
        want = {k: float(v) for k, v in quotas.items() if v is not None}
        components = [(t, 0 if n is not None else 1, n) for t, n in entity.items()]
        wait_until(lambda: next(iter(admin.describe_client_quotas(components, strict=True).values()),
                                {}) == want,
                   message=f"DescribeClientQuotas to show {want}")
    # the broker's own managers follow the same committed image
    wait_until(lambda: broker.server.client_quota_metadata_manager.image.describe(components, True),
               message="the quota to reach the broker's managers")


def test_alter_and_describe_client_quotas_over_the_wire(broker):
    client = WireClient(broker.port)
    response = client.request(ApiKey.ALTER_CLIENT_QUOTAS, 1, {"entries": [
        {"entity": [{"entity_type": "client-id", "entity_name": "app"}],
         "ops": [{"key": "producer_byte_rate", "value": 1048576.0, "remove": False}]},
        {"entity": [{"entity_type": "client-id", "entity_name": "app"},
                    {"entity_type": "user", "entity_name": None}],
         "ops": [{"key": "no_such_quota", "value": 1.0, "remove": False}]}], "validate_only": False})
    assert [e.error_code for e in response.entries] == [Errors.NONE, Errors.INVALID_REQUEST]
    assert "no_such_quota" in response.entries[1].error_message

    def described():
        return client.request(ApiKey.DESCRIBE_CLIENT_QUOTAS, 1, {"components": [
            {"entity_type": "client-id", "match_type": 0, "match": "app"}], "strict": True})

    wait_until(lambda: described().entries, message="the quota described")
    [entry] = described().entries
    assert [(e.entity_type, e.entity_name) for e in entry.entity] == [("client-id", "app")]
    assert [(v.key, v.value) for v in entry.values] == [("producer_byte_rate", 1048576.0)]
    bad = client.request(ApiKey.DESCRIBE_CLIENT_QUOTAS, 0, {"components": [
        {"entity_type": "user", "match_type": 0, "match": None}], "strict": False})
    assert bad.error_code == Errors.INVALID_REQUEST and bad.entries is None


def test_a_producer_over_its_quota_is_told_to_wait_and_its_connection_is_muted(broker):
    client = WireClient(broker.port, timeout=30)
    create(client, "q")
    # 10 KB/s over a 10 s window: the ninth 12 KB request takes the rate past it (~1-2 s of throttle)
    set_quota(broker, {"client-id": WIRE_CLIENT_ID}, producer_byte_rate=10_000)
    batch = build_batch([(None, b"x" * 12_000)])
    throttles = []
    for _ in range(10):
        response = client.request(ApiKey.PRODUCE, 9, {"acks": -1, "timeout_ms": 5000, "topic_data": [
            {"name": "q", "partition_data": [{"index": 0, "records": batch}]}]})
        assert response.responses[0].partition_responses[0].error_code == Errors.NONE
        throttles.append(response.throttle_time_ms)
        if response.throttle_time_ms:
            break
    throttle_ms = throttles[-1]
    assert throttle_ms > 0, throttles
    # KIP-219: the response came at once; the connection now stays muted for throttle_ms, so the
    # next request (however cheap) is answered only after most of it has passed.
    started = time.monotonic()
    other = WireClient(broker.port)  # muting is per connection: another one is answered meanwhile
    other.request(ApiKey.API_VERSIONS, 3, API_VERSIONS_BODY)
    assert time.monotonic() - started < throttle_ms / 1000 * 0.8
    client.request(ApiKey.API_VERSIONS, 3, API_VERSIONS_BODY)
    assert time.monotonic() - started >= throttle_ms / 1000 * 0.8
    samples = scrape(broker)
    assert samples.value("kafka_server_produce_throttle_time", user="", client_id=WIRE_CLIENT_ID) > 0
    assert samples.value("kafka_server_produce_byte_rate", user="", client_id=WIRE_CLIENT_ID) > 0


def test_a_fetch_over_its_quota_is_answered_empty_with_a_throttle_time(broker):
    client = WireClient(broker.port, timeout=30)
    create(client, "f")
    for _ in range(3):
        produce(client, "f", b"y" * 30_000)
    set_quota(broker, {"client-id": WIRE_CLIENT_ID}, consumer_byte_rate=1_000)
    # the quota also caps one response at its windows' worth: 10 x 1,000 bytes
    response = client.request(ApiKey.FETCH, 12, fetch_body("f", 0, 0))
    assert response.throttle_time_ms > 0
    assert response.responses == []  # answered empty: the records were not sent
    assert scrape(broker).value("kafka_server_fetch_throttle_time", user="", client_id=WIRE_CLIENT_ID) > 0


def test_request_percentage_throttles_any_request_by_at_most_one_window(broker):
    client = WireClient(broker.port, timeout=30)
    set_quota(broker, {"user": None}, request_percentage=0.001)  # the default user: ANONYMOUS, everyone
    throttle = 0
    for _ in range(200):
        metadata = client.request(ApiKey.METADATA, 12, {"topics": [], "allow_auto_topic_creation": False,
                                                        "include_topic_authorized_operations": False})
        throttle = metadata.throttle_time_ms
        if throttle:
            break
    assert 0 < throttle <= 1000  # quota.window.size.seconds bounds a request quota's throttle
    assert scrape(broker).value("kafka_server_request_throttle_time", user="ANONYMOUS", client_id="") > 0


def kafka_configs_output(broker, *args: str) -> str:
    """`kafka-configs --bootstrap-server <broker> ARGS`, as a user runs it; its stdout."""
    result = subprocess.run([sys.executable, "-m", "kafka.tools.config_command", "--bootstrap-server",
                             broker.bootstrap, *args], capture_output=True, text=True, timeout=60, cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_kafka_configs_sets_and_describes_a_quota_as_kafka_prints_it(broker):
    def kafka_configs(*args: str) -> str:
        return kafka_configs_output(broker, *args)

    assert kafka_configs("--alter", "--entity-type", "clients", "--entity-name", "noisy",
                         "--add-config",
                         "producer_byte_rate=1048576") == "Completed updating config for client noisy.\n"
    assert kafka_configs("--alter", "--entity-type", "users", "--entity-default",
                         "--add-config", "consumer_byte_rate=10485760") == (
        "Completed updating default config for users in the cluster.\n")
    wait_until(lambda: kafka_configs("--describe", "--entity-type", "clients", "--entity-name", "noisy"),
               message="the quota described")
    assert kafka_configs("--describe", "--entity-type", "clients", "--entity-name", "noisy") == (
        "Quota configs for client-id 'noisy' are producer_byte_rate=1048576.0\n")
    assert kafka_configs("--describe", "--entity-type", "users") == (
        "Quota configs for the default user-principal are consumer_byte_rate=1.048576E7\n")
    assert kafka_configs("--alter", "--entity-type", "clients", "--entity-name", "noisy",
                         "--delete-config",
                         "producer_byte_rate") == "Completed updating config for client noisy.\n"
    wait_until(lambda: not kafka_configs("--describe", "--entity-type", "clients"),
               message="the quota removed")


def test_a_real_producer_trying_far_more_than_its_quota_is_held_near_it(broker):
    quota = 100_000  # bytes per second
    set_quota(broker, {"client-id": "noisy"}, producer_byte_rate=quota)
    throttle_events = []
    delivered = []
    producer = Producer({"bootstrap.servers": broker.bootstrap, "client.id": "noisy", "linger.ms": 5,
                         "batch.size": 64 * 1024, "throttle_cb": lambda event: throttle_events.append(event)})
    value = b"z" * 1000
    started = time.monotonic()
    while time.monotonic() - started < 6:  # as fast as it can: unthrottled, tens of MB
        try:
            producer.produce("held", value, on_delivery=lambda err, msg: delivered.append(err is None))
        except BufferError:
            producer.poll(0.05)
        producer.poll(0)
    elapsed = time.monotonic() - started
    producer.purge()
    producer.flush(30)
    sent = sum(delivered) * len(value)
    assert any(event.throttle_time > 0 for event in throttle_events)
    # Held: at most the quota over the elapsed time plus the 10 s the first window allows, plus one batch.
    assert sent <= quota * (elapsed + 10) + 64 * 1024, (sent, elapsed)
    assert sent >= quota  # and not starved
