"""RequestMetrics: per request type, how many and how long each stage took (Kafka's
org.apache.kafka.network.metrics.RequestMetrics, fed by RequestChannel.Request.updateRequestMetrics).

Seed 002 names the stages a request goes through; Kafka times each one from the timestamps the
request collects on its way (see kafka/network/request_channel.py, Request.timings_ms):

    RequestQueueTimeMs   in the request queue, until an I/O thread takes it
    LocalTimeMs          on the I/O thread (validate, append to the commit log, read)
    RemoteTimeMs         in a purgatory (acks=all waiting for replicas, a fetch waiting for bytes)
    ThrottleTimeMs       muted by a quota after the response went out (KIP-219; not in the total)
    ResponseQueueTimeMs  in the response queue, until the network thread takes it
    ResponseSendTimeMs   writing the response to the socket
    TotalTimeMs          all of the above but the throttle

The `request` label is Kafka's: the API name (Produce, Metadata, ...), with fetches counted twice,
once as Fetch and once as FetchConsumer or FetchFollower, as Kafka does.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from kafka.metrics import metric_names as m
from kafka.metrics.kafka_metrics_group import KafkaMetricsGroup


class RequestMetrics:
    def __init__(self, group: KafkaMetricsGroup) -> None:
        self.requests = group.new_meter(m.REQUESTS)
        self.errors = group.new_meter(m.ERRORS)
        # Keyed by the JMX name (RequestQueueTimeMs, ...), which is how Request.timings_ms reports.
        # One lock for all seven: a response's stages are recorded together, under one acquire.
        self._lock = threading.Lock()
        self.time_histograms = {metric.name: group.new_histogram(metric, lock=self._lock)
                                for metric in m.REQUEST_TIMES}
        # Every request passes here: keep each label set's series at hand instead of looking it up.
        self._counters: dict[tuple[str, int], Any] = {}
        self._histograms: dict[str, dict[str, Any]] = {}
        self._error_counters: dict[tuple[str, Any], Any] = {}

    def update(self, request_names: Iterable[str], version: int, timings_ms: Mapping[str, float]) -> None:
        """A response has been sent: count the request and record how long each stage took."""
        for name in request_names:
            counter = self._counters.get((name, version))
            if counter is None:
                counter = self._counters[(name, version)] = self.requests.labels(name, str(version))
            counter.inc()
            histograms = self._histograms.get(name)
            if histograms is None:
                histograms = self._histograms[name] = {k: h.labels(name)
                                                       for k, h in self.time_histograms.items()}
            with self._lock:
                for metric_name, value in timings_ms.items():
                    histograms[metric_name].observe(value)

    def mark_errors(self, request_name: str, error_counts: Mapping[str, int]) -> None:
        """Kafka's RequestChannel.updateErrorMetrics: one mark per error code in the response."""
        for error, count in error_counts.items():
            counter = self._error_counters.get((request_name, error))
            if counter is None:
                counter = self._error_counters[(request_name, error)] = self.errors.labels(request_name,
                                                                                           error)
            counter.inc(count)


_CONTAINERS = (dict, list, tuple)  # a tuple, not `dict | list | tuple`: that builds a union on every use


def count_error_codes(body: object) -> dict[int, int]:
    """Every `error_code` in a response body, counted (Kafka's AbstractResponse.errorCounts).

    A produce response has one per partition, a fetch response one at the top and one per
    partition: walking the body (dicts and lists, as the handlers build it) finds them all without
    a method per API. It runs for every response, so it checks concrete types, which is several
    times cheaper than asking the Mapping ABC, and only containers go on the stack."""
    counts: dict[int, int] = {}
    stack = [body] if isinstance(body, _CONTAINERS) else []
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            code = item.get("error_code")
            if isinstance(code, int):
                counts[code] = counts.get(code, 0) + 1
            children = item.values()
        else:
            children = item
        for child in children:
            if isinstance(child, _CONTAINERS):
                stack.append(child)
    return counts
