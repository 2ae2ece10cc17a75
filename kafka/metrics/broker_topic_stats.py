"""BrokerTopicStats: bytes and records in and out, per topic and for all topics (Kafka's
org.apache.kafka.storage.log.metrics.BrokerTopicStats and BrokerTopicMetrics).

Seed 002's produce request ends in "append the data ... to a data structure, which we call a commit
log"; these meters count what went in (MessagesInPerSec, BytesInPerSec) and what consumers took out
(BytesOutPerSec). Every mark goes to the topic's series and to the all-topics series, as in Kafka.
"""

from __future__ import annotations

from prometheus_client import Counter

from kafka.metrics import metric_names as m
from kafka.metrics.kafka_metrics_group import KafkaMetricsGroup
from kafka.metrics.metric_name import MetricName

ALL_TOPICS = ""  # the all-topics series: Prometheus stores topic="" as a series without the label


class BrokerTopicStats:
    def __init__(self, group: KafkaMetricsGroup | None = None) -> None:
        # Without a group (a ReplicaManager built alone, in a unit test) it counts into a private registry.
        group = group if group is not None else KafkaMetricsGroup()
        self._meters = {metric: group.new_meter(metric) for metric in m.BROKER_TOPIC_METERS}
        # Each topic's series, by metric: every produce and fetch marks several, and looking a
        # series up by its label values each time cost more than the counting.
        self._series: dict[str, dict[MetricName, Counter]] = {}
        self._all_topics = self._create_series(ALL_TOPICS)  # exported from start-up, at zero

    def _create_series(self, topic: str) -> dict[MetricName, Counter]:
        # Like Kafka's topicStats(topic): a topic's first mark creates all of its meters, so a
        # dashboard sees FailedProduceRequests at 0 rather than no series at all.
        series = self._series[topic] = {metric: meter.labels(topic) for metric, meter in self._meters.items()}
        return series

    def mark(self, metric: MetricName, topic: str, value: float = 1) -> None:
        series = self._series.get(topic) or self._create_series(topic)
        series[metric].inc(value)
        self._all_topics[metric].inc(value)

    # Kafka's names for the marks ReplicaManager and KafkaApis make.
    def record_produce_request(self, topic: str) -> None:
        self.mark(m.TOTAL_PRODUCE_REQUESTS, topic)

    def record_append(self, topic: str, num_messages: int, valid_bytes: int) -> None:
        self.mark(m.MESSAGES_IN, topic, num_messages)
        self.mark(m.BYTES_IN, topic, valid_bytes)

    def record_failed_produce(self, topic: str) -> None:
        self.mark(m.FAILED_PRODUCE_REQUESTS, topic)

    def record_bytes_rejected(self, topic: str, size: int) -> None:
        self.mark(m.BYTES_REJECTED, topic, size)

    def record_fetch_request(self, topic: str) -> None:
        self.mark(m.TOTAL_FETCH_REQUESTS, topic)

    def record_failed_fetch(self, topic: str) -> None:
        self.mark(m.FAILED_FETCH_REQUESTS, topic)

    def update_bytes_out(self, topic: str, is_follower: bool, value: int) -> None:
        """Bytes a fetch response carries. Kafka counts a follower's as replication, not BytesOut."""
        if not value:
            return
        if is_follower:
            self._all_topics[m.REPLICATION_BYTES_OUT].inc(value)
        else:
            self.mark(m.BYTES_OUT, topic, value)

    def record_replication_bytes_in(self, value: int) -> None:
        """Bytes a replica fetcher appended (Kafka keeps only the all-topics series of this one)."""
        if value:
            self._all_topics[m.REPLICATION_BYTES_IN].inc(value)

    def remove_metrics(self, topic: str) -> None:
        """A deleted topic stops being exported (Kafka's BrokerTopicStats.removeMetrics)."""
        if topic == ALL_TOPICS or self._series.pop(topic, None) is None:
            return
        for meter in self._meters.values():
            meter.remove(topic)
