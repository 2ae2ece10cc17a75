"""IsrChangeMeters: ReplicaManager's IsrShrinksPerSec, IsrExpandsPerSec and FailedIsrUpdatesPerSec
(Kafka's meters of the same names, marked when the controller answers an AlterPartition).

A shrink is the number to watch: a broker whose followers keep dropping out of the ISR is one whose
acks=all produces are about to fail with NOT_ENOUGH_REPLICAS.
"""

from __future__ import annotations

from kafka.metrics import metric_names as m
from kafka.metrics.kafka_metrics_group import KafkaMetricsGroup


class IsrChangeMeters:
    def __init__(self, group: KafkaMetricsGroup | None = None) -> None:
        # Without a group (a ReplicaManager built alone, in a unit test) it counts into a private registry.
        group = group if group is not None else KafkaMetricsGroup()
        self._meters = {metric: group.new_meter(metric) for metric in m.ISR_CHANGE_METERS}

    def mark_shrink(self) -> None:
        self._meters[m.ISR_SHRINKS].inc()

    def mark_expand(self) -> None:
        self._meters[m.ISR_EXPANDS].inc()

    def mark_failed_update(self) -> None:
        self._meters[m.FAILED_ISR_UPDATES].inc()
