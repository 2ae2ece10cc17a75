"""BrokerMetrics: one broker's metrics registry and the places that feed it (Kafka's
KafkaYammerMetrics registry, with the gauges SocketServer, KafkaRequestHandlerPool,
DelayedOperationPurgatory, ReplicaManager and UnifiedLog register in it).

The meters and histograms are objects the layers mark (request_metrics, broker_topic_stats). The
gauges are callbacks registered here by the server layer, which owns the objects they read; this
package imports nothing else of kafka, so the arrows keep pointing down.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import prometheus_client
from prometheus_client import CollectorRegistry, Counter, generate_latest

from kafka.metrics import metric_names as m
from kafka.metrics.broker_topic_stats import BrokerTopicStats
from kafka.metrics.client_telemetry_collector import ClientTelemetryCollector, PushedSample
from kafka.metrics.idle_percent import AvgIdlePercent
from kafka.metrics.isr_change_meters import IsrChangeMeters
from kafka.metrics.kafka_metrics_group import KafkaMetricsGroup
from kafka.metrics.request_metrics import RequestMetrics

# Kafka's metrics have no creation-time series; leaving prometheus-client's `_created` gauges out
# keeps /metrics readable on a projector. (A process-wide switch: every registry in the process.)
prometheus_client.disable_created_metrics()

# (topic, partition, size, log end offset, log start offset, segments) for each log
LogStats = tuple[str, int, int, int, int, int]
# (listener, processor id, connections, connections created, connections closed) for each network thread
ProcessorStats = tuple[str, int, int, int, int, int, int]
# (name, entries on its watch lists, operations waiting) for each purgatory
PurgatoryStats = tuple[str, int, int]
# (user, client id, rate, average throttle ms) for each live quota sensor
QuotaSensorStats = tuple[str, str, float, float]


class BrokerMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.group = KafkaMetricsGroup(self.registry)
        self.request_metrics = RequestMetrics(self.group)
        self.broker_topic_stats = BrokerTopicStats(self.group)
        self.isr_change_meters = IsrChangeMeters(self.group)

    # ------------------------------------------------------------------ the pipeline
    def register_request_channel(self, request_queue_size: Callable[[], int],
                                 response_queue_size: Callable[[], int]) -> None:
        self.group.new_gauge(m.REQUEST_QUEUE_SIZE, request_queue_size)
        self.group.new_gauge(m.RESPONSE_QUEUE_SIZE, response_queue_size)

    def register_thread_pools(self, network_idle_ns: Callable[[], Sequence[int]],
                              handler_idle_ns: Callable[[], Sequence[int]]) -> None:
        """Each callback returns every thread's running total of nanoseconds spent waiting."""
        self.group.new_gauge(m.NETWORK_PROCESSOR_AVG_IDLE_PERCENT, AvgIdlePercent(network_idle_ns).value)
        self.group.new_gauge(m.REQUEST_HANDLER_AVG_IDLE_PERCENT, AvgIdlePercent(handler_idle_ns).value)
        self.group.new_gauge(m.REQUEST_HANDLER_POOL_SIZE, lambda: len(handler_idle_ns()))

    def register_socket_server(self, pool: Callable[[], tuple[int, int]], pool_depleted_ns: Callable[[], int],
                               processors: Callable[[], Iterable[ProcessorStats]],
                               acceptors_blocked_ns: Callable[[], dict[str, int]]) -> None:
        """The socket server's limits: `pool()` is (available, used) bytes of the memory pool;
        `processors()` lists (listener, processor id, connections, created, closed, successful and
        failed authentications) per network thread; `acceptors_blocked_ns()` maps each listener to
        its Acceptor's total ns spent waiting."""
        self.group.new_gauge(m.MEMORY_POOL_AVAILABLE, lambda: pool()[0])
        self.group.new_gauge(m.MEMORY_POOL_USED, lambda: pool()[1])
        self.group.new_gauge(m.MEMORY_POOL_AVG_DEPLETED_PERCENT,
                             AvgIdlePercent(lambda: [pool_depleted_ns()]).value)
        self.group.new_gauge(m.MEMORY_POOL_DEPLETED_TIME_TOTAL, lambda: pool_depleted_ns() / 1e6)
        for column, metric in enumerate((m.CONNECTION_COUNT, m.CONNECTION_CREATION_TOTAL,
                                         m.CONNECTION_CLOSE_TOTAL,
                                         m.SUCCESSFUL_AUTHENTICATION_TOTAL, m.FAILED_AUTHENTICATION_TOTAL),
                                         start=2):
            self.group.new_gauge(metric, lambda c=column: [((p[0], p[1]), p[c]) for p in processors()])
        self.group.new_gauge(m.NETWORK_PROCESSOR_COUNT, lambda: [
            ((listener,), count) for listener, count in _count_by_listener(processors()).items()])
        blocked = {listener: AvgIdlePercent(lambda name=listener: [acceptors_blocked_ns().get(name, 0)])
                   for listener in acceptors_blocked_ns()}
        self.group.new_gauge(m.ACCEPTOR_BLOCKED_PERCENT,
                             lambda: [((listener, ), share.value()) for listener, share in blocked.items()])

    def register_purgatories(self, purgatories: Callable[[], Iterable[PurgatoryStats]]) -> None:
        """Every DelayedOperationPurgatory (Produce, Fetch, Rebalance, Heartbeat, ...), by its name,
        which becomes the delayedOperation label, as in Kafka."""
        self.group.new_gauge(m.PURGATORY_SIZE, lambda: [((name,), size) for name, size, _ in purgatories()])
        self.group.new_gauge(m.NUM_DELAYED_OPERATIONS, lambda: [((name,), n) for name, _, n in purgatories()])

    # ------------------------------------------------------------------ partitions and logs
    def register_replica_manager(self, partition_count: Callable[[], int], leader_count: Callable[[], int],
                                 under_replicated: Callable[[], int],
                                 offline_replicas: Callable[[], int]) -> None:
        self.group.new_gauge(m.PARTITION_COUNT, partition_count)
        self.group.new_gauge(m.LEADER_COUNT, leader_count)
        self.group.new_gauge(m.UNDER_REPLICATED_PARTITIONS, under_replicated)
        self.group.new_gauge(m.OFFLINE_REPLICA_COUNT, offline_replicas)

    def register_producer_ids(self, producer_id_count: Callable[[], int]) -> None:
        """ReplicaManager's ProducerIdCount: the idempotent producers its partitions remember."""
        self.group.new_gauge(m.PRODUCER_ID_COUNT, producer_id_count)

    def register_transaction_coordinator(self, unknown_destination_queue_size: Callable[[], int],
                                         log_append_retry_queue_size: Callable[[], int],
                                         partition_load_time_max: Callable[[], int]) -> None:
        """The TransactionMarkerChannelManager's queues and the TransactionStateManager's load time."""
        self.group.new_gauge(m.TXN_MARKER_UNKNOWN_DESTINATION_QUEUE_SIZE, unknown_destination_queue_size)
        self.group.new_gauge(m.TXN_MARKER_LOG_APPEND_RETRY_QUEUE_SIZE, log_append_retry_queue_size)
        self.group.new_gauge(m.TXN_PARTITION_LOAD_TIME_MAX, partition_load_time_max)

    def register_consumer_groups(self, rebalance_count: Callable[[], int],
                                 count_by_state: Callable[[], dict[str, int]]) -> Callable[[float], None]:
        """The group coordinator's KIP-848 metrics; returns what records one assignment's time (ms)."""
        self.group.new_gauge(m.CONSUMER_GROUP_REBALANCE_COUNT, rebalance_count)
        self.group.new_gauge(m.CONSUMER_GROUP_COUNT,
                             lambda: [((state,), n) for state, n in count_by_state().items()])
        histogram = self.group.new_histogram(m.CONSUMER_GROUP_ASSIGNMENT_TIME_MS)
        series = histogram.labels()

        def observe(ms: float) -> None:
            with histogram.lock:
                series.observe(ms)
        return observe

    def register_replication(self, under_min_isr: Callable[[], int], at_min_isr: Callable[[], int],
                             max_lag: Callable[[], int]) -> None:
        self.group.new_gauge(m.UNDER_MIN_ISR_PARTITION_COUNT, under_min_isr)
        self.group.new_gauge(m.AT_MIN_ISR_PARTITION_COUNT, at_min_isr)
        self.group.new_gauge(m.REPLICA_FETCHER_MAX_LAG, max_lag)

    def register_fetch_sessions(self, sessions: Callable[[], int], partitions: Callable[[], int]) -> Counter:
        """The FetchSessionCache's gauges; returns the evictions meter, for the cache to mark."""
        self.group.new_gauge(m.NUM_INCREMENTAL_FETCH_SESSIONS, sessions)
        self.group.new_gauge(m.NUM_INCREMENTAL_FETCH_PARTITIONS_CACHED, partitions)
        return self.group.new_meter(m.INCREMENTAL_FETCH_SESSION_EVICTIONS)

    def register_log_manager(self, offline_log_dirs: Callable[[], int]) -> None:
        self.group.new_gauge(m.OFFLINE_LOG_DIRECTORY_COUNT, offline_log_dirs)

    def register_logs(self, all_logs: Callable[[], Iterable[LogStats]]) -> None:
        """One callback lists every log once per scrape; each gauge takes its column."""
        for column, metric in enumerate((m.LOG_SIZE, m.LOG_END_OFFSET, m.LOG_START_OFFSET,
                                         m.NUM_LOG_SEGMENTS),
                                        start=2):
            self.group.new_gauge(metric, lambda c=column: [((s[0], s[1]), s[c]) for s in all_logs()])

    def register_partitions(self,
                            last_stable_offset_lags: Callable[[], Iterable[tuple[str, int, int]]]) -> None:
        """Kafka's per-partition gauges of a leader: (topic, partition, LastStableOffsetLag) for each."""
        self.group.new_gauge(m.LAST_STABLE_OFFSET_LAG,
                             lambda: [((topic, partition), lag)
                                      for topic, partition, lag in last_stable_offset_lags()])

    # ------------------------------------------------------------------ client quotas
    def register_client_quotas(self, sensors: Callable[[str], Iterable[QuotaSensorStats]]) -> None:
        """`sensors(quota type)` lists the live sensors of the Produce, Fetch or Request quota manager."""
        for quota_type, rate_metric, throttle_metric in m.CLIENT_QUOTA_METRICS:
            self.group.new_gauge(rate_metric,
                                 lambda t=quota_type: [((u, c), rate) for u, c, rate, _ in sensors(t)])
            self.group.new_gauge(throttle_metric,
                                 lambda t=quota_type: [((u, c), throttle)
                                                       for u, c, _, throttle in sensors(t)])

    # ------------------------------------------------------------------ KRaft
    def register_controller(self, values: Callable[[], dict[str, int]]) -> None:
        """The controller's gauges; `values()` maps each gauge's name (ActiveControllerCount, ...) to
        its value."""
        for metric in m.CONTROLLER_GAUGES:
            self.group.new_gauge(metric, lambda name=metric.name: values().get(name, 0))

    def register_raft(self, values: Callable[[], dict[str, object]]) -> None:
        """The raft client's gauges; current-state is labelled by state, the others are numbers."""
        for metric in m.RAFT_GAUGES:
            if metric is m.RAFT_CURRENT_STATE:
                self.group.new_gauge(metric,
                                     lambda: [((str(values().get("current-state", "unattached")),), 1)])
            else:
                self.group.new_gauge(metric, lambda name=metric.name: values().get(name, -1))

    # ------------------------------------------------------------------ client metrics (KIP-714)
    def register_client_metrics(self, instance_count: Callable[[], int],
                                unknown_subscription_requests: Callable[[], int],
                                per_instance: Callable[[], Iterable[tuple[str, dict[str, float]]]],
                                pushed: Callable[[], Iterable[PushedSample]]) -> None:
        """The ClientMetricsManager's own metrics (per_instance: each client instance id with its
        throttle-count, plugin-export-count, ... by name), and the series its clients pushed."""
        self.group.new_gauge(m.CLIENT_METRICS_INSTANCE_COUNT, instance_count)
        self.group.new_gauge(m.CLIENT_METRICS_UNKNOWN_SUBSCRIPTION_REQUEST_COUNT,
                             unknown_subscription_requests)
        for metric in (m.CLIENT_METRICS_THROTTLE_COUNT, m.CLIENT_METRICS_PLUGIN_EXPORT_COUNT,
                       m.CLIENT_METRICS_PLUGIN_EXPORT_TIME_AVG, m.CLIENT_METRICS_PLUGIN_EXPORT_TIME_MAX,
                       m.CLIENT_METRICS_PLUGIN_ERROR_COUNT):
            self.group.new_gauge(metric, lambda name=metric.name: [((instance,), values[name])
                                                                   for instance, values in per_instance()])
        self.registry.register(ClientTelemetryCollector(pushed))

    def register_features(self, finalized: Callable[[], dict[str, int]]) -> None:
        """Kafka's MetadataLoaderMetrics: CurrentMetadataVersion, and FinalizedLevel per feature, the
        feature's name in camel case as Kafka tags it (eligible.leader.replicas.version ->
        eligibleLeaderReplicasVersion)."""
        self.group.new_gauge(m.CURRENT_METADATA_VERSION, lambda: finalized().get("metadata.version", 0))
        self.group.new_gauge(m.FINALIZED_LEVEL, lambda: [((feature_name_tag(name),), level)
                                                         for name, level in sorted(finalized().items())])

    # ------------------------------------------------------------------ exposition
    def exposition(self) -> bytes:
        """The Prometheus text format of every metric, as /metrics serves it."""
        return generate_latest(self.registry)


def _count_by_listener(processors: Iterable[ProcessorStats]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for stats in processors:
        counts[stats[0]] = counts.get(stats[0], 0) + 1
    return counts


def feature_name_tag(name: str) -> str:
    """Kafka's MetadataLoaderMetrics.sanitizeFeatureName: dots dropped, each later word capitalised."""
    first, *rest = name.split(".")
    return first + "".join(word[:1].upper() + word[1:].lower() for word in rest)
