"""ShareGroupMetrics and SharePartitionMetrics: what share fetching and acknowledging export (Kafka's
org.apache.kafka.server.share.metrics.ShareGroupMetrics and SharePartitionMetrics, with the share
meters of BrokerTopicMetrics and DelayedShareFetchMetrics).

The names are declared in kafka/metrics/metric_names.py. One ShareGroupMetrics serves the broker;
each SharePartition records through its SharePartitionMetrics, a view with its (group, topic,
partition) labels. The gauges (in-flight records and batches, share sessions) are callbacks the
SharePartitionManager registers, read when Prometheus scrapes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kafka.metrics import metric_names as m
from kafka.metrics.kafka_metrics_group import KafkaMetricsGroup
from kafka.utils.time import Time

COUNT_BUCKETS = (1, 5, 10, 50, 100, 500, 1000, 5000, float("inf"))
PERCENT_BUCKETS = (0, 10, 25, 50, 75, 90, 100, float("inf"))
ACK_TYPE_NAMES = {1: "Accept", 2: "Release", 3: "Reject", 4: "Renew"}  # Kafka's capitalised AcknowledgeType


class SharePartitionMetrics:
    def __init__(self, metrics: ShareGroupMetrics, group_id: str, topic: str, partition: int) -> None:
        self._metrics = metrics
        self.labels = (group_id, topic, str(partition))

    def record_acquisition_lock_timeout(self, count: int) -> None:
        self._metrics.lock_timeouts.labels(*self.labels).inc(count)

    def record_in_flight_batch_message_count(self, count: int) -> None:
        self._metrics.observe(self._metrics.batch_message_count, self.labels, count)

    def record_fetch_lock_time_ms(self, ms: float) -> None:
        self._metrics.observe(self._metrics.fetch_lock_time, self.labels, ms)

    def record_fetch_lock_ratio(self, percent: int) -> None:
        self._metrics.observe(self._metrics.fetch_lock_ratio, self.labels, percent)

    def close(self) -> None:
        """The share partition is gone: its series go too (Kafka's SharePartitionMetrics.close), or a
        broker whose groups come and go would export more series at every scrape."""
        metrics = self._metrics
        for metric in (metrics.lock_timeouts, metrics.batch_message_count, metrics.fetch_lock_time,
                       metrics.fetch_lock_ratio):
            _remove_series(metric, self.labels)


class ShareGroupMetrics:
    def __init__(self, time: Time, group: KafkaMetricsGroup | None = None) -> None:
        # Without a group (a SharePartitionManager built alone, in a unit test) it counts into a private
        # registry.
        self.group = group if group is not None else KafkaMetricsGroup()
        self.time = time
        self.acknowledgements = self.group.new_meter(m.SHARE_RECORD_ACKNOWLEDGEMENTS)
        self.partition_load_time = self.group.new_histogram(m.SHARE_PARTITION_LOAD_TIME)
        self.fetch_ratio = self.group.new_histogram(m.SHARE_TOPIC_PARTITIONS_FETCH_RATIO, PERCENT_BUCKETS)
        self.acquire_time = self.group.new_histogram(m.SHARE_TOPIC_PARTITIONS_ACQUIRE_TIME)
        self.batch_message_count = self.group.new_histogram(m.SHARE_IN_FLIGHT_BATCH_MESSAGE_COUNT,
                                                            COUNT_BUCKETS)
        self.fetch_lock_time = self.group.new_histogram(m.SHARE_FETCH_LOCK_TIME)
        self.fetch_lock_ratio = self.group.new_histogram(m.SHARE_FETCH_LOCK_RATIO, PERCENT_BUCKETS)
        self.lock_timeouts = self.group.new_meter(m.SHARE_ACQUISITION_LOCK_TIMEOUT)
        self.session_evictions = self.group.new_meter(m.SHARE_SESSION_EVICTIONS)
        self.expired_share_fetches = self.group.new_meter(m.DELAYED_SHARE_FETCH_EXPIRES)
        self.topic_meters = {metric: self.group.new_meter(metric) for metric in (
            m.TOTAL_SHARE_FETCH_REQUESTS, m.FAILED_SHARE_FETCH_REQUESTS,
            m.TOTAL_SHARE_ACKNOWLEDGEMENT_REQUESTS,
            m.FAILED_SHARE_ACKNOWLEDGEMENT_REQUESTS)}

    def observe(self, histogram, labels: tuple[str, ...], value: float) -> None:
        series = histogram.labels(*labels)
        with histogram.lock:
            series.observe(value)

    def for_partition(self, group_id: str, topic: str, partition: int) -> SharePartitionMetrics:
        return SharePartitionMetrics(self, group_id, topic, partition)

    def remove_group(self, group_id: str) -> None:
        """This broker holds no share partition of the group any more: its per-group series go."""
        for metric in (self.fetch_ratio, self.acquire_time):
            _remove_series(metric, (group_id,))

    # ShareGroupMetrics proper
    def record_acknowledgement(self, ack_type: int, count: int = 1) -> None:
        if ack_type in ACK_TYPE_NAMES:
            self.acknowledgements.labels(ACK_TYPE_NAMES[ack_type]).inc(count)

    def partition_load_time_ms(self, start_ms: int) -> None:
        self.observe(self.partition_load_time, (), self.time.hi_res_clock_ms() - start_ms)

    def record_topic_partitions_fetch_ratio(self, group_id: str, percent: int) -> None:
        self.observe(self.fetch_ratio, (group_id,), percent)

    def record_topic_partitions_acquire_time_ms(self, group_id: str, ms: float) -> None:
        self.observe(self.acquire_time, (group_id,), ms)

    def mark_topic(self, metric, topics: Iterable[str]) -> None:
        """One of the BrokerTopicMetrics share meters, for each topic and for all topics (topic="")."""
        meter = self.topic_meters[metric]
        for topic in topics:
            meter.labels(topic).inc()
            meter.labels("").inc()

    def register_gauges(self, in_flight: Callable[[], Iterable[tuple[tuple[str, str, str], int, int]]],
                        sessions: Callable[[], int], session_partitions: Callable[[], int]) -> None:
        """`in_flight()`: ((group, topic, partition), in-flight records, in-flight batches) per share
        partition."""
        self.group.new_gauge(m.SHARE_IN_FLIGHT_MESSAGE_COUNT, lambda: [(k, n) for k, n, _ in in_flight()])
        self.group.new_gauge(m.SHARE_IN_FLIGHT_BATCH_COUNT, lambda: [(k, b) for k, _, b in in_flight()])
        self.group.new_gauge(m.SHARE_SESSIONS_COUNT, sessions)
        self.group.new_gauge(m.SHARE_PARTITIONS_COUNT, session_partitions)


def _remove_series(metric, labels: tuple[str, ...]) -> None:
    try:
        metric.remove(*labels)
    except KeyError:  # never recorded
        pass
