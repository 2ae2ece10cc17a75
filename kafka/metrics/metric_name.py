"""MetricName: a metric's JMX identity and its Prometheus name (Kafka's KafkaMetricsGroup.explicitMetricName).

Kafka names every broker metric as a JMX MBean, `<group>:type=<type>,name=<name>[,tag=value...]`,
for example `kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce`. Kafka's own
dashboards read those names through the Prometheus JMX exporter, whose widely used Kafka rules
(Strimzi's kafka-metrics.yaml) rewrite them mechanically:

    Meter  `...,name=MessagesInPerSec`  -> counter   kafka_server_brokertopicmetrics_messagesin_total
    Gauge  `...,name=PartitionCount`    -> gauge     kafka_server_replicamanager_partitioncount
    Timer/Histogram `...,name=TotalTimeMs` -> histogram kafka_network_requestmetrics_totaltimems (ms)

Tags become labels. `prometheus_name` is that rewrite, and the only place a Prometheus name is made,
so a learner can put Kafka's documentation of a JMX metric next to the series on a graph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class MetricType(Enum):
    """How Kafka records the metric, which decides its Prometheus type and name suffix."""

    METER = "counter"  # a Yammer Meter: a count plus rates; Prometheus computes the rate itself
    GAUGE = "gauge"  # a value read when asked
    HISTOGRAM = "histogram"  # a Yammer Histogram/Timer of milliseconds or bytes


_PER_SEC = re.compile(r"PerSec$")
_INVALID = re.compile(r"[^a-zA-Z0-9_:]")


@dataclass(frozen=True)
class MetricName:
    group: str  # the JMX domain: kafka.network, kafka.server, kafka.log
    type: str  # the MBean's type= key: RequestMetrics, BrokerTopicMetrics, ...
    name: str  # the MBean's name= key: RequestsPerSec, TotalTimeMs, ...
    metric_type: MetricType
    doc: str
    label_names: tuple[str, ...] = ()  # the MBean's other keys (request=, topic=, ...), in order
    seed_step: str = ""  # which step of seed 002's journey this measures (docs/observability.md)

    def __hash__(self) -> int:
        # The JMX identity alone. BrokerTopicStats looks its series up by MetricName a few times a
        # request, and the generated hash of all seven fields (an Enum's among them) cost more than
        # the count it was looking up. Equal names still hash equal, as a dict needs.
        return hash((self.group, self.type, self.name))

    @property
    def mbean_name(self) -> str:
        """The JMX name as Kafka's documentation writes it, with the tags as placeholders."""
        tags = "".join(f",{label}=<{label}>" for label in self.label_names)
        return f"{self.group}:type={self.type},name={self.name}{tags}"

    @property
    def prometheus_name(self) -> str:
        return prometheus_name(self.group, self.type, self.name, self.metric_type)


def prometheus_name(group: str, type_: str, name: str, metric_type: MetricType) -> str:
    """The JMX exporter's Kafka rule: `kafka.<domain>:type=T,name=N` -> `kafka_<domain>_<t>_<n>`,
    lower-cased; a meter's `PerSec` suffix becomes `_total`, as befits a Prometheus counter."""
    domain = group.removeprefix("kafka.").replace(".", "_")
    if metric_type is MetricType.METER:
        name = _PER_SEC.sub("", name)
        return _INVALID.sub("_", f"kafka_{domain}_{type_}_{name}_total").lower()
    # Kafka's own (non-Yammer) metrics such as raft-metrics' current-leader have dashes, which the
    # exporter turns into underscores: kafka_server_raft_metrics_current_leader.
    return _INVALID.sub("_", f"kafka_{domain}_{type_}_{name}").lower()
