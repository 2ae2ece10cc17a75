"""ClientQuotaManager: byte-rate quotas per user and client id, and the throttle times that enforce
them (Kafka's kafka.server.ClientQuotaManager with its DefaultQuotaCallback).

One manager per quota type: Produce (producer_byte_rate: request bytes in), Fetch
(consumer_byte_rate: response bytes out); ClientRequestQuotaManager extends it for Request
(request_percentage of I/O-thread time). Each client's traffic is recorded in a sensor, a Rate over
quota.window.num windows of quota.window.size.seconds. A record that takes the rate over the quota
returns a throttle time: how long the client must send nothing for the rate to fall back to the
quota,

    throttle_time_ms = (rate - quota) / quota * window_size_ms

and KafkaApis puts it in the response and has the connection muted that long (KIP-219).

Which quota applies to a request is Kafka's precedence, most specific first:

    user + client-id    user + default client-id    user
    default user + client-id    default user + default client-id    default user
    client-id    default client-id

Without authentication every client's user is ANONYMOUS. A sensor is shared by all clients its
quota covers: a user quota meters the user's clients together. Sensors nobody records into for an
hour expire, with their metrics, so client ids that come and go do not pile up.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from enum import Enum

from kafka.server.quota.rate import Avg, MetricConfig, Rate
from kafka.utils.time import Time

ANONYMOUS = "ANONYMOUS"  # KafkaPrincipal.ANONYMOUS: the user of every connection without authentication
DEFAULT = "<default>"  # Kafka's ConfigEntityName.Default: the default user or client id
INACTIVE_SENSOR_EXPIRATION_MS = 3600 * 1000  # Kafka's InactiveSensorExpirationTimeSeconds
EXPIRE_SENSORS_INTERVAL_MS = 30_000  # how often expired sensors are looked for (Kafka's ExpireSensorTask)
INT32_MAX = 2**31 - 1

# Which kinds of quota exist (Kafka's QuotaTypes bits): the metric tags depend on it.
CLIENT_ID_QUOTA, USER_QUOTA, USER_CLIENT_ID_QUOTA = 1, 2, 4

# A quota's entity as Kafka's KafkaQuotaEntity holds it: (user, client id), each None when the
# entity has no such part, DEFAULT for the default, or a name.
QuotaEntity = tuple[str | None, str | None]


class QuotaType(Enum):
    PRODUCE = "Produce"
    FETCH = "Fetch"
    REQUEST = "Request"


@dataclass(frozen=True)
class ClientQuotaManagerConfig:
    num_quota_samples: int = 11  # quota.window.num
    quota_window_size_seconds: int = 1  # quota.window.size.seconds

    @property
    def metric_config(self) -> MetricConfig:
        return MetricConfig(self.num_quota_samples, self.quota_window_size_seconds * 1000)


@dataclass
class ClientSensors:
    """One quota entity's sensors (Kafka's ClientSensors): its rate and its throttle times."""

    # (user, client-id) as the metrics are tagged; "" where not part of the quota
    metric_tags: tuple[str, str]
    quota_sensor: Rate
    throttle_time_sensor: Avg
    quota: float | None  # the bound, None when no quota covers this entity
    last_record_ms: int


class ClientQuotaManager:
    def __init__(self, config: ClientQuotaManagerConfig, quota_type: QuotaType, time: Time) -> None:
        self.config = config
        self.quota_type = quota_type
        self.time = time
        self.overridden_quotas: dict[QuotaEntity, float] = {}
        self.quota_types_enabled = 0
        self._sensors: dict[tuple[str, str], ClientSensors] = {}
        self._lock = threading.Lock()
        self._next_expiry_check_ms = 0

    @property
    def quotas_enabled(self) -> bool:
        return self.quota_types_enabled != 0

    # ------------------------------------------------------------------ recording
    def maybe_record_and_get_throttle_time_ms(self, user: str, client_id: str, value: float,
                                              now_ms: int) -> int:
        """Record `value` for this client; 0, or how long it must be throttled for its quota."""
        if not self.quotas_enabled:
            return 0  # no quota anywhere: nothing is metered, as in Kafka
        with self._lock:
            sensors = self._get_or_create_quota_sensors(user, client_id, now_ms)
            sensors.quota_sensor.record(value, now_ms)
            sensors.last_record_ms = now_ms
            if sensors.quota is None:
                return 0
            rate = sensors.quota_sensor.measure(now_ms)
            if rate <= sensors.quota:
                return 0
            return self.throttle_time(rate, sensors.quota, sensors.quota_sensor.window_size(now_ms))

    def throttle_time(self, rate: float, quota: float, window_size_ms: int) -> int:
        """Kafka's QuotaUtils.throttleTime: the ms of silence that bring the rate back to the quota."""
        return min(INT32_MAX, math.floor((rate - quota) / quota * window_size_ms + 0.5))

    def record_throttle_time(self, user: str, client_id: str, throttle_time_ms: int, now_ms: int) -> None:
        """The request is being throttled: its throttle-time metric (Kafka's ClientQuotaManager.throttle)."""
        with self._lock:
            sensors = self._get_or_create_quota_sensors(user, client_id, now_ms)
            sensors.throttle_time_sensor.record(throttle_time_ms, now_ms)

    def unrecord_quota_sensor(self, user: str, client_id: str, value: float, now_ms: int) -> None:
        """Take back a recorded value: a throttled fetch is answered empty, so its bytes were not sent."""
        if not self.quotas_enabled:
            return
        with self._lock:
            self._get_or_create_quota_sensors(user, client_id, now_ms).quota_sensor.record(-value, now_ms)

    def max_value_in_quota_window(self, user: str, client_id: str) -> float:
        """The most a client may take in one go (Kafka's getMaxValueInQuotaWindow): a fetch is cut to
        it, so one response never earns a throttle longer than the quota's windows."""
        if not self.quotas_enabled:
            return math.inf
        quota = self.quota_limit(self.quota_metric_tags(user, client_id))
        if quota is None:
            return math.inf
        return quota * (self.config.num_quota_samples - 1) * self.config.quota_window_size_seconds

    # ------------------------------------------------------------------ which quota applies
    def quota_metric_tags(self, user: str, client_id: str) -> tuple[str, str]:
        """The (user, client-id) tags of the sensor this client records into (Kafka's
        DefaultQuotaCallback.quotaMetricTags): both, one or the other, by which quotas exist."""
        enabled = self.quota_types_enabled
        if enabled in (0, CLIENT_ID_QUOTA):
            return "", client_id
        if enabled == USER_QUOTA:
            return user, ""
        if enabled == USER_CLIENT_ID_QUOTA:
            return user, client_id
        overrides = self.overridden_quotas
        for entity, tags in (((user, client_id), (user, client_id)), ((user, DEFAULT), (user, client_id)),
                             ((user, None), (user, "")), ((DEFAULT, client_id), (user, client_id)),
                             ((DEFAULT, DEFAULT), (user, client_id)), ((DEFAULT, None), (user, ""))):
            if entity in overrides:
                return tags
        return "", client_id

    def quota_limit(self, metric_tags: tuple[str, str]) -> float | None:
        """The quota of a sensor, from its tags (Kafka's DefaultQuotaCallback.quotaLimit)."""
        user, client_id = metric_tags
        overrides = self.overridden_quotas
        if user and client_id:
            candidates = [(user, client_id), (user, DEFAULT), (DEFAULT, client_id), (DEFAULT, DEFAULT)]
        elif user:
            candidates = [(user, None), (DEFAULT, None)]
        elif client_id:
            candidates = [(None, client_id), (None, DEFAULT)]
        else:
            candidates = []
        return next((overrides[c] for c in candidates if c in overrides), None)

    def update_quota(self, entity: QuotaEntity, quota: float | None) -> None:
        """A quota was set (or removed: None) by the metadata log; every sensor's bound follows."""
        with self._lock:
            if quota is None:
                self.overridden_quotas.pop(entity, None)
            else:
                self.overridden_quotas[entity] = quota
            self.quota_types_enabled = _quota_types(self.overridden_quotas)
            for sensors in self._sensors.values():
                sensors.quota = self.quota_limit(sensors.metric_tags)

    # ------------------------------------------------------------------ sensors and their metrics
    def _get_or_create_quota_sensors(self, user: str, client_id: str, now_ms: int) -> ClientSensors:
        tags = self.quota_metric_tags(user, client_id)
        sensors = self._sensors.get(tags)
        if sensors is None:
            self._expire_sensors(now_ms)
            metric_config = self.config.metric_config
            sensors = ClientSensors(tags, Rate(metric_config), Avg(metric_config), self.quota_limit(tags),
                                    now_ms)
            self._sensors[tags] = sensors
        return sensors

    def _expire_sensors(self, now_ms: int) -> None:
        if now_ms < self._next_expiry_check_ms:
            return
        self._next_expiry_check_ms = now_ms + EXPIRE_SENSORS_INTERVAL_MS
        inactive = [tags for tags, sensor in self._sensors.items()
                    if now_ms - sensor.last_record_ms > INACTIVE_SENSOR_EXPIRATION_MS]
        for tags in inactive:
            del self._sensors[tags]

    def metric_values(self, now_ms: int | None = None) -> list[tuple[str, str, float, float]]:
        """(user, client-id, rate, average throttle ms) of every live sensor: what the
        kafka.server:type=<quota type> metrics show. Expired sensors are dropped here too."""
        now_ms = self.time.milliseconds() if now_ms is None else now_ms
        with self._lock:
            self._next_expiry_check_ms = 0
            self._expire_sensors(now_ms)
            return [(user, client_id, s.quota_sensor.measure(now_ms), s.throttle_time_sensor.measure(now_ms))
                    for (user, client_id), s in self._sensors.items()]

    @property
    def sensor_count(self) -> int:
        return len(self._sensors)


def _quota_types(overrides: dict[QuotaEntity, float]) -> int:
    enabled = 0
    for user, client_id in overrides:
        if user is not None and client_id is not None:
            enabled |= USER_CLIENT_ID_QUOTA
        elif user is not None:
            enabled |= USER_QUOTA
        else:
            enabled |= CLIENT_ID_QUOTA
    return enabled
