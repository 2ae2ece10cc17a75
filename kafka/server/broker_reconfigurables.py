"""The broker's reconfigurables: what takes a dynamic config change without a restart (Kafka's
BrokerDynamicThreadPool, DynamicLogConfig, the LogCleaner, the SocketServer and its listeners'
ListenerReconfigurable channel builders, which Kafka's DynamicBrokerConfig.addReconfigurables registers).

Each names its keys, checks the new values (`validate_reconfiguration`, before anything is written) and
takes them (`reconfigure`, once the metadata log has them) by calling the component's own hook:

    BrokerDynamicThreadPool    num.io.threads       KafkaRequestHandlerPool.resize_thread_pool
                               num.replica.fetchers ReplicaFetcherManager.resize_thread_pool
    DynamicLogConfig           log.retention.ms, log.segment.bytes, message.max.bytes... (the broker keys
                               of topic configs): LogManager.reconfigure_default_log_config, and every live
                               log without its own override takes the new default (UnifiedLog.update_config);
                               cordoned.log.dirs (KIP-1066): LogManager.update_cordoned_log_dirs and
                               BrokerLifecycleManager.propagate_directory_cordoned
    DynamicLogCleanerConfig    log.cleaner.*        LogCleaner.reconfigure
    DynamicSocketServerConfig  max.connections, max.connections.per.ip(.overrides),
                               max.connection.creation.rate: ConnectionQuotas;
                               num.network.threads: SocketServer.resize_processors
    DynamicListenerConfig      listener.name.<l>.ssl.*: SslChannelBuilder.reconfigure (new connections get
                               the new keystore; one that does not load is refused, naming the file)
"""

from __future__ import annotations

import structlog

from kafka.log.log_config import TOPIC_CONFIG_SYNONYMS, LogConfig
from kafka.security.ssl_factory import SSL_DEFAULTS, SslConfigError, SslFactory
from kafka.server.dynamic_broker_config import DYNAMIC_SECURITY_CONFIGS, DynamicConfigError
from kafka.server.kafka_config import KafkaConfig
from kafka.server.server_log_configs import cleaner_config, default_log_config

log = structlog.get_logger("kafka.server.DynamicBrokerConfig")


def validate_thread_count(name: str, old_value: int, new_value: int) -> None:
    """Kafka's DynamicThreadPool.validateReconfiguration: at most double, at least half, at least 1."""
    if new_value == old_value:
        return
    error = f"Dynamic thread count update validation failed for {name}={new_value}"
    if new_value <= 0:
        raise DynamicConfigError(f"{error}, value should be at least 1")
    if new_value < old_value / 2:
        raise DynamicConfigError(f"{error}, value should be at least half the current value {old_value}")
    if new_value > old_value * 2:
        raise DynamicConfigError(f"{error}, value should not be greater than double the current value "
                                 f"{old_value}")


class BrokerDynamicThreadPool:
    reconfigurable_configs = frozenset({"num.io.threads", "num.replica.fetchers",
                                        "num.recovery.threads.per.data.dir", "background.threads"})

    def __init__(self, server) -> None:
        self.server = server

    def validate_reconfiguration(self, new_config: KafkaConfig) -> None:
        for name in sorted(self.reconfigurable_configs & set(new_config.values)):  # the keys this broker has
            validate_thread_count(name, self.server.config.values[name], new_config.values[name])

    def reconfigure(self, old_config: KafkaConfig, new_config: KafkaConfig) -> None:
        if new_config.num_io_threads != old_config.num_io_threads:
            log.info("Resizing request handler thread pool", old=old_config.num_io_threads,
                     new=new_config.num_io_threads)
            self.server.request_handler_pool.resize_thread_pool(new_config.num_io_threads)
        if new_config.num_replica_fetchers != old_config.num_replica_fetchers:
            fetchers = self.server.replica_manager.replica_fetcher_manager
            fetchers.resize_thread_pool(new_config.num_replica_fetchers)


