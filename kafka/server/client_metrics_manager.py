"""ClientMetricsManager: the broker side of KIP-714 client metrics (Kafka's
org.apache.kafka.server.ClientMetricsManager).

Subscriptions arrive from the metadata log (CLIENT_METRICS ConfigRecords, `update_subscription`); a client
asks GetTelemetrySubscriptions and is given, once per client instance, the union of the subscriptions
whose `match` patterns it matches: their metric prefixes, the shortest of their intervals, and a
subscription id (a CRC32C of the two, XORed with the client instance id's hash). It then pushes every
interval; each PushTelemetry is checked in Kafka's order (a client that said it was terminating,
too early, a stale subscription id, a codec that does not exist, more than telemetry.max.bytes) and the
metrics handed to the exporter, which decodes the OTLP payload for /metrics (client_telemetry_exporter.py).

Nothing grows without a bound: at most CACHE_MAX_SIZE client instances, the least recently used evicted,
and each expires max(60 s, three push intervals) after its last request (Kafka arms a timer task; here
each request and each /metrics scrape sweeps the expired, `expire_instances`). An expired or evicted
instance's series leave /metrics with it. A client that comes back after expiry is a new instance with
its old id, and is given its subscription again.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import crc32c
import structlog

from kafka.protocol.compression import CompressionType
from kafka.protocol.errors import Errors
from kafka.server import client_metrics_configs as configs
from kafka.server.client_metrics_instance import ClientMetricsInstance, ClientMetricsInstanceMetadata
from kafka.utils.time import Time
from kafka.utils.uuid import uuid_to_string

log = structlog.get_logger("kafka.server.ClientMetricsManager")

# Kafka's order: what a GetTelemetrySubscriptions answer offers (zstd first)
SUPPORTED_COMPRESSION_TYPES = (CompressionType.ZSTD, CompressionType.LZ4, CompressionType.GZIP,
                               CompressionType.SNAPPY)
CACHE_MAX_SIZE = 16384  # client instances, as many as a broker has active connections
DEFAULT_CACHE_EXPIRY_MS = 60_000
ZERO_UUID = uuid.UUID(int=0)
# Kafka's Uuid.RESERVED: the zero id and the metadata topic's id (one) are never a client instance's
RESERVED_UUIDS = frozenset({ZERO_UUID, uuid.UUID(int=1)})


class TelemetryError(Exception):
    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error = error


class ClientTelemetryExporter(Protocol):
    """Kafka's ClientTelemetryExporterPlugin: where pushed metrics go (here, /metrics)."""

    def export_metrics(self, metadata: ClientMetricsInstanceMetadata, compression_type: int, metrics: bytes,
                       push_interval_ms: int) -> None: ...

    def remove_client(self, client_instance_id: uuid.UUID) -> None: ...


@dataclass(frozen=True)
class RequestContext:
    """What of a request's context a subscription can match on (Kafka's RequestContext)."""

    connection_id: str
    client_id: str | None
    client_software_name: str | None = None
    client_software_version: str | None = None
    client_address: str | None = None
    client_port: str | None = None

    def instance_metadata(self, client_instance_id: uuid.UUID) -> ClientMetricsInstanceMetadata:
        return ClientMetricsInstanceMetadata(client_instance_id, self.client_id, self.client_software_name,
                                             self.client_software_version, self.client_address,
                                             self.client_port)


@dataclass(frozen=True)
class SubscriptionInfo:
    name: str
    metrics: frozenset[str]
    interval_ms: int
    match_pattern: dict = field(hash=False)


@dataclass
class InstanceStats:
    """One client instance's ClientMetricsStats sensors (throttle, plugin-export, plugin-error)."""

    throttle_count: int = 0
    plugin_export_count: int = 0
    plugin_export_time_total_ms: float = 0.0
    plugin_export_time_max_ms: float = 0.0
    plugin_error_count: int = 0


