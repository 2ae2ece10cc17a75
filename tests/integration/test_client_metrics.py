"""Client metrics (KIP-714) on a broker over loopback, with real clients: a subscription made through
IncrementalAlterConfigs makes confluent-kafka (librdkafka) push its producer metrics, they show on
/metrics labelled by client instance id and client id, subscriptions describe and list as Kafka's do,
a client that matches nothing pushes nothing, a push the broker cannot decode is refused, and
kafka-client-metrics prints what Kafka's tool prints, a refusal too."""

from __future__ import annotations

import uuid

from confluent_kafka import Producer

from kafka.clients.admin import DELETE, SET, AdminClient
from kafka.clients.admin.list_config_resources import list_config_resources
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.tools import client_metrics_command
from tests.helpers import unique_topic, wait_until
from tests.metrics.scrape import scrape
from tests.wire import WireClient

CLIENT_METRICS = 16


def subscribe(broker, name: str, **configs: str) -> None:
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        admin.incremental_alter_configs(CLIENT_METRICS, name, [(k.replace("_", "."), SET, v)
                                                               for k, v in configs.items()])


def pushed_series(broker, client_id: str) -> dict:
    return {(name, labels): value for (name, labels), value in scrape(broker).samples.items()
            if name.startswith("org_apache_kafka_") and ("client_id", client_id) in labels}


def test_librdkafka_pushes_its_producer_metrics_onto_metrics(broker):
    subscribe(broker, "librdkafka-producers", metrics="org.apache.kafka.producer.", interval_ms="1000",
              match="client_id=rdkafka-.*")
    producer = Producer({"bootstrap.servers": broker.bootstrap, "client.id": "rdkafka-producer"})
    topic = unique_topic("telemetry")
    try:
        def pushed() -> bool:
            producer.produce(topic, b"v")
            producer.poll(0.05)
            return bool(pushed_series(broker, "rdkafka-producer"))
        wait_until(pushed, timeout=30, message="librdkafka's pushed metrics on /metrics")
    finally:
        producer.flush(10)
    series = pushed_series(broker, "rdkafka-producer")
    assert all(name.startswith("org_apache_kafka_producer_") for name, _ in series)
    instance_ids = {dict(labels)["client_instance_id"] for _, labels in series}
    assert len(instance_ids) == 1
    [instance] = instance_ids
    assert scrape(broker).value("kafka_server_client_metrics_plugin_export_count",
                                client_instance_id=instance) >= 1


def test_subscriptions_describe_list_and_delete(broker):
    subscribe(broker, "described", metrics="a.b., c.", interval_ms="5000")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        entries = admin.describe_configs(CLIENT_METRICS, "described")
        assert {k: (e.value, e.source) for k, e in entries.items()} == {
            "metrics": ("a.b.,c.", 7), "interval.ms": ("5000", 7), "match": ("", 5)}
        assert (CLIENT_METRICS, "described") in list_config_resources(admin, [CLIENT_METRICS])
        admin.incremental_alter_configs(CLIENT_METRICS, "described",
                                        [("metrics", DELETE, None), ("interval.ms", DELETE, None)])
        assert (CLIENT_METRICS, "described") not in list_config_resources(admin, [CLIENT_METRICS])


def test_a_client_matching_no_subscription_is_told_to_push_nothing(broker):
    subscribe(broker, "only-java", metrics="*", match="client_software_name=apache-kafka-java")
    client = WireClient(broker.port)
    answer = client.request(ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, 0, {"client_instance_id": uuid.UUID(int=0)})
    assert answer.error_code == Errors.NONE and answer.requested_metrics == []
    assert answer.push_interval_ms == 300_000


def test_a_push_that_is_not_otlp_is_invalid_record(broker):
    subscribe(broker, "everything-from-wire", metrics="*", match="client_id=wire-.*")
    client = WireClient(broker.port)
    answer = client.request(ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, 0, {"client_instance_id": uuid.UUID(int=0)})
    push = client.request(ApiKey.PUSH_TELEMETRY, 0, {
        "client_instance_id": answer.client_instance_id, "subscription_id": answer.subscription_id,
        "terminating": False, "compression_type": 4, "metrics": b"\x28\xb5\x2f\xfd not zstd at all"})
    assert push.error_code == Errors.INVALID_RECORD


def test_kafka_client_metrics_round_trip_and_a_refusal_as_kafkas_tool_prints_them(broker, capsys):
    def tool(*args: str) -> tuple[int, str]:
        status = client_metrics_command.main(["--bootstrap-server", broker.bootstrap, *args])
        return status, capsys.readouterr().out

    assert tool("--alter", "--name", "tool-made", "--metrics", "org.apache.kafka.producer.", "--interval",
                "2000") == (0, "Altered client metrics config for tool-made.\n")
    assert tool("--describe", "--name", "tool-made") == (0, "Client metrics configs for tool-made are:\n"
                                                            "  interval.ms=2000\n  match=\n"
                                                            "  metrics=org.apache.kafka.producer.\n")
    assert tool("--alter", "--name", "tool-made", "--interval", "5") == (
        1, "Error while executing client metrics command : Invalid value 5 for interval.ms, interval must be "
           "between 100 and 3600000 (1 hour)\n")
    assert tool("--delete", "--name", "tool-made") == (0, "Deleted client metrics config for tool-made.\n")
    assert tool("--describe", "--name", "tool-made") == (
        0, "The client metric resource tool-made doesn't exist and doesn't have dynamic config.\n")