class DynamicLogConfig:
    reconfigurable_configs = frozenset(TOPIC_CONFIG_SYNONYMS.values()) | {"log.preallocate",
                                                                          "cordoned.log.dirs"}

    def __init__(self, server) -> None:
        self.server = server

    def validate_reconfiguration(self, new_config: KafkaConfig) -> None:
        try:
            default_log_config(new_config)
        except ValueError as e:  # what a topic's LogConfig refuses (segment.bytes too small...)
            raise DynamicConfigError(str(e)) from None
        for entry in new_config.cordoned_log_dir_paths():  # Kafka's validateCordonedLogDirs (KIP-1066)
            if entry not in new_config.log_dirs:
                raise DynamicConfigError(f"Invalid entry in cordoned.log.dirs: {entry}. All cordoned log "
                                         "dirs must be entries of log.dirs or log.dir.")

    def reconfigure(self, old_config: KafkaConfig, new_config: KafkaConfig) -> None:
        """Kafka's DynamicLogConfig.updateLogsConfig: the new broker-wide defaults, and every log's
        config rebuilt from them under its topic's own overrides."""
        defaults = default_log_config(new_config)
        server = self.server
        server.log_manager.reconfigure_default_log_config(defaults)
        server.admin_manager.default_log_config = defaults  # new topics' configs are checked against them
        server.metadata_publisher.default_log_config = defaults  # a topic config change builds on them
        for unified_log in server.log_manager.all_logs():
            topic = server.metadata_cache.get_topic(unified_log.topic)
            unified_log.update_config(LogConfig.from_props(topic.configs if topic else {}, defaults))
        log.info("broker-wide log defaults updated", retention_ms=defaults.retention_ms,
                 segment_bytes=defaults.segment_bytes, max_message_bytes=defaults.max_message_bytes)
        if new_config.cordoned_log_dirs != old_config.cordoned_log_dirs:  # KIP-1066: new logs stay out,
            server.log_manager.update_cordoned_log_dirs(new_config.cordoned_log_dir_paths())  # the controller
            server.lifecycle_manager.propagate_directory_cordoned(  # hears with the next heartbeat
                server.log_manager.cordoned_directory_ids())
            log.info("cordoned log directories updated", cordoned=new_config.cordoned_log_dir_paths())


class DynamicLogCleanerConfig:
    """Kafka's LogCleaner as a BrokerReconfigurable (LogCleaner.ReconfigurableConfigs)."""

    reconfigurable_configs = frozenset({"log.cleaner.threads", "log.cleaner.dedupe.buffer.size",
                                        "log.cleaner.io.buffer.load.factor", "log.cleaner.io.buffer.size",
                                        "log.cleaner.io.max.bytes.per.second", "log.cleaner.backoff.ms"})

    def __init__(self, log_cleaner) -> None:
        self.log_cleaner = log_cleaner

    def validate_reconfiguration(self, new_config: KafkaConfig) -> None:
        threads, current = new_config.log_cleaner_threads, self.log_cleaner.config.num_threads
        if threads < 1:
            raise DynamicConfigError("Log cleaner threads should be at least 1")
        if threads < current / 2:
            raise DynamicConfigError(f"Log cleaner threads cannot be reduced to less than half the current "
                                     f"value {current}")
        if threads > current * 2:
            raise DynamicConfigError("Log cleaner threads cannot be increased to more than double the "
                                     f"current value {current}")

    def reconfigure(self, old_config: KafkaConfig, new_config: KafkaConfig) -> None:
        self.log_cleaner.reconfigure(cleaner_config(new_config))


class DynamicSocketServerConfig:
    """Kafka's SocketServer and DataPlaneAcceptor as reconfigurables: connection quotas and network
    threads."""

    reconfigurable_configs = frozenset({"max.connections.per.ip", "max.connections.per.ip.overrides",
                                        "max.connections", "max.connection.creation.rate",
                                        "num.network.threads"})

    def __init__(self, socket_server) -> None:
        self.socket_server = socket_server

    def validate_reconfiguration(self, new_config: KafkaConfig) -> None:
        validate_thread_count("num.network.threads", self.socket_server.num_network_threads,
                              new_config.num_network_threads)

    def reconfigure(self, old_config: KafkaConfig, new_config: KafkaConfig) -> None:
        quotas = self.socket_server.connection_quotas
        if (new_config.max_connections_per_ip, new_config.max_connections_per_ip_overrides) != (
                old_config.max_connections_per_ip, old_config.max_connections_per_ip_overrides):
            log.info("Updating maxConnectionsPerIp", max_connections_per_ip=new_config.max_connections_per_ip,
                     overrides=new_config.max_connections_per_ip_overrides)
            quotas.update_max_connections_per_ip(new_config.max_connections_per_ip,
                                                 new_config.max_connections_per_ip_overrides)
        if new_config.max_connections != old_config.max_connections:
            log.info("Updating broker-wide maxConnections", max_connections=new_config.max_connections)
            quotas.update_broker_max_connections(new_config.max_connections)
        if new_config.max_connection_creation_rate != old_config.max_connection_creation_rate:
            quotas.update_broker_max_connection_rate(new_config.max_connection_creation_rate)
        if new_config.num_network_threads != self.socket_server.num_network_threads:
            self.socket_server.resize_processors(new_config.num_network_threads)


