"""ClientTelemetryExporter: pushed client metrics, decoded, kept for this broker's /metrics (the role of a
Kafka ClientTelemetryExporter plugin, which Kafka's ClientTelemetryExporterPlugin hands each push).

A PushTelemetry's metrics are an OpenTelemetry ``MetricsData`` protobuf message (OTLP metrics v1),
compressed with the codec the client chose among those GetTelemetrySubscriptions offered. This class
decompresses them (the record batches' codecs, kafka/protocol/compression.py), parses them with
opentelemetry-proto's generated classes, and keeps each data point's latest value as one series:

    org.apache.kafka.producer.record.send.total {node_id="1"}  pushed by client instance X, client id P
 -> org_apache_kafka_producer_record_send_total{client_instance_id="X",client_id="P",node_id="1"} 42

The broker asks for delta temporality (as Kafka does): a monotonic sum arrives as what it grew by since
the last push, so its series adds the deltas up; gauges and cumulative sums keep the last value;
histograms and summaries export their count and sum. A client's series go when the ClientMetricsManager
forgets the client (expired, evicted, disconnected, terminated): at most MAX_SERIES_PER_CLIENT each.
Bytes that do not decompress or parse raise ValueError: the push is answered INVALID_RECORD.
"""

from __future__ import annotations

import re
import threading
import uuid
from dataclasses import dataclass

from google.protobuf.message import DecodeError
from opentelemetry.proto.metrics.v1 import metrics_pb2

from kafka.protocol.compression import CompressionError, compression_type_for_id, decompress_chunks
from kafka.server.client_metrics_instance import ClientMetricsInstanceMetadata
from kafka.utils.uuid import uuid_to_string

MAX_SERIES_PER_CLIENT = 5000
MAX_DECOMPRESSED_BYTES = 16 << 20  # a push of telemetry.max.bytes that inflates past this is refused
AGGREGATION_TEMPORALITY_DELTA = metrics_pb2.AGGREGATION_TEMPORALITY_DELTA
_INVALID = re.compile(r"[^a-zA-Z0-9_:]")
_INVALID_LABEL = re.compile(r"[^a-zA-Z0-9_]")
CLIENT_LABELS = ("client_instance_id", "client_id")


@dataclass(frozen=True)
class Sample:
    """One series: its Prometheus name, labels (name, value) in order, the metric's description."""

    name: str
    labels: tuple[tuple[str, str], ...]
    description: str
    value: float


def prometheus_metric_name(otlp_name: str) -> str:
    """An OTLP metric name as a Prometheus one: every character Prometheus does not allow becomes '_'."""
    name = _INVALID.sub("_", otlp_name)
    return f"_{name}" if name[:1].isdigit() else name


def _label_name(key: str) -> str:
    name = _INVALID_LABEL.sub("_", key)
    return f"_{name}" if name[:1].isdigit() or not name else name


def _attribute_value(value) -> str:
    kind = value.WhichOneof("value")
    return "" if kind is None else str(getattr(value, kind))


def decode_metrics_data(compression_type: int, payload: bytes) -> metrics_pb2.MetricsData:
    """The MetricsData of a push; ValueError if the bytes are not one."""
    raw = bytearray()
    try:
        for chunk in decompress_chunks(compression_type_for_id(compression_type), payload):
            raw += chunk
            if len(raw) > MAX_DECOMPRESSED_BYTES:
                raise ValueError(f"the pushed metrics inflate past {MAX_DECOMPRESSED_BYTES} bytes")
    except (CompressionError, OSError) as e:
        raise ValueError(f"cannot decompress the pushed metrics: {e}") from None
    data = metrics_pb2.MetricsData()
    try:
        data.ParseFromString(bytes(raw))
    except DecodeError as e:
        raise ValueError(f"the pushed metrics are not OTLP MetricsData: {e}") from None
    return data


class ClientTelemetryExporter:
    def __init__(self, max_series_per_client: int = MAX_SERIES_PER_CLIENT) -> None:
        self.max_series_per_client = max_series_per_client
        # client instance id -> (name, labels) -> Sample
        self._series: dict[uuid.UUID, dict[tuple[str, tuple], Sample]] = {}
        self._lock = threading.Lock()

    def export_metrics(self, metadata: ClientMetricsInstanceMetadata, compression_type: int, metrics: bytes,
                       push_interval_ms: int) -> None:
        data = decode_metrics_data(compression_type, metrics)
        client = (("client_instance_id", uuid_to_string(metadata.client_instance_id)),
                  ("client_id", metadata.client_id or ""))
        points = list(_data_points(data, client))
        with self._lock:
            series = self._series.setdefault(metadata.client_instance_id, {})
            for sample, is_delta in points:
                key = (sample.name, sample.labels)
                previous = series.get(key)
                if previous is None and len(series) >= self.max_series_per_client:
                    continue  # bounded: a client that sends more series keeps its first ones
                if is_delta and previous is not None:
                    sample = Sample(sample.name, sample.labels, sample.description,
                                    previous.value + sample.value)
                series[key] = sample

    def remove_client(self, client_instance_id: uuid.UUID) -> None:
        with self._lock:
            self._series.pop(client_instance_id, None)

    def samples(self) -> list[Sample]:
        """Every client's series, as /metrics shows them."""
        with self._lock:
            return [sample for series in self._series.values() for sample in series.values()]

    def clients(self) -> list[uuid.UUID]:
        with self._lock:
            return list(self._series)


def _data_points(data: metrics_pb2.MetricsData, client: tuple[tuple[str, str], ...]):
    """(Sample, is it a delta) for every data point of every metric of the push."""
    for resource_metrics in data.resource_metrics:
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                yield from _metric_points(metric, client)


def _metric_points(metric, client: tuple[tuple[str, str], ...]):
    name = prometheus_metric_name(metric.name)
    kind = metric.WhichOneof("data")

    def labels(point) -> tuple[tuple[str, str], ...]:
        own = tuple((_label_name(a.key), _attribute_value(a.value)) for a in point.attributes
                    if _label_name(a.key) not in CLIENT_LABELS)
        return client + own

    if kind == "gauge":
        for point in metric.gauge.data_points:
            yield Sample(name, labels(point), metric.description, _number(point)), False
    elif kind == "sum":
        delta = metric.sum.aggregation_temporality == AGGREGATION_TEMPORALITY_DELTA
        for point in metric.sum.data_points:
            yield Sample(name, labels(point), metric.description, _number(point)), delta
    elif kind in ("histogram", "exponential_histogram"):
        histogram = getattr(metric, kind)
        delta = histogram.aggregation_temporality == AGGREGATION_TEMPORALITY_DELTA
        for point in histogram.data_points:
            yield Sample(f"{name}_count", labels(point), metric.description, float(point.count)), delta
            yield Sample(f"{name}_sum", labels(point), metric.description, float(point.sum)), delta
    elif kind == "summary":
        for point in metric.summary.data_points:
            yield Sample(f"{name}_count", labels(point), metric.description, float(point.count)), False
            yield Sample(f"{name}_sum", labels(point), metric.description, float(point.sum)), False


def _number(point) -> float:
    return float(point.as_double if point.WhichOneof("value") == "as_double" else point.as_int)
