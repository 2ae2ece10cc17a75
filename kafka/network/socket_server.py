"""SocketServer: the broker's network layer (Kafka's kafka.network.SocketServer).

For every listener one Acceptor thread, and num.network.threads Processor threads per listener (a
number the dynamic config changes at run time: `resize_processors`), each with its Selector, all sharing
one RequestChannel with the I/O threads, one MemoryPool for the request bytes being read
(queued.max.request.bytes) and one ConnectionQuotas. The network layer knows requests
only as frames with a parsed header; what a request means is the server layer's business. Each
listener's Selectors build their channels with the listener's ChannelBuilder (PLAINTEXT or SSL, its
ssl.* keys; SASL_PLAINTEXT or SASL_SSL, its mechanisms and the broker's CredentialCache).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import structlog

from kafka.network.acceptor import Acceptor
from kafka.network.channel_builder import ChannelBuilder
from kafka.network.channel_builders import server_channel_builder
from kafka.network.connection_quotas import INT32_MAX, ConnectionQuotas
from kafka.network.end_point import EndPoint
from kafka.network.memory_pool import UNBOUNDED, MemoryPool, SimpleMemoryPool
from kafka.network.processor import Processor
from kafka.network.request_channel import RequestChannel
from kafka.security.credential_cache import CredentialCache
from kafka.security.sasl_configs import SaslListenerConfig
from kafka.utils.repeated_error_log import RepeatedErrorLog
from kafka.utils.time import Time

if TYPE_CHECKING:
    from kafka.metrics.broker_metrics import BrokerMetrics

log = structlog.get_logger("kafka.network.SocketServer")


@dataclass(frozen=True)
class SocketServerConfig:
    """The keys of KafkaConfig the network layer reads, with Kafka's defaults."""

    num_network_threads: int = 3
    socket_request_max_bytes: int = 104857600
    queued_max_request_bytes: int = -1
    connections_max_idle_ms: int = 600000
    max_connections: int = INT32_MAX
    max_connections_per_ip: int = INT32_MAX
    max_connections_per_ip_overrides: dict[str, int] = field(default_factory=dict)
    max_connection_creation_rate: int = INT32_MAX
    listener_ssl_configs: dict[str, dict[str, str | None]] = field(default_factory=dict)  # name -> ssl.* keys
    listener_sasl_configs: dict[str, SaslListenerConfig] = field(default_factory=dict)  # SASL listeners only
    failed_authentication_delay_ms: int = 100

    @classmethod
    def from_kafka_config(cls, config, num_network_threads: int | None = None) -> SocketServerConfig:
        return cls(num_network_threads if num_network_threads is not None else config.num_network_threads,
                   config.socket_request_max_bytes, config.queued_max_request_bytes,
                   config.connections_max_idle_ms, config.max_connections, config.max_connections_per_ip,
                   config.max_connections_per_ip_overrides, config.max_connection_creation_rate,
                   {e.listener_name: config.ssl_configs(e.listener_name) for e in config.listeners},
                   {e.listener_name: config.sasl_config(e.listener_name) for e in config.listeners
                    if e.security_protocol.uses_sasl}, config.connection_failed_authentication_delay_ms)


