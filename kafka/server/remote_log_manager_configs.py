"""RemoteLogManagerConfigs: the broker's tiered storage keys (Kafka's
org.apache.kafka.server.log.remote.storage.RemoteLogManagerConfig, KIP-405), with Kafka 4.4's names,
types, defaults and bounds. AbstractKafkaConfig inherits them, as it does ShareGroupConfig's.

`remote.log.storage.system.enable` turns tiered storage on for the broker; a topic then asks for it with
`remote.storage.enable=true`. The RemoteStorageManager and RemoteLogMetadataManager are named by class
(`*.class.name`: Kafka's Java names are accepted and mapped to ours, `remote_log_manager_builder.py`) and
configured with the keys under their prefixes: `rsm.config.dir=/tmp/tiered` reaches LocalTieredStorage as
`dir`. The reader keys (`remote.log.reader.*`, the index cache, `remote.fetch.max.wait.ms`) are the remote
read path's.
"""

from __future__ import annotations

from collections.abc import Mapping

from kafka.server.config_def import BOOLEAN, INT, LONG, STRING, ConfigKey, at_least, non_empty

LONG_MAX = 2**63 - 1
DEFAULT_RSM_CONFIG_PREFIX = "rsm.config."
DEFAULT_RLMM_CONFIG_PREFIX = "rlmm.config."
TOPIC_BASED_RLMM_CLASS_NAME = ("org.apache.kafka.server.log.remote.metadata.storage."
                               "TopicBasedRemoteLogMetadataManager")


class RemoteLogManagerConfigs:
    """The remote.log.* keys, declared as AbstractKafkaConfig declares its own:
    `config.remote_log_storage_system_enable`."""

    remote_log_storage_system_enable = ConfigKey(
        "remote.log.storage.system.enable", BOOLEAN, "false", None,
        "Whether to enable tiered storage functionality in a broker or not.")
    remote_log_storage_manager_impl_prefix = ConfigKey(
        "remote.log.storage.manager.impl.prefix", STRING, DEFAULT_RSM_CONFIG_PREFIX, non_empty,
        "Prefix of the properties passed to the RemoteStorageManager implementation.")
    remote_log_metadata_manager_impl_prefix = ConfigKey(
        "remote.log.metadata.manager.impl.prefix", STRING, DEFAULT_RLMM_CONFIG_PREFIX, non_empty,
        "Prefix of the properties passed to the RemoteLogMetadataManager implementation.")
    remote_log_storage_manager_class_name = ConfigKey(
        "remote.log.storage.manager.class.name", STRING, None, non_empty,
        "Fully qualified class name of the RemoteStorageManager implementation.")
    remote_log_storage_manager_class_path = ConfigKey(
        "remote.log.storage.manager.class.path", STRING, None, None,
        "Class path of the RemoteStorageManager implementation (Java's; unused here).")
    remote_log_metadata_manager_class_name = ConfigKey(
        "remote.log.metadata.manager.class.name", STRING, TOPIC_BASED_RLMM_CLASS_NAME, non_empty,
        "Fully qualified class name of the RemoteLogMetadataManager implementation.")
    remote_log_metadata_manager_class_path = ConfigKey(
        "remote.log.metadata.manager.class.path", STRING, None, None,
        "Class path of the RemoteLogMetadataManager implementation (Java's; unused here).")
    remote_log_metadata_manager_listener_name = ConfigKey(
        "remote.log.metadata.manager.listener.name", STRING, None, non_empty,
        "Listener of the local broker the RemoteLogMetadataManager's clients connect to.")
    remote_log_metadata_custom_metadata_max_bytes = ConfigKey(
        "remote.log.metadata.custom.metadata.max.bytes", INT, "128", at_least(0),
        "The largest custom metadata a RemoteStorageManager may return for a copied segment.")
    remote_log_manager_task_interval_ms = ConfigKey(
        "remote.log.manager.task.interval.ms", LONG, "30000", at_least(1),
        "Interval at which the RemoteLogManager runs its copy, expiration and follower tasks.")
    remote_log_manager_thread_pool_size = ConfigKey(
        "remote.log.manager.thread.pool.size", INT, "2", at_least(1),
        "Deprecated since 4.2: remote.log.manager.follower.thread.pool.size.")
    remote_log_manager_copier_thread_pool_size = ConfigKey(
        "remote.log.manager.copier.thread.pool.size", INT, "10", at_least(1),
        "Size of the thread pool of the tasks that copy segments.")
    remote_log_manager_expiration_thread_pool_size = ConfigKey(
        "remote.log.manager.expiration.thread.pool.size", INT, "10", at_least(1),
        "Size of the thread pool of the tasks that delete expired remote segments.")
    remote_log_manager_follower_thread_pool_size = ConfigKey(
        "remote.log.manager.follower.thread.pool.size", INT, "2", at_least(1),
        "Size of the thread pool of the follower tasks that read the highest offset copied.")
    remote_log_manager_copy_max_bytes_per_second = ConfigKey(
        "remote.log.manager.copy.max.bytes.per.second", LONG, str(LONG_MAX), at_least(1),
        "The most bytes copied to remote storage per second, all partitions together.")
    remote_log_manager_copy_quota_window_num = ConfigKey(
        "remote.log.manager.copy.quota.window.num", INT, "11", at_least(1),
        "Samples kept for the copy quota.")
    remote_log_manager_copy_quota_window_size_seconds = ConfigKey(
        "remote.log.manager.copy.quota.window.size.seconds", INT, "1", at_least(1),
        "The time span of each sample of the copy quota.")
    # The remote read path's (RemoteLogReader, RemoteIndexCache, DelayedRemoteFetch).
    remote_log_reader_threads = ConfigKey(
        "remote.log.reader.threads", INT, "10", at_least(1),
        "Size of the thread pool that reads from remote storage.")
    remote_log_reader_max_pending_tasks = ConfigKey(
        "remote.log.reader.max.pending.tasks", INT, "100", at_least(1),
        "Remote reads that may wait for a reader thread; beyond it fetches are answered with an error.")
    remote_log_index_file_cache_total_size_bytes = ConfigKey(
        "remote.log.index.file.cache.total.size.bytes", LONG, "1073741824", at_least(1),
        "Space for the index files fetched from remote storage.")
    remote_fetch_max_wait_ms = ConfigKey(
        "remote.fetch.max.wait.ms", INT, "500", at_least(1),
        "The longest a fetch with remote partitions waits for them.")
    remote_list_offsets_request_timeout_ms = ConfigKey(
        "remote.list.offsets.request.timeout.ms", LONG, "30000", at_least(1),
        "How long a ListOffsets by timestamp waits for its remote lookups when the request sets no timeout.")


def plugin_configs(originals: Mapping[str, str], prefix: str) -> dict[str, str]:
    """The keys under a plugin's prefix, the prefix removed (Kafka's remoteStorageManagerProps)."""
    return {key[len(prefix):]: value for key, value in originals.items() if key.startswith(prefix)}


def is_plugin_key(name: str, originals: Mapping[str, str]) -> bool:
    """Whether server.properties' `name` is for a plugin (under rsm.config. or rlmm.config., or the
    prefixes set instead): KafkaConfig accepts it without declaring it."""
    prefixes = (originals.get("remote.log.storage.manager.impl.prefix", DEFAULT_RSM_CONFIG_PREFIX),
                originals.get("remote.log.metadata.manager.impl.prefix", DEFAULT_RLMM_CONFIG_PREFIX))
    return any(prefix and name.startswith(prefix) for prefix in prefixes)
