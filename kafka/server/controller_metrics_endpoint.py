"""ControllerMetricsEndpoint: /metrics of a controller-only node (process.roles=controller).

Kafka's ControllerServer registers its own metrics with the JVM's JmxReporter whatever the node's
other roles: QuorumControllerMetrics (kafka.controller:type=KafkaController, ActiveControllerCount,
OfflinePartitionsCount, ...), the raft client's raft-metrics, and the control plane's SocketServer
and request-handler gauges. On a combined node the broker's MetricsEndpoint already exports the
controller and raft gauges beside the broker's own; a node that is only a controller has no broker
half, so this class does the same wiring for what it does have, on the same `metrics.listener`.

    metrics.listener=http://127.0.0.1:9410   /metrics of controller 1 of make cluster-split

Seed 004: the quorum of controllers is a set of servers of its own; a student watching the split
cluster sees its leader move (ActiveControllerCount, raft current-state) on the same dashboard.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from kafka.metrics.broker_metrics import BrokerMetrics
from kafka.metrics.prometheus_exporter import PrometheusExporter

log = structlog.get_logger("kafka.server.ControllerMetricsEndpoint")


class ControllerMetricsEndpoint:
    def __init__(self, config, time, request_channel, socket_server,
                 handler_idle_ns: Callable[[], list[int]], controller_values: Callable[[], dict[str, int]],
                 raft_values: Callable[[], dict[str, object]]) -> None:
        self.config = config
        self.time = time
        self.metrics = BrokerMetrics()
        self.exporter: PrometheusExporter | None = None
        self._register(request_channel, socket_server, handler_idle_ns, controller_values, raft_values)

    def _register(self, channel, socket_server, handler_idle_ns, controller_values, raft_values) -> None:
        metrics = self.metrics
        channel.metrics = metrics.request_metrics  # RequestMetrics for the control plane's requests
        metrics.register_request_channel(lambda: channel.request_queue_size,
                                         lambda: sum(channel.response_queue_sizes().values()))
        metrics.register_thread_pools(lambda: [p.idle_time_ns for p in socket_server.processors],
                                      handler_idle_ns)
        socket_server.register_metrics(metrics)
        metrics.register_controller(controller_values)
        metrics.register_raft(raft_values)

    def startup(self) -> None:
        listener = self.config.metrics_listener
        if listener is not None:
            self.exporter = PrometheusExporter(listener[0], listener[1], self.metrics.exposition, None,
                                               self.time)
            self.exporter.startup()
        log.info("observability", metrics=f"{self.url}/metrics" if self.url
                 else "off (metrics.listener is empty)")

    @property
    def url(self) -> str | None:
        return self.exporter.url if self.exporter else None

    def shutdown(self) -> None:
        if self.exporter is not None:
            self.exporter.shutdown()
