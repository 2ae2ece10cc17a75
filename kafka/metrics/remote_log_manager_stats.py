"""RemoteLogManagerStats: what the RemoteLogManager's copier and expiration threads report, by the names
of kafka/metrics/remote_storage_metrics.py (the copy and delete parts of Kafka's BrokerTopicStats, with its
BrokerTopicAggregatedMetric for values kept per partition, and RemoteLogManagerTasksAvgIdlePercent).

Meters count per topic and for all topics (topic=""), as BrokerTopicStats' do. The lags, sizes and
metadata counts are values each partition's task sets; a topic's gauge is the sum over its partitions and
the all-topics gauge the sum over every partition, read when Prometheus scrapes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from kafka.metrics import remote_storage_metrics as r
from kafka.metrics.kafka_metrics_group import KafkaMetricsGroup
from kafka.metrics.metric_name import MetricName

ALL_TOPICS = ""
METERS = (r.REMOTE_COPY_REQUESTS, r.REMOTE_COPY_BYTES, r.REMOTE_COPY_ERRORS, r.REMOTE_DELETE_REQUESTS,
          r.REMOTE_DELETE_ERRORS,
          # the read side's: the reader threads', and the followers' that build their state from remote
          # storage
          r.REMOTE_FETCH_REQUESTS, r.REMOTE_FETCH_BYTES, r.REMOTE_FETCH_ERRORS,
          r.BUILD_REMOTE_LOG_AUX_STATE_REQUESTS, r.BUILD_REMOTE_LOG_AUX_STATE_ERRORS)
PARTITION_VALUES = (r.REMOTE_COPY_LAG_BYTES, r.REMOTE_COPY_LAG_SEGMENTS, r.REMOTE_DELETE_LAG_BYTES,
                    r.REMOTE_DELETE_LAG_SEGMENTS, r.REMOTE_LOG_METADATA_COUNT, r.REMOTE_LOG_SIZE_BYTES,
                    r.REMOTE_LOG_SIZE_COMPUTATION_TIME)


class RemoteLogManagerStats:
    def __init__(self, group: KafkaMetricsGroup | None = None) -> None:
        # Without a group (a RemoteLogManager built alone, in a unit test) it counts into a private registry.
        self.group = group if group is not None else KafkaMetricsGroup()
        self._meters = {metric: self.group.new_meter(metric) for metric in METERS}
        for meter in self._meters.values():  # the all-topics series exist from the start, at 0, as Kafka's
            meter.labels(ALL_TOPICS)
        self._lock = threading.Lock()
        self._values: dict[MetricName, dict[tuple[str, int], float]] = {m: {} for m in PARTITION_VALUES}
        for metric in PARTITION_VALUES:
            self.group.new_gauge(metric, self._summed(metric))
        self._idle_gauge = None

    def mark(self, metric: MetricName, topic: str, value: float = 1) -> None:
        meter = self._meters[metric]
        meter.labels(topic).inc(value)
        meter.labels(ALL_TOPICS).inc(value)

    def record(self, metric: MetricName, topic: str, partition: int, value: float) -> None:
        """Kafka's recordRemoteCopyLagBytes and friends: the partition's latest value."""
        with self._lock:
            self._values[metric][(topic, partition)] = value

    def remove_partition(self, topic: str, partition: int) -> None:
        """A partition no longer led here stops counting in its topic's gauges."""
        with self._lock:
            for values in self._values.values():
                values.pop((topic, partition), None)

    def value(self, metric: MetricName, topic: str = ALL_TOPICS) -> float:
        """A gauge's value now (tests and the dashboard's checks read it so)."""
        with self._lock:
            return sum(v for (t, _), v in self._values[metric].items() if topic in (ALL_TOPICS, t))

    def count(self, metric: MetricName, topic: str = ALL_TOPICS) -> float:
        """A meter's count so far."""
        value = self.group.registry.get_sample_value(metric.prometheus_name, {"topic": topic})
        return value or 0

    def register_idle_gauge(self, idle_percent: Callable[[], float]) -> None:
        self._idle_gauge = self.group.new_gauge(r.REMOTE_LOG_MANAGER_TASKS_AVG_IDLE_PERCENT, idle_percent)

    def _summed(self, metric: MetricName) -> Callable[[], Iterable[tuple[tuple[str, ...], float]]]:
        def samples() -> list[tuple[tuple[str, ...], float]]:
            with self._lock:
                per_topic: dict[str, float] = {ALL_TOPICS: 0}
                for (topic, _), value in self._values[metric].items():
                    per_topic[topic] = per_topic.get(topic, 0) + value
                    per_topic[ALL_TOPICS] += value
            return [((topic,), value) for topic, value in per_topic.items()]
        return samples
