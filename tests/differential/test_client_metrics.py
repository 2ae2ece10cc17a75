"""Client metrics (KIP-714) asked of both brokers: subscriptions altered (APPEND and SUBTRACT too),
described and listed (IncrementalAlterConfigs, DescribeConfigs, ListConfigResources v0 and v1), Kafka's
refusals of bad subscriptions with their messages, and GetTelemetrySubscriptions and PushTelemetry's
answers, good and bad (a reserved or unknown client, a stale subscription id, a codec that does not exist,
a push too big, too early). Apache Kafka serves the telemetry APIs only with a receiver among its
metric.reporters: this module starts one, teaching.jvm.ClientTelemetryRecorder (tests/jvm/src/clients4)."""

from __future__ import annotations

import uuid

import pytest

from kafka.protocol.api_keys import ApiKey
from tests.differential.conftest import SHARED_SETTINGS
from tests.differential.oracle import Pair, Side
from tests.differential.test_configs import APPEND, DELETE, SET, SUBTRACT, alter, describe
from tests.helpers import unique_topic, wait_until
from tests.jvm.apache_kafka import ApacheKafka
from tests.jvm.jvm import compile_scenarios

CLIENT_METRICS = 16
ZERO = uuid.UUID(int=0)
CLIENT_IDS = ("client_instance_id", "subscription_id")  # random ids, each broker its own


@pytest.fixture(scope="module")
def pair(our_broker, tmp_path_factory):
    classes = compile_scenarios("clients-4", tmp_path_factory.mktemp("classes")).split(":")[0]
    kafka = ApacheKafka(tmp_path_factory.mktemp("apache-telemetry"), overrides={
        **SHARED_SETTINGS, "metric.reporters": "teaching.jvm.ClientTelemetryRecorder"})
    for node in kafka.nodes:
        node.classpath += f":{classes}"
    kafka.start()
    both = Pair(Side("ours", our_broker.port), Side("apache", kafka.nodes[0].port))
    yield both
    both.close()
    kafka.stop()


def subscribe(name: str, *ops) -> dict:
    return alter(name, *ops, resource_type=CLIENT_METRICS)


def listed(pair: Pair, name: str) -> None:
    def both_list_it() -> bool:
        answers = pair.ask(ApiKey.LIST_CONFIG_RESOURCES, 1, {"resource_types": [CLIENT_METRICS]})
        return all(name in {r.resource_name for r in a.config_resources} for a in answers)
    wait_until(both_list_it, timeout=15, message=f"both brokers to list {name}")


def same_configs(pair: Pair, name: str) -> bool:
    answers = pair.ask(ApiKey.DESCRIBE_CONFIGS, 4, describe(CLIENT_METRICS, name))
    return len({str(sorted((c.name, c.value) for c in a.results[0].configs)) for a in answers}) == 1


def test_subscriptions_altered_described_listed_and_deleted(pair):
    name = unique_topic("subscription")
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, subscribe(
        name, ("metrics", SET, "org.apache.kafka.producer., org.apache.kafka.consumer."),
        ("interval.ms", SET, "1000"), ("match", SET, "client_software_name=apache-kafka-java")))
    listed(pair, name)
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(CLIENT_METRICS, name))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(CLIENT_METRICS, name, ["interval.ms", "nope"]))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(CLIENT_METRICS, name, documentation=True))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 1, describe(CLIENT_METRICS, name))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(CLIENT_METRICS, "never-made"))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(CLIENT_METRICS, ""))
    for version, body in ((0, {}), (1, {"resource_types": [CLIENT_METRICS]})):
        answers = pair.ask(ApiKey.LIST_CONFIG_RESOURCES, version, body)
        ours, theirs = ((a.error_code, [r.resource_name for r in a.config_resources
                                        if r.resource_name == name])
                        for a in answers)
        assert ours == theirs
    pair.same(ApiKey.LIST_CONFIG_RESOURCES, 1, {"resource_types": [99]})  # UNSUPPORTED_VERSION
    for op, key, value in ((APPEND, "metrics", "org.apache.kafka.admin."),
                           (SUBTRACT, "metrics", "org.apache.kafka.consumer."), (APPEND, "interval.ms", "5")):
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, subscribe(name, (key, op, value)))
        wait_until(lambda: same_configs(pair, name), timeout=15, message="both to show the same subscription")
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, subscribe(
        name, ("metrics", DELETE, None), ("interval.ms", DELETE, None), ("match", DELETE, None)))


