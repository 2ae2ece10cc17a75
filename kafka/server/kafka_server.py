"""KafkaServer: wiring, start-up and shutdown of one broker (Kafka's kafka.server.KafkaServer / BrokerServer).

Start-up builds the layers bottom-up, the way the request's journey goes top-down:

    LogManager (recovers each log with its topic's configs) -> SocketServer (bound early, so a
    taken port fails start-up at once; requests queue until the handlers run) -> MetadataCache,
    ReplicaManager (+ produce and fetch purgatories), AdminManager -> KafkaScheduler (retention,
    flush, checkpoints), LogCleaner -> GroupCoordinator (loads __consumer_offsets)
    -> MetricsReporter (/metrics) -> KafkaApis -> KafkaRequestHandlerPool (I/O threads)

Shutdown goes the other way: stop accepting and close connections, stop the I/O threads, the
coordinator, cleaner, scheduler and metrics, stop the purgatories (their waiting requests'
connections are already gone), then flush and close every log so a restart finds everything
that was acknowledged.
"""

from __future__ import annotations

import os
import socket
import threading

import structlog

from kafka.coordinator.coordinator_records import GROUP_METADATA_TOPIC_NAME
from kafka.coordinator.group_coordinator import GroupCoordinator
from kafka.log.log_cleaner import CleanerConfig, LogCleaner
from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.network.end_point import EndPoint
from kafka.network.request_channel import RequestChannel
from kafka.network.socket_server import SocketServer
from kafka.server.admin_manager import AdminManager
from kafka.server.cluster_metadata_store import ClusterMetadataStore
from kafka.server.kafka_apis import KafkaApis
from kafka.server.kafka_config import KafkaConfig
from kafka.server.kafka_request_handler import KafkaRequestHandlerPool
from kafka.server.metadata_cache import Broker, MetadataCache
from kafka.server.metrics_reporter import MetricsReporter
from kafka.server.replica_manager import ReplicaManager
from kafka.utils.kafka_scheduler import KafkaScheduler
from kafka.utils.time import SYSTEM, Time

log = structlog.get_logger("kafka.server.KafkaServer")


def default_log_config(config: KafkaConfig) -> LogConfig:
    """The broker-wide defaults (log.*) that each topic's configs override."""
    return LogConfig.from_props({
        "segment.bytes": str(config.log_segment_bytes),
        "index.interval.bytes": str(config.log_index_interval_bytes),
        "max.message.bytes": str(config.message_max_bytes),
        "retention.ms": str(config.log_retention_time_ms),
        "retention.bytes": str(config.log_retention_bytes),
        "cleanup.policy": config.log_cleanup_policy,
        "min.insync.replicas": str(config.min_insync_replicas),
        "segment.ms": str(config.log_roll_time_ms),
        "segment.index.bytes": str(config.log_index_size_max_bytes),
        "delete.retention.ms": str(config.log_cleaner_delete_retention_ms),
        "min.cleanable.dirty.ratio": str(config.log_cleaner_min_cleanable_ratio),
        "min.compaction.lag.ms": str(config.log_cleaner_min_compaction_lag_ms),
        "file.delete.delay.ms": str(config.log_segment_delete_delay_ms),
        "flush.messages": str(config.log_flush_interval_messages),
        "flush.ms": str(config.log_flush_interval_ms_or_default),
    })


def cleaner_config(config: KafkaConfig) -> CleanerConfig:
    return CleanerConfig(num_threads=config.log_cleaner_threads,
                         dedupe_buffer_size=config.log_cleaner_dedupe_buffer_size,
                         backoff_ms=config.log_cleaner_backoff_ms,
                         enable_cleaner=config.log_cleaner_enable and config.log_cleaner_threads > 0)


