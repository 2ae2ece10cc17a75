"""AuthorizerMetrics: how many authorisation decisions were taken, allowed and denied, and how many ACLs
there are (Kafka's org.apache.kafka.metadata.authorizer.AuthorizerMetrics:
authorization-request-rate-per-minute, authorization-allowed-rate-per-minute,
authorization-denied-rate-per-minute, acls-total-count).

A rising denied count is a client misconfigured, or one probing for what it may not do.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.metrics import metric_names as m
from kafka.metrics.kafka_metrics_group import KafkaMetricsGroup


class AuthorizerMetrics:
    def __init__(self, group: KafkaMetricsGroup | None = None) -> None:
        # Without a group (an authoriser built alone, in a unit test) it counts into a private registry.
        self.group = group if group is not None else KafkaMetricsGroup()
        self._meters = {metric: self.group.new_meter(metric) for metric in m.AUTHORIZER_METERS}

    def register_acl_count(self, acl_count: Callable[[], int]) -> None:
        self.group.new_gauge(m.ACLS_TOTAL_COUNT, lambda: float(acl_count()))

    def record(self, allowed: bool) -> None:
        self._meters[m.AUTHORIZATION_REQUESTS].inc()
        self._meters[m.AUTHORIZATION_ALLOWED if allowed else m.AUTHORIZATION_DENIED].inc()