@pytest.mark.parametrize("ops", [
    (("nope", SET, "1"),),
    (("interval.ms", SET, "99"),),
    (("interval.ms", SET, "3600001"),),
    (("interval.ms", SET, "soon"),),
    (("match", SET, "client_colour=red"),),
    (("match", SET, "client_id=("),),
    (("match", SET, "client_id"),),
], ids=["unknown-key", "interval-low", "interval-high", "interval-not-int", "match-name", "match-regex",
        "match-no-value"])
def test_bad_subscriptions_are_refused_alike(pair, ops):
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, subscribe(unique_topic("bad"), *ops))


def test_an_empty_subscription_name_is_refused_alike(pair):
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, subscribe("", ("interval.ms", SET, "1000")))


def test_get_telemetry_subscriptions_and_pushes(pair):
    first = {}

    def get(side: Side) -> dict:
        return {"client_instance_id": first[side.name].client_instance_id if side.name in first else ZERO}

    ours, theirs = pair.ask(ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, 0, get)
    first.update(ours=ours, apache=theirs)
    pair.same(ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, 0, {"client_instance_id": ZERO}, volatile=CLIENT_IDS)
    pair.same(ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, 0, get)  # again at once: throttled

    def push(compression: int = 0, metrics: bytes = b"", terminating: bool = False, stale: bool = False):
        def body(side: Side) -> dict:
            answer = first[side.name]
            return {"client_instance_id": answer.client_instance_id,
                    "subscription_id": answer.subscription_id + (1 if stale else 0),
                    "terminating": terminating, "compression_type": compression, "metrics": metrics}
        return body

    pair.same(ApiKey.PUSH_TELEMETRY, 0, push(compression=9))  # first push after the Get: UNSUPPORTED_...
    pair.same(ApiKey.PUSH_TELEMETRY, 0, push())  # too early: THROTTLING_QUOTA_EXCEEDED
    pair.same(ApiKey.PUSH_TELEMETRY, 0, push(stale=True, terminating=True))  # UNKNOWN_SUBSCRIPTION_ID
    pair.same(ApiKey.PUSH_TELEMETRY, 0, push())  # after a terminating push: INVALID_REQUEST
    for client in (ZERO, uuid.UUID(int=1)):  # reserved ids
        pair.same(ApiKey.PUSH_TELEMETRY, 0, {"client_instance_id": client, "subscription_id": 0,
                                             "terminating": False, "compression_type": 0, "metrics": b""})
    stranger = uuid.uuid4()  # never asked: a new instance, whose subscription id this is not
    pair.same(ApiKey.PUSH_TELEMETRY, 0, {"client_instance_id": stranger, "subscription_id": 7,
                                         "terminating": False, "compression_type": 0, "metrics": b""})


def test_a_push_larger_than_telemetry_max_bytes(pair):
    answers = dict(zip(("ours", "apache"), pair.ask(ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, 0,
                                                    {"client_instance_id": ZERO}), strict=True))
    pair.same(ApiKey.PUSH_TELEMETRY, 0, lambda side: {
        "client_instance_id": answers[side.name].client_instance_id,
        "subscription_id": answers[side.name].subscription_id, "terminating": False, "compression_type": 0,
        "metrics": b"\0" * (answers[side.name].telemetry_max_bytes + 1)})
