"""The RemoteLogManager of a broker with `remote.log.storage.system.enable=true`, built from its
remote.log.* keys (what Kafka's BrokerServer does in createRemoteLogManager and RemoteLogManager's
createRemoteStorageManager, createRemoteLogMetadataManager, configureRSM and configureRLMM).

The storage and metadata managers are named by class: Kafka's Java names are accepted for the ones built here
(`org.apache.kafka.server.log.remote.storage.LocalTieredStorage` is LocalTieredStorage), and any other is a
Python `module.Class`. Each is configured with the keys under its prefix (`rsm.config.`, `rlmm.config.`), and
with what Kafka adds: the broker id, and for the metadata manager the log dir, the cluster id and the
bootstrap servers of the listener remote.log.metadata.manager.listener.name.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from kafka.log.log_manager import LogManager
from kafka.log.remote.remote_log_manager import RemoteLogManager
from kafka.log.remote.remote_log_manager_config import RemoteLogManagerConfig
from kafka.log.remote.remote_log_metadata_manager import RemoteLogMetadataManager
from kafka.log.remote.remote_storage_manager import RemoteStorageManager
from kafka.network.end_point import EndPoint
from kafka.server.config_def import ConfigError
from kafka.server.remote.topic_based_remote_log_metadata_manager import TopicBasedRemoteLogMetadataManager
from kafka.server.remote.topic_based_remote_log_metadata_manager_config import COMMON_CLIENT_PREFIX
from kafka.server.remote_log_manager_configs import plugin_configs
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

# Kafka's class names of the implementations this broker has, and where they are here.
KNOWN_CLASSES = {
    "org.apache.kafka.server.log.remote.storage.LocalTieredStorage":
        "kafka.log.remote.local_tiered_storage.LocalTieredStorage",
    "org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager":
        "kafka.server.remote.topic_based_remote_log_metadata_manager.TopicBasedRemoteLogMetadataManager",
    "org.apache.kafka.server.log.remote.storage.InmemoryRemoteLogMetadataManager":
        "kafka.log.remote.inmemory_remote_log_metadata_manager.InmemoryRemoteLogMetadataManager",
}


def build_remote_log_manager(config, log_manager: LogManager, metadata_cache,
                             time: Time) -> RemoteLogManager | None:
    """The broker's RemoteLogManager, or None when remote.log.storage.system.enable is false (Kafka's
    BrokerServer.createRemoteLogManager); `metadata_cache` knows the cluster id and this broker's
    listeners."""
    if not config.remote_log_storage_system_enable:
        return None
    if not config.remote_log_storage_manager_class_name:
        raise ConfigError("remote.log.storage.manager.class.name is needed when "
                          "remote.log.storage.system.enable is true")
    rsm = create(config.remote_log_storage_manager_class_name, RemoteStorageManager, time)
    rsm.configure({**plugin_configs(config.originals, config.remote_log_storage_manager_impl_prefix),
                   "broker.id": str(config.node_id)})
    rlmm = create(config.remote_log_metadata_manager_class_name, RemoteLogMetadataManager, time)
    rlmm_props = rlmm_configs(config, metadata_cache.cluster_id, metadata_cache.local_broker.end_points)
    if isinstance(rlmm, TopicBasedRemoteLogMetadataManager):
        if COMMON_CLIENT_PREFIX + "bootstrap.servers" not in rlmm_props:  # its clients would fail later
            raise ConfigError("the TopicBasedRemoteLogMetadataManager needs "
                              "remote.log.metadata.manager.listener.name (or "
                              f"{config.remote_log_metadata_manager_impl_prefix}{COMMON_CLIENT_PREFIX}"
                              "bootstrap.servers)")
        rlmm.configure(rlmm_props)
        rlmm.on_broker_ready()  # its start-up thread retries until the broker answers
    else:
        rlmm.configure(rlmm_props)

    def fetch_log(tp: TopicPartition):
        return log_manager.get_log(tp.topic, tp.partition)

    def update_remote_log_start_offset(tp: TopicPartition, offset: int) -> None:
        unified_log = log_manager.get_log(tp.topic, tp.partition)
        if unified_log is not None:
            unified_log.update_log_start_offset_from_remote_tier(offset)

    return RemoteLogManager(RemoteLogManagerConfig.from_kafka_config(config), config.node_id, time, fetch_log,
                            update_remote_log_start_offset, rsm, rlmm,
                            log_dir=log_manager.log_dirs[0])  # the RemoteIndexCache's, as Kafka's logDir


def rlmm_configs(config, cluster_id: str, end_points: Iterable[EndPoint]) -> dict[str, str]:
    """Kafka's configureRLMM: the listener's address first, the rlmm.config.* keys over it, then the
    broker's identity."""
    props: dict[str, str] = {}
    listener = config.remote_log_metadata_manager_listener_name
    if listener is not None:
        end_point = next((e for e in end_points if e.listener_name == listener.upper()), None)
        if end_point is None:
            raise ConfigError(f"remote.log.metadata.manager.listener.name: no listener {listener}")
        props[COMMON_CLIENT_PREFIX + "bootstrap.servers"] = f"{end_point.host}:{end_point.port}"
        props[COMMON_CLIENT_PREFIX + "security.protocol"] = end_point.security_protocol.name
    props.update(plugin_configs(config.originals, config.remote_log_metadata_manager_impl_prefix))
    props.update({"broker.id": str(config.node_id), "log.dir": config.log_dirs[0], "cluster.id": cluster_id})
    return props


def create(class_name: str, interface: type, time: Time):
    """An instance of the named class (Kafka's createDelegate); the topic-based metadata manager gets the
    clock."""
    module_name, _, name = KNOWN_CLASSES.get(class_name, class_name).rpartition(".")
    try:
        cls = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError, ValueError) as e:
        raise ConfigError(f"cannot load class {class_name}: {e}") from None
    if not (isinstance(cls, type) and issubclass(cls, interface)):
        raise ConfigError(f"{class_name} is not a {interface.__name__}")
    return cls(time) if cls is TopicBasedRemoteLogMetadataManager else cls()
