"""ClientMetricsManager (KIP-714) on MockTime with a real ClientTelemetryExporter: subscriptions matched
and merged, Kafka's checks of a push in order, the bounded, expiring cache of client instances."""

from __future__ import annotations

import gzip
import uuid
from types import SimpleNamespace

import pytest
from opentelemetry.proto.metrics.v1 import metrics_pb2

from kafka.protocol.errors import Errors
from kafka.server import client_metrics_configs as configs
from kafka.server.client_metrics_configs import ClientMetricsConfigError
from kafka.server.client_metrics_manager import ZERO_UUID, ClientMetricsManager, RequestContext
from kafka.server.client_telemetry_exporter import ClientTelemetryExporter
from kafka.utils.time import MockTime
from kafka.utils.uuid import uuid_to_string

PRODUCER = RequestContext("c1", "producer-1", "apache-kafka-java", "4.4.0", "127.0.0.1", "50000")


def manager(time: MockTime, **kwargs) -> tuple[ClientMetricsManager, ClientTelemetryExporter]:
    exporter = ClientTelemetryExporter()
    return ClientMetricsManager(exporter, 1024, time, **kwargs), exporter


def metrics_data(value: float = 5.0) -> bytes:
    data = metrics_pb2.MetricsData()
    metric = data.resource_metrics.add().scope_metrics.add().metrics.add()
    metric.name = "org.apache.kafka.producer.record.send.total"
    metric.sum.aggregation_temporality = metrics_pb2.AGGREGATION_TEMPORALITY_DELTA
    point = metric.sum.data_points.add()
    point.as_double = value
    attribute = point.attributes.add()
    attribute.key, attribute.value.string_value = "node_id", "1"
    return data.SerializeToString()


def push(m: ClientMetricsManager, answer: dict, metrics: bytes = b"", compression: int = 0,
         terminating: bool = False, subscription_id: int | None = None, context=PRODUCER) -> Errors:
    body = SimpleNamespace(client_instance_id=answer["client_instance_id"],
                           subscription_id=subscription_id if subscription_id is not None
                           else answer["subscription_id"],
                           terminating=terminating, compression_type=compression, metrics=metrics)
    return m.process_push_telemetry_request(body, context)["error_code"]


def test_a_client_gets_the_matching_subscriptions_merged():
    time = MockTime()
    m, _ = manager(time)
    m.update_subscription("producers", {"metrics": "org.apache.kafka.producer.", "interval.ms": "5000",
                                        "match": "client_software_name=apache-kafka-java"})
    m.update_subscription("all", {"metrics": "org.apache.kafka.consumer.", "interval.ms": "2000"})
    m.update_subscription("python", {"metrics": "x", "interval.ms": "100", "match": "client_id=python.*"})
    answer = m.process_get_telemetry_subscription_request(ZERO_UUID, PRODUCER)
    assert answer["error_code"] == Errors.NONE and answer["client_instance_id"] != ZERO_UUID
    assert answer["requested_metrics"] == ["org.apache.kafka.consumer.", "org.apache.kafka.producer."]
    assert answer["push_interval_ms"] == 2000  # the shortest of the matching ones
    assert answer["accepted_compression_types"] == [4, 3, 1, 2] and answer["delta_temporality"]
    assert m.list_client_metrics_resources() == {"producers", "all", "python"}


def test_no_subscription_means_no_metrics_and_the_default_interval():
    m, _ = manager(MockTime())
    answer = m.process_get_telemetry_subscription_request(ZERO_UUID, PRODUCER)
    assert answer["requested_metrics"] == [] and answer["push_interval_ms"] == configs.INTERVAL_MS_DEFAULT


def test_a_subscription_to_everything_is_one_star():
    m, _ = manager(MockTime())
    m.update_subscription("a", {"metrics": "*"})
    m.update_subscription("b", {"metrics": "org.apache.kafka.producer."})
    assert m.process_get_telemetry_subscription_request(ZERO_UUID, PRODUCER)["requested_metrics"] == ["*"]


def test_pushes_are_checked_in_kafkas_order():
    time = MockTime()
    m, exporter = manager(time)
    m.update_subscription("s", {"metrics": "*", "interval.ms": "1000"})
    answer = m.process_get_telemetry_subscription_request(ZERO_UUID, PRODUCER)
    assert push(m, answer, gzip.compress(metrics_data()), compression=1) == Errors.NONE  # right after Get
    assert push(m, answer) == Errors.THROTTLING_QUOTA_EXCEEDED  # too early
    time.advance(1000)
    assert push(m, answer, subscription_id=answer["subscription_id"] + 1) == Errors.UNKNOWN_SUBSCRIPTION_ID
    assert m.stats.unknown_subscription_request_count == 1
    time.advance(1000)
    assert push(m, answer, compression=7) == Errors.UNSUPPORTED_COMPRESSION_TYPE
    time.advance(1000)
    assert push(m, answer, b"x" * 1025) == Errors.TELEMETRY_TOO_LARGE
    time.advance(1000)
    assert push(m, answer, b"not protobuf at all \xff", compression=1) == Errors.INVALID_RECORD
    stats = m.stats.instances[answer["client_instance_id"]]
    assert (stats.throttle_count, stats.plugin_export_count, stats.plugin_error_count) == (1, 1, 1)
    [sample] = exporter.samples()
    assert sample.name == "org_apache_kafka_producer_record_send_total" and sample.value == 5.0
    assert dict(sample.labels) == {"client_instance_id": uuid_to_string(answer["client_instance_id"]),
                                   "client_id": "producer-1", "node_id": "1"}