class DynamicListenerConfig:
    """The TLS listeners' channel builders, Kafka's ListenerReconfigurables: a listener's ssl.* keys
    (listener.name.<l>.ssl.keystore.location...) give it a new SslFactory in place."""

    reconfigurable_configs = DYNAMIC_SECURITY_CONFIGS | {"ssl.client.auth", "ssl.cipher.suites",
                                                         "ssl.enabled.protocols", "ssl.protocol"}

    def __init__(self, socket_server, dynamic_config) -> None:
        self.socket_server = socket_server
        self.dynamic_config = dynamic_config  # its current_config: the listeners' ssl.* keys in use

    def _changed(self, old_config: KafkaConfig, new_config: KafkaConfig):
        for name in self.socket_server.channel_builders:
            builder = self._ssl_builder(name)
            if builder is not None:
                new = new_config.ssl_configs(name)
                if new != old_config.ssl_configs(name):
                    yield builder, new

    def validate_props(self, new_props: dict[str, str]) -> None:
        """Before a KafkaConfig is made of them (which loads every keystore): each TLS listener whose ssl.*
        keys change must make a context, else Kafka's SslFactory refusal, naming the file."""
        old_config = self.dynamic_config.current_config
        for name in self.socket_server.channel_builders:
            prefix = f"listener.name.{name.lower()}."
            new = {k: new_props.get(prefix + k, new_props.get(k, SSL_DEFAULTS[k])) for k in SSL_DEFAULTS}
            old = old_config.ssl_configs(name)
            builder = self._ssl_builder(name)
            if builder is not None and new != old:
                try:
                    factory = SslFactory(new, server_mode=True)
                except SslConfigError as e:
                    cause = f"org.apache.kafka.common.KafkaException: {_load_failure(new, e)}"
                    raise DynamicConfigError(
                        f"Validation of dynamic config update of SSLFactory failed: {cause}") from None
                _ensure_compatible(builder.ssl_factory.keystore_identity(), factory.keystore_identity())

    def validate_reconfiguration(self, new_config: KafkaConfig) -> None:
        pass  # validate_props did it

    def _ssl_builder(self, name: str):
        builder = self.socket_server.channel_builders[name]
        builder = getattr(builder, "transport_builder", builder)  # SASL_SSL: its TLS underneath
        return builder if hasattr(builder, "ssl_factory") else None

    def reconfigure(self, old_config: KafkaConfig, new_config: KafkaConfig) -> None:
        for builder, ssl_configs in self._changed(old_config, new_config):
            builder.reconfigure(ssl_configs)
            log.info("listener's TLS context reloaded", keystore=ssl_configs.get("ssl.keystore.location"))


def _ensure_compatible(existing, new) -> None:
    """Kafka's SslFactory.CertificateEntries.ensureCompatible: a renewed keystore names the same subject
    and the same alternative names (Kafka's ssl.allow.dn.changes and ssl.allow.san.changes, false by
    default, are not built here), so clients that pinned the broker's identity still find it."""
    if existing is None or new is None:
        return
    failed = "Validation of dynamic config update of SSLFactory failed: " \
             "org.apache.kafka.common.config.ConfigException: "
    (old_dn, old_sans), (new_dn, new_sans) = existing, new
    if old_dn != new_dn:
        raise DynamicConfigError(f"{failed}Keystore DistinguishedName does not match:  "
                                 f"existing={{alias=kafka, DN={old_dn}}}, new={{alias=kafka, DN={new_dn}}}")
    if old_sans != new_sans:
        raise DynamicConfigError(f"{failed}Keystore SubjectAltNames do not match:  "
                                 f"existing={{alias=kafka, SAN={list(old_sans)}}}, "
                                 f"new={{alias=kafka, SAN={list(new_sans)}}}")


def _load_failure(ssl_configs, error: SslConfigError) -> str:
    """Kafka's words for a keystore that does not load, naming the file; our own reason after them."""
    location = ssl_configs.get("ssl.keystore.location")
    if location:
        store_type = (ssl_configs.get("ssl.keystore.type") or SSL_DEFAULTS["ssl.keystore.type"]).upper()
        return f"Failed to load SSL keystore {location} of type {store_type}: {error}"
    return str(error)


def of_broker(server, dynamic_config) -> list:
    """Kafka's DynamicBrokerConfig.addReconfigurables(kafkaServer): the components of a broker that take
    changes, each reaching into the server for what it resizes when a change comes."""
    return [BrokerDynamicThreadPool(server), DynamicLogConfig(server),
            DynamicLogCleanerConfig(server.log_cleaner), DynamicSocketServerConfig(server.socket_server),
            DynamicListenerConfig(server.socket_server, dynamic_config)]