class SocketServer:
    def __init__(self, listeners: Sequence[EndPoint], config: SocketServerConfig,
                 request_channel: RequestChannel, time: Time,
                 credential_cache: CredentialCache | None = None) -> None:
        self.listeners = list(listeners)
        self.config = config
        self.num_network_threads = config.num_network_threads
        self.socket_request_max_bytes = config.socket_request_max_bytes
        self.request_channel = request_channel
        self.time = time
        self.credential_cache = credential_cache or CredentialCache()  # SCRAM users, fed by the metadata log
        # Kafka's SocketServer: a pool only when queued.max.request.bytes is set, and not strict
        self.memory_pool: MemoryPool = UNBOUNDED
        if config.queued_max_request_bytes > 0:
            self.memory_pool = SimpleMemoryPool(
                config.queued_max_request_bytes, config.socket_request_max_bytes, strict=False,
                nanoseconds=time.nanoseconds)
        self.connection_quotas = ConnectionQuotas(
            config.max_connections, config.max_connections_per_ip, config.max_connections_per_ip_overrides,
            config.max_connection_creation_rate, time)
        self.acceptors: dict[str, Acceptor] = {}
        self.processors: list[Processor] = []
        self.channel_builders: dict[str, ChannelBuilder] = {}  # per listener: its TLS keystore reloads there
        self._next_processor_id = 0
        self._retired_idle_ns = 0  # what Processors let go had waited (NetworkProcessorAvgIdlePercent)
        self._repeated_errors: dict[str, RepeatedErrorLog] = {}

    def startup(self, enable_request_processing: bool = True) -> None:
        """Bind every listener (failing fast if a port is taken), then start the threads; without
        `enable_request_processing` the acceptors wait for enable_request_processing() (connections
        wait in the listen backlog meanwhile), as Kafka's broker does until its metadata is caught up."""
        for end_point in self.listeners:
            name = end_point.listener_name
            self.channel_builders[name] = server_channel_builder(
                end_point.security_protocol, self.config.listener_ssl_configs.get(name, {}),
                self.config.listener_sasl_configs.get(name), self.credential_cache)
            self._repeated_errors[name] = RepeatedErrorLog(log.bind(listener=name), self.time)
            processors = [self._create_processor(name) for _ in range(self.num_network_threads)]
            self.acceptors[name] = Acceptor(end_point, processors, self.connection_quotas, self.time)
            self.processors.extend(processors)
        for processor in self.processors:
            processor.start()
        if enable_request_processing:
            self.enable_request_processing()

    def _create_processor(self, listener: str) -> Processor:
        processor = Processor(self._next_processor_id, listener, self.request_channel,
                              self.socket_request_max_bytes, self.memory_pool, self.connection_quotas,
                              self.config.connections_max_idle_ms, self.time, self.channel_builders[listener],
                              self._repeated_errors[listener], self.config.failed_authentication_delay_ms)
        self._next_processor_id += 1
        self.request_channel.add_processor(processor)
        return processor

    def resize_processors(self, new_size: int) -> None:
        """num.network.threads changed at run time (Kafka's DataPlaneAcceptor.reconfigure): each listener
        gets new Processors, or loses its last ones; their connections close and the clients reconnect
        to the ones left, as in Kafka."""
        log.info("Resizing network thread pool size", old=self.num_network_threads, new=new_size)
        self.num_network_threads = new_size
        for name, acceptor in self.acceptors.items():
            current = acceptor.processors
            added = [self._create_processor(name) for _ in range(new_size - len(current))]
            removed = current[new_size:]
            acceptor.processors = current[:new_size] + added  # one assignment: the Acceptor reads either
            self.processors = [p for p in self.processors if p not in removed] + added
            for processor in added:
                processor.start()
            for processor in removed:
                self._retired_idle_ns += processor.idle_time_ns
                processor.shutdown()
            for processor in removed:
                processor.join(timeout=5)
                self.request_channel.remove_processor(processor.id)

    def idle_times_ns(self) -> list[int]:
        """Each Processor's total ns spent in select, those let go counted in the first, so that the total
        never goes back when num.network.threads shrinks."""
        times = [p.idle_time_ns for p in self.processors]
        if times:
            times[0] += self._retired_idle_ns
        return times

    def enable_request_processing(self) -> None:
        for acceptor in self.acceptors.values():
            if acceptor.is_alive() or acceptor.ident is not None:
                continue
            acceptor.start()
            log.info("listening", listener=acceptor.end_point.listener_name,
                     security_protocol=acceptor.end_point.security_protocol.name,
                     host=acceptor.end_point.host, port=acceptor.bound_port)

    def register_metrics(self, metrics: BrokerMetrics) -> None:
        """Kafka's SocketServer, Selector and Acceptor gauges: the memory pool, each network thread's
        connections, each acceptor's blocked time."""
        pool = self.memory_pool
        metrics.register_socket_server(
            pool=lambda: (pool.available_memory, pool.size - pool.available_memory if pool.size > 0 else 0),
            pool_depleted_ns=pool.depleted_time_ns,
            processors=lambda: [(p.listener, p.id, len(s.channels), s.connections_created,
                                 s.connections_closed,
                                 s.successful_authentications, s.failed_authentications)
                                for p in self.processors for s in (p.selector,)],
            acceptors_blocked_ns=lambda: {name: a.blocked_time_ns for name, a in self.acceptors.items()})

    def bound_port(self, listener_name: str) -> int:
        return self.acceptors[listener_name].bound_port

    def shutdown(self) -> None:
        for acceptor in self.acceptors.values():
            acceptor.shutdown()
            if acceptor.ident is None:  # never enabled: its listening socket is ours to close
                acceptor.server_socket.close()
        for processor in self.processors:
            processor.shutdown()
        for thread in [*self.acceptors.values(), *self.processors]:
            if thread.is_alive():
                thread.join(timeout=5)
        for processor in self.processors:
            self.request_channel.remove_processor(processor.id)