def test_deltas_add_up_and_a_terminating_push_is_the_last():
    time = MockTime()
    m, exporter = manager(time)
    m.update_subscription("s", {"metrics": "*", "interval.ms": "1000"})
    answer = m.process_get_telemetry_subscription_request(ZERO_UUID, PRODUCER)
    assert push(m, answer, metrics_data(5)) == Errors.NONE
    assert push(m, answer, metrics_data(3), terminating=True) == Errors.NONE  # early, but terminating
    assert [s.value for s in exporter.samples()] == [8.0]
    time.advance(5000)
    assert push(m, answer) == Errors.INVALID_REQUEST  # nothing after a terminating push


def test_a_changed_subscription_makes_the_old_id_unknown():
    time = MockTime()
    m, _ = manager(time)
    m.update_subscription("s", {"metrics": "a", "interval.ms": "1000"})
    answer = m.process_get_telemetry_subscription_request(ZERO_UUID, PRODUCER)
    m.update_subscription("s", {"metrics": "b", "interval.ms": "1000"})
    time.advance(1000)
    assert push(m, answer) == Errors.UNKNOWN_SUBSCRIPTION_ID
    time.advance(1000)  # Kafka throttles a Get right after any push, this one too
    again = m.process_get_telemetry_subscription_request(answer["client_instance_id"], PRODUCER)
    assert again["requested_metrics"] == ["b"] and again["subscription_id"] != answer["subscription_id"]
    m.update_subscription("s", {})
    assert m.list_client_metrics_resources() == set()


def test_a_get_before_the_interval_is_throttled():
    time = MockTime()
    m, _ = manager(time)
    m.update_subscription("s", {"metrics": "a", "interval.ms": "1000"})
    answer = m.process_get_telemetry_subscription_request(ZERO_UUID, PRODUCER)
    again = m.process_get_telemetry_subscription_request(answer["client_instance_id"], PRODUCER)
    assert again["error_code"] == Errors.THROTTLING_QUOTA_EXCEEDED
    assert again["client_instance_id"] == ZERO_UUID


def test_reserved_ids_cannot_push():
    m, _ = manager(MockTime())
    answer = dict(client_instance_id=uuid.UUID(int=0), subscription_id=0)
    assert push(m, answer) == Errors.INVALID_REQUEST
    assert push(m, dict(client_instance_id=uuid.UUID(int=1), subscription_id=0)) == Errors.INVALID_REQUEST


def test_instances_expire_and_their_series_go_with_them():
    time = MockTime()
    m, exporter = manager(time, cache_expiry_ms=60_000)
    m.update_subscription("s", {"metrics": "*", "interval.ms": "30000"})
    answer = m.process_get_telemetry_subscription_request(ZERO_UUID, PRODUCER)
    assert push(m, answer, metrics_data()) == Errors.NONE
    time.advance(89_999)  # three push intervals, the longer of that and a minute
    m.expire_instances()
    assert m.instance_count() == 1 and exporter.samples()
    time.advance(1)
    m.expire_instances()
    assert m.instance_count() == 0 and exporter.samples() == [] and m.stats.instances == {}


def test_the_cache_of_instances_is_bounded():
    m, exporter = manager(MockTime(), cache_max_size=3)
    m.update_subscription("s", {"metrics": "*"})
    answers = [m.process_get_telemetry_subscription_request(
        ZERO_UUID, RequestContext(f"c{i}", f"p{i}")) for i in range(5)]
    assert m.instance_count() == 3
    assert set(m.client_instance_cache) == {a["client_instance_id"] for a in answers[2:]}
    assert len(m.stats.instances) == 3


def test_a_closed_connection_forgets_its_instance():
    m, _ = manager(MockTime())
    m.process_get_telemetry_subscription_request(ZERO_UUID, PRODUCER)
    m.on_disconnect("c1")
    assert m.instance_count() == 0


@pytest.mark.parametrize("props, error, message", [
    ({"nope": "1"}, Errors.INVALID_REQUEST, "Unknown client metrics configuration: nope"),
    ({"interval.ms": "99"}, Errors.INVALID_REQUEST,
     "Invalid value 99 for interval.ms, interval must be between 100 and 3600000 (1 hour)"),
    ({"interval.ms": "soon"}, Errors.INVALID_CONFIG,
     "Invalid value soon for configuration interval.ms: Not a number of type INT"),
    ({"match": "client_colour=red"}, Errors.INVALID_CONFIG,
     "Illegal client matching pattern: client_colour=red"),
    ({"match": "client_id=("}, Errors.INVALID_CONFIG, "Illegal client matching pattern: client_id=("),
])
def test_bad_subscriptions_get_kafkas_error(props, error, message):
    with pytest.raises(ClientMetricsConfigError) as refused:
        configs.validate("s", props)
    assert (refused.value.error, str(refused.value)) == (error, message)
    with pytest.raises(ClientMetricsConfigError, match="Subscription name can't be empty"):
        configs.validate("", {})
