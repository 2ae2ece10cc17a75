"""MetricsEndpoint: the broker's HTTP endpoint for its metrics, /metrics and /requests (the role
the Prometheus JMX exporter's agent plays beside a JVM broker: Kafka itself registers every metric as
a JMX MBean with its JmxReporter, and the exporter serves them over HTTP for Prometheus to scrape).

Not a Kafka ``MetricsReporter``: that is the plugin interface (``metric.reporters``) a sink implements
to be told about each metric. This class is the wiring in between: it connects the metrics package to
the objects that hold the numbers, the way each Kafka component registers its own gauges (the
RequestChannel's queues, the idle time of the network and I/O threads, the purgatories,
ReplicaManager's partitions and every UnifiedLog), then starts the HTTP server. The lower layers only
mark meters they were handed; this class is the one place that knows where every gauge reads from.

    metrics.listener=http://127.0.0.1:9404   /metrics (Prometheus text format) and /requests
    request.trace.enable=true                 recent requests' journeys at /requests
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from kafka.metrics.broker_metrics import BrokerMetrics, LogStats
from kafka.metrics.prometheus_exporter import PrometheusExporter
from kafka.metrics.remote_log_manager_stats import RemoteLogManagerStats
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory
from kafka.server.request_trace import RequestTrace

log = structlog.get_logger("kafka.server.MetricsEndpoint")


class MetricsEndpoint:
    def __init__(self, config, time, request_channel, socket_server, replica_manager, log_manager,
                 fetch_session_cache, purgatory_holders: list, transaction_coordinator=None,
                 quota_managers=None,
                 io_thread_idle_ns: Callable[[], list[int]] = list,
                 controller_values: Callable[[], dict[str, int]] = dict,
                 raft_values: Callable[[], dict[str, object]] = dict) -> None:
        """What the gauges read, handed over by the KafkaServer: its components, and functions for what
        starts later (the I/O threads) or may not exist (the controller, the raft client)."""
        self.config = config
        self.time = time
        self.request_channel = request_channel
        self.socket_server = socket_server
        self.replica_manager = replica_manager
        self.log_manager = log_manager
        self.fetch_session_cache = fetch_session_cache
        self.purgatory_holders = purgatory_holders
        self.transaction_coordinator = transaction_coordinator
        self.quota_managers = quota_managers
        self.io_thread_idle_ns = io_thread_idle_ns
        self.controller_values = controller_values
        self.raft_values = raft_values
        self.metrics = BrokerMetrics()
        self.request_trace: RequestTrace | None = None
        self.exporter: PrometheusExporter | None = None

    def startup(self) -> None:
        config, channel = self.config, self.request_channel
        channel.metrics = self.metrics.request_metrics
        self.replica_manager.broker_topic_stats = self.metrics.broker_topic_stats
        self.replica_manager.isr_change_meters = self.metrics.isr_change_meters
        if self.replica_manager.remote_log_manager is not None:  # tiered storage's copier and expiration
            self.replica_manager.remote_log_manager.stats = RemoteLogManagerStats(self.metrics.group)
        self.register_gauges()
        pages = {}
        if config.request_trace_enable:
            self.request_trace = RequestTrace()
            channel.request_logger = self.request_trace.record
            pages["/requests"] = self.request_trace.render_page
        else:
            pages["/requests"] = lambda _query: "request.trace.enable is false on this broker\n"
        if config.metrics_listener is not None:
            host, port = config.metrics_listener
            self.exporter = PrometheusExporter(host, port, self.metrics.exposition, pages, self.time)
            self.exporter.startup()
        log.info("observability", metrics=f"{self.url}/metrics" if self.url
                 else "off (metrics.listener is empty)",
                 request_trace=f"{self.url}/requests" if self.url and self.request_trace else "off",
                 log_dirs=config.log_dirs)
        log.info("configuration differs from defaults", **config.non_default_values())

    @property
    def url(self) -> str | None:
        """http://host:port of the endpoint, with the port that was bound; None when disabled."""
        return self.exporter.url if self.exporter else None

    def register_gauges(self) -> None:
        metrics, channel = self.metrics, self.request_channel
        metrics.register_request_channel(lambda: channel.request_queue_size,
                                         lambda: sum(channel.response_queue_sizes().values()))
        metrics.register_thread_pools(self.socket_server.idle_times_ns, self.io_thread_idle_ns)
        metrics.register_purgatories(lambda: [(p.name, p.watched(), p.num_delayed())
                                              for p in self.purgatories()])
        replica_manager = self.replica_manager
        failures = replica_manager.log_manager.log_dir_failure_channel
        partitions = lambda: list(replica_manager.all_partitions.values())  # noqa: E731
        metrics.register_replica_manager(
            partition_count=lambda: len(partitions()),
            leader_count=lambda: sum(1 for p in partitions()
                                     if p.leader_id == replica_manager.local_broker_id),
            under_replicated=lambda: sum(1 for p in partitions() if p.is_under_replicated),
            # Kafka's offlineReplicaCount: hosted in a failed dir, or not hosted at all
            # (HostedPartition.Offline)
            offline_replicas=lambda: sum(1 for p in partitions() if failures.is_offline(p.log.parent_dir))
            + len(replica_manager.offline_partitions()))
        metrics.register_producer_ids(replica_manager.producer_id_count)
        txn = self.transaction_coordinator
        if txn is not None and txn.txn_marker_channel_manager is not None:
            metrics.register_transaction_coordinator(
                txn.txn_marker_channel_manager.unknown_destination_queue_size,
                txn.txn_marker_channel_manager.log_append_retry_queue_size,
                lambda: txn.txn_manager.partition_load_time_max_ms)
        metrics.register_replication(
            under_min_isr=lambda: sum(1 for p in partitions() if p.is_under_min_isr),
            at_min_isr=lambda: sum(1 for p in partitions() if p.is_at_min_isr),
            max_lag=replica_manager.replica_fetcher_manager.max_lag)
        cache = self.fetch_session_cache
        cache.evictions_meter = metrics.register_fetch_sessions(lambda: cache.size,
                                                                lambda: cache.total_partitions)
        metrics.register_log_manager(lambda: len(failures.offline_log_dirs()))
        metrics.register_logs(self._log_stats)
        metrics.register_partitions(lambda: [(p.topic, p.topic_partition.partition, p.last_stable_offset_lag)
                                             for p in partitions() if p.is_leader])
        metrics.register_client_quotas(self._quota_sensors)
        metrics.register_controller(self.controller_values)
        metrics.register_raft(self.raft_values)
        metrics.register_features(self._finalized_features)

    def _finalized_features(self) -> dict[str, int]:
        """metadata.version and kraft.version always (Kafka keeps both gauges), then every finalized
        feature, as this broker's metadata cache last applied them."""
        cache = self.replica_manager.metadata_cache
        levels = dict(cache.finalized_features)
        return {"metadata.version": levels.pop("metadata.version", 0), "kraft.version": cache.kraft_version(),
                **levels}

    def _quota_sensors(self, quota_type: str) -> list:
        managers = self.quota_managers
        if managers is None:
            return []
        manager = {"Produce": managers.produce, "Fetch": managers.fetch,
                   "Request": managers.request}[quota_type]
        return manager.metric_values()

    def purgatories(self) -> list[DelayedOperationPurgatory]:
        """Every purgatory the components handed over hold (ReplicaManager's Produce and Fetch, the
        GroupCoordinator's Rebalance and Heartbeat, ...), found rather than listed, so a new
        purgatory of theirs is exported without touching this file."""
        found: dict[str, DelayedOperationPurgatory] = {}
        for component in self.purgatory_holders:
            for value in list(getattr(component, "__dict__", {}).values()):
                if isinstance(value, DelayedOperationPurgatory):
                    found.setdefault(value.name, value)
        return [found[name] for name in sorted(found)]

    def _log_stats(self) -> list[LogStats]:
        return [(log_.topic, log_.partition, log_.size_in_bytes, log_.log_end_offset, log_.log_start_offset,
                 log_.num_segments) for log_ in self.log_manager.all_logs()]

    def shutdown(self) -> None:
        if self.exporter is not None:
            self.exporter.shutdown()