class ClientMetricsStats:
    """Kafka's ClientMetricsStats: instance-count, unknown-subscription-request, and per client instance
    throttle, plugin-export (count, time avg and max) and plugin-error; an instance's go when it does."""

    def __init__(self) -> None:
        self.unknown_subscription_request_count = 0
        self.instances: dict[uuid.UUID, InstanceStats] = {}

    def maybe_add_client_instance_metrics(self, client_instance_id: uuid.UUID) -> None:
        self.instances.setdefault(client_instance_id, InstanceStats())

    def unregister_client_instance_metrics(self, client_instance_id: uuid.UUID) -> None:
        self.instances.pop(client_instance_id, None)

    def record_throttle_count(self, client_instance_id: uuid.UUID) -> None:
        if (stats := self.instances.get(client_instance_id)) is not None:
            stats.throttle_count += 1

    def record_plugin_export(self, client_instance_id: uuid.UUID, time_ms: float) -> None:
        if (stats := self.instances.get(client_instance_id)) is not None:
            stats.plugin_export_count += 1
            stats.plugin_export_time_total_ms += time_ms
            stats.plugin_export_time_max_ms = max(stats.plugin_export_time_max_ms, time_ms)

    def record_plugin_error_count(self, client_instance_id: uuid.UUID) -> None:
        if (stats := self.instances.get(client_instance_id)) is not None:
            stats.plugin_error_count += 1


def java_uuid_hash(value: uuid.UUID) -> int:
    """Kafka's Uuid.hashCode: the two halves XORed, then the two ints of that."""
    most, least = value.int >> 64, value.int & (2**64 - 1)
    h = most ^ least
    return _int32((h >> 32) ^ h)


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - 2**32 if value >= 2**31 else value


def compute_subscription_id(metrics: frozenset[str], push_interval_ms: int,
                            client_instance_id: uuid.UUID) -> int:
    """A CRC32C of the metrics (as Java prints a set: "[a, b]") and the interval, XORed with the id's hash."""
    text = "[" + ", ".join(sorted(metrics)) + "]" + str(push_interval_ms)
    return _int32(crc32c.crc32c(text.encode()) ^ java_uuid_hash(client_instance_id))