class KafkaServer:
    def __init__(self, config: KafkaConfig, time: Time = SYSTEM) -> None:
        self.config = config
        self.time = time
        self._shutdown_done = threading.Event()
        self._shutdown_lock = threading.Lock()
        self._started = False

    def startup(self) -> None:
        config = self.config
        for log_dir in config.log_dirs:
            os.makedirs(log_dir, exist_ok=True)
        self.log_manager = LogManager(config.log_dirs, default_log_config(config), self.time,
                                      node_id=config.node_id)
        self.store = ClusterMetadataStore(config.log_dirs[0])
        cluster_id, topics = self.store.load()
        # Each log is opened (and recovered) with its topic's own configs, as Kafka's LogManager is.
        self.log_manager.startup({t.name: LogConfig.from_props(t.configs, default_log_config(config))
                                  for t in topics if t.configs})

        self.request_channel = RequestChannel(config.queued_max_requests)
        self.socket_server = SocketServer(config.listeners, config.num_network_threads,
                                          config.socket_request_max_bytes, self.request_channel)
        # Bind before anything else can fail late: a taken port stops start-up here.
        self.socket_server.startup()

        self.metadata_cache = MetadataCache(cluster_id, Broker(config.node_id, self._advertised_end_points()))
        self.replica_manager = ReplicaManager(config, self.log_manager, self.metadata_cache, self.time)
        self.admin_manager = AdminManager(config, self.metadata_cache, self.replica_manager, self.store,
                                          default_log_config(config))
        self.admin_manager.load_topics(topics)
        self.store.save(cluster_id, topics)  # a new cluster keeps its id from the first start on
        # log: the scheduler's retention and flush tasks, the LogCleaner
        self.kafka_scheduler = KafkaScheduler(self.time)
        self.kafka_scheduler.startup()
        self.log_manager.startup_tasks(
            self.kafka_scheduler, config.log_retention_check_interval_ms,
            config.log_flush_offset_checkpoint_interval_ms, config.log_flush_start_offset_checkpoint_interval_ms,
            config.replica_high_watermark_checkpoint_interval_ms, config.log_flush_scheduler_interval_ms)
        self.log_cleaner = LogCleaner(cleaner_config(config), self.log_manager.log_dirs, self.log_manager.all_logs,
                                      self.time)
        if self.log_cleaner.config.enable_cleaner:
            self.log_cleaner.startup()
        # the GroupCoordinator (loads its __consumer_offsets partitions)
        self.group_coordinator = GroupCoordinator.from_config(config, self.replica_manager, self.time)
        offsets_topic = self.metadata_cache.get_topic(GROUP_METADATA_TOPIC_NAME)
        self.group_coordinator.startup(offsets_topic.num_partitions if offsets_topic else None)
        # metrics: the /metrics endpoint, the request trace
        self.metrics_reporter = MetricsReporter(self)
        self.metrics_reporter.startup()

        self.apis = KafkaApis(self.request_channel, self.replica_manager, self.admin_manager,
                              self.metadata_cache, config, group_coordinator=self.group_coordinator)
        self.request_handler_pool = KafkaRequestHandlerPool(self.request_channel, self.apis,
                                                            config.num_io_threads)
        self.request_handler_pool.startup()
        self._started = True
        log.info("started", node_id=config.node_id, cluster_id=cluster_id, log_dirs=config.log_dirs,
                 listeners=[e.connection_string for e in self._advertised_end_points()], topics=len(topics))

    def _advertised_end_points(self) -> tuple[EndPoint, ...]:
        """advertised.listeners, with an empty host or port 0 filled in from what was bound."""
        end_points = []
        for e in self.config.advertised_listeners:
            port = e.port or self.socket_server.bound_port(e.listener_name)
            host = e.host if e.host not in ("", "0.0.0.0", "::") else socket.getfqdn()
            end_points.append(EndPoint(e.listener_name, host, port))
        return tuple(end_points)

    def bound_port(self, listener_name: str = "PLAINTEXT") -> int:
        return self.socket_server.bound_port(listener_name)

    def shutdown(self) -> None:
        with self._shutdown_lock:  # a second Ctrl-C while stopping must not stop twice
            if not self._started or self._shutdown_done.is_set():
                return
            log.info("shutting down")
            self.socket_server.shutdown()
            self.request_handler_pool.shutdown()
            self.group_coordinator.shutdown()
            self.log_cleaner.shutdown()
            self.kafka_scheduler.shutdown()
            self.metrics_reporter.shutdown()
            self.replica_manager.shutdown()
            self.log_manager.shutdown()
            self._shutdown_done.set()
            log.info("shut down completed")