class ClientMetricsManager:
    def __init__(self, exporter: ClientTelemetryExporter | None, client_telemetry_max_bytes: int, time: Time,
                 cache_expiry_ms: int = DEFAULT_CACHE_EXPIRY_MS,
                 cache_max_size: int = CACHE_MAX_SIZE) -> None:
        self.exporter = exporter
        self.client_telemetry_max_bytes = client_telemetry_max_bytes
        self.time = time
        self.cache_expiry_ms = cache_expiry_ms
        self.cache_max_size = cache_max_size
        self.subscription_map: dict[str, SubscriptionInfo] = {}
        # each subscription's configs as the metadata log has them, for DescribeConfigs
        self.subscription_configs: dict[str, dict[str, str]] = {}
        self.subscription_update_version = 0  # bumped by each change: instances built before are rebuilt
        self.client_instance_cache: OrderedDict[uuid.UUID, ClientMetricsInstance] = OrderedDict()  # LRU
        self.client_connection_id_map: dict[str, uuid.UUID] = {}
        self.stats = ClientMetricsStats()
        self._lock = threading.Lock()  # request threads and the metadata publisher share the maps

    # ------------------------------------------------------------------ subscriptions
    def list_client_metrics_resources(self) -> set[str]:
        with self._lock:
            return set(self.subscription_map)

    def subscription_props(self, subscription_name: str) -> dict[str, str]:
        with self._lock:
            return dict(self.subscription_configs.get(subscription_name, {}))

    def update_subscription(self, subscription_name: str, props: Mapping[str, str]) -> None:
        """A subscription's configs as the metadata log now has them; none left: it is gone."""
        configs.validate(subscription_name, props)
        with self._lock:
            if not props:
                self.subscription_configs.pop(subscription_name, None)
                if self.subscription_map.pop(subscription_name, None) is not None:
                    log.info("removing subscription", subscription=subscription_name)
                    self.subscription_update_version += 1
                return
            parsed = configs.parse(props)
            self.subscription_configs[subscription_name] = dict(props)
            self.subscription_map[subscription_name] = SubscriptionInfo(
                subscription_name, frozenset(parsed[configs.METRICS_CONFIG]),
                parsed[configs.INTERVAL_MS_CONFIG],
                configs.parse_matching_patterns(parsed[configs.MATCH_CONFIG]))
            self.subscription_update_version += 1

    def is_telemetry_exporter_configured(self) -> bool:
        return self.exporter is not None

    # ------------------------------------------------------------------ GetTelemetrySubscriptions
    def process_get_telemetry_subscription_request(self, client_instance_id: uuid.UUID | None,
                                                   context: RequestContext) -> dict:
        now = self.time.milliseconds()
        if client_instance_id is None or client_instance_id == ZERO_UUID:
            client_instance_id = self._generate_new_client_id()
        instance = self._client_instance(client_instance_id, context, now)
        if not instance.maybe_update_get_request_timestamp(now):
            # Kafka's check also names UNKNOWN_SUBSCRIPTION_ID and UNSUPPORTED_COMPRESSION_TYPE as
            # exemptions, with || where it meant &&: no error exempts a request, and none does here.
            self.stats.record_throttle_count(client_instance_id)
            return get_error_response(Errors.THROTTLING_QUOTA_EXCEEDED)
        instance.last_known_error = Errors.NONE
        return dict(throttle_time_ms=0, error_code=Errors.NONE, client_instance_id=client_instance_id,
                    subscription_id=instance.subscription_id,
                    accepted_compression_types=[int(c) for c in SUPPORTED_COMPRESSION_TYPES],
                    push_interval_ms=instance.push_interval_ms,
                    telemetry_max_bytes=self.client_telemetry_max_bytes, delta_temporality=True,
                    requested_metrics=sorted(instance.metrics))

    # ------------------------------------------------------------------ PushTelemetry
    def process_push_telemetry_request(self, request, context: RequestContext) -> dict:
        """`request`: client_instance_id, subscription_id, terminating, compression_type, metrics."""
        client_instance_id = request.client_instance_id
        if client_instance_id is None or client_instance_id in RESERVED_UUIDS:
            return push_error_response(Errors.INVALID_REQUEST)
        now = self.time.milliseconds()
        instance = self._client_instance(client_instance_id, context, now)
        try:
            self._validate_push_request(request, instance, now)
        except TelemetryError as e:
            log.debug("push telemetry refused",
                      client_instance_id=uuid_to_string(client_instance_id), error=str(e))
            instance.last_known_error = e.error
            return push_error_response(e.error)
        finally:
            instance.terminating = request.terminating
        if request.metrics and self.exporter is not None:
            started = self.time.hi_res_clock_ms()
            try:
                self.exporter.export_metrics(instance.instance_metadata, request.compression_type,
                                             bytes(request.metrics), instance.push_interval_ms)
            except Exception as e:  # the plugin could not take them: INVALID_RECORD, as Kafka answers
                self.stats.record_plugin_error_count(client_instance_id)
                instance.last_known_error = Errors.INVALID_RECORD
                log.error("cannot export a client's metrics",
                          client_instance_id=uuid_to_string(client_instance_id),
                          error=str(e))
                return push_error_response(Errors.INVALID_RECORD)
            self.stats.record_plugin_export(client_instance_id, self.time.hi_res_clock_ms() - started)
            with self._lock:  # forgotten while it exported (evicted, disconnected): no series left behind
                if client_instance_id not in self.client_instance_cache:
                    self.exporter.remove_client(client_instance_id)
        instance.last_known_error = Errors.NONE
        return push_error_response(Errors.NONE)

    def _validate_push_request(self, request, instance: ClientMetricsInstance, now: int) -> None:
        client = uuid_to_string(request.client_instance_id)
        if instance.terminating:
            raise TelemetryError(Errors.INVALID_REQUEST,
                                 f"Client [{client}] sent the previous request with state terminating to "
                                 "TRUE, can not acceptany requests after that")
        if not instance.maybe_update_push_request_timestamp(now) and not request.terminating:
            self.stats.record_throttle_count(request.client_instance_id)
            raise TelemetryError(Errors.THROTTLING_QUOTA_EXCEEDED,
                                 f"Request from the client [{client}] arrived before the next push "
                                 "interval time")
        if request.subscription_id != instance.subscription_id:
            self.stats.unknown_subscription_request_count += 1
            raise TelemetryError(Errors.UNKNOWN_SUBSCRIPTION_ID,
                                 f"Unknown client subscription id for the client [{client}]")
        if not 0 <= request.compression_type <= max(CompressionType):
            raise TelemetryError(Errors.UNSUPPORTED_COMPRESSION_TYPE,
                                 f"Unknown compression type [{request.compression_type}] is received in "
                                 f"telemetry request from [{client}]")
        if request.metrics is not None and len(request.metrics) > self.client_telemetry_max_bytes:
            raise TelemetryError(Errors.TELEMETRY_TOO_LARGE,
                                 f"Telemetry request from [{client}] is larger than the maximum allowed size "
                                 f"[{self.client_telemetry_max_bytes}]")

    # ------------------------------------------------------------------ the client instance cache
    def _generate_new_client_id(self) -> uuid.UUID:
        with self._lock:
            while True:
                candidate = uuid.uuid4()
                if candidate not in self.client_instance_cache and candidate not in RESERVED_UUIDS:
                    return candidate

    def _client_instance(self, client_instance_id: uuid.UUID, context: RequestContext,
                         now: int) -> ClientMetricsInstance:
        """The instance from the cache, built anew when missing or when the subscriptions changed since;
        its expiry pushed back (Kafka's clientInstance)."""
        self.expire_instances(now)
        with self._lock:
            instance = self.client_instance_cache.get(client_instance_id)
            if instance is None:
                instance = self._create_instance_and_update_cache(
                    client_instance_id, context.instance_metadata(client_instance_id), context.connection_id)
            elif instance.subscription_version < self.subscription_update_version:
                instance = self._create_instance_and_update_cache(
                    client_instance_id, instance.instance_metadata, context.connection_id)
            self.client_instance_cache.move_to_end(client_instance_id)
            instance.expires_at_ms = now + max(self.cache_expiry_ms, instance.push_interval_ms * 3)
            return instance

    def _create_instance_and_update_cache(self, client_instance_id: uuid.UUID,
                                          metadata: ClientMetricsInstanceMetadata,
                                          connection_id: str) -> ClientMetricsInstance:
        instance = self._create_client_instance(client_instance_id, metadata)
        self.stats.maybe_add_client_instance_metrics(client_instance_id)
        self.client_instance_cache[client_instance_id] = instance
        self.client_connection_id_map[connection_id] = client_instance_id
        while len(self.client_instance_cache) > self.cache_max_size:  # Kafka's LRUCache evicts silently
            evicted, _ = self.client_instance_cache.popitem(last=False)
            self._forget(evicted)
        return instance

    def _create_client_instance(self, client_instance_id: uuid.UUID,
                                metadata: ClientMetricsInstanceMetadata) -> ClientMetricsInstance:
        push_interval_ms = configs.INTERVAL_MS_DEFAULT
        metrics: set[str] = set()
        for info in self.subscription_map.values():
            if metadata.is_match(info.match_pattern):
                metrics |= info.metrics
                push_interval_ms = min(push_interval_ms, info.interval_ms)
        if configs.ALL_SUBSCRIBED_METRICS in metrics:  # one subscription to all: just "*"
            metrics = {configs.ALL_SUBSCRIBED_METRICS}
        subscribed = frozenset(metrics)
        return ClientMetricsInstance(client_instance_id, metadata,
                                     compute_subscription_id(subscribed, push_interval_ms,
                                                             client_instance_id),
                                     self.subscription_update_version, subscribed, push_interval_ms)

    def expire_instances(self, now: int | None = None) -> None:
        """Drop the instances whose expiry has passed, and their metrics (Kafka's ExpirationTimerTask)."""
        now = self.time.milliseconds() if now is None else now
        with self._lock:
            expired = [i for i, instance in self.client_instance_cache.items()
                       if instance.expires_at_ms <= now]
            for client_instance_id in expired:
                del self.client_instance_cache[client_instance_id]
                self._forget(client_instance_id)

    def on_disconnect(self, connection_id: str) -> None:
        """Kafka's ClientConnectionDisconnectListener: a closed connection's instance goes at once."""
        with self._lock:
            client_instance_id = self.client_connection_id_map.pop(connection_id, None)
            if client_instance_id is not None:
                self.client_instance_cache.pop(client_instance_id, None)
                self._forget(client_instance_id)

    def _forget(self, client_instance_id: uuid.UUID) -> None:
        self.stats.unregister_client_instance_metrics(client_instance_id)
        for connection_id in [c for c, i in self.client_connection_id_map.items() if i == client_instance_id]:
            del self.client_connection_id_map[connection_id]
        if self.exporter is not None:
            self.exporter.remove_client(client_instance_id)

    def instance_count(self) -> int:
        return len(self.client_instance_cache)

    def close(self) -> None:
        with self._lock:
            self.subscription_map.clear()
            self.subscription_configs.clear()
            for client_instance_id in list(self.client_instance_cache):
                self._forget(client_instance_id)
            self.client_instance_cache.clear()


def get_error_response(error: Errors) -> dict:
    """GetTelemetrySubscriptionsRequest.getErrorResponse: the error, every other field its default."""
    return dict(throttle_time_ms=0, error_code=error, client_instance_id=ZERO_UUID, subscription_id=0,
                accepted_compression_types=[], push_interval_ms=0, telemetry_max_bytes=0,
                delta_temporality=False, requested_metrics=[])


def push_error_response(error: Errors) -> dict:
    return dict(throttle_time_ms=0, error_code=error)
