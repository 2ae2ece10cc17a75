"""RemoteLogManagerConfig: what the RemoteLogManager reads of the broker's remote.log.* keys (Kafka's
org.apache.kafka.server.log.remote.storage.RemoteLogManagerConfig, its accessors).

The keys are declared with the broker's others (kafka/server/remote_log_manager_configs.py); the server
builds this from its KafkaConfig, as it builds a LogConfig, so the log layer never reads server.properties.
"""

from __future__ import annotations

from dataclasses import dataclass

LONG_MAX = 2**63 - 1


@dataclass(frozen=True)
class RemoteLogManagerConfig:
    remote_storage_system_enable: bool = False
    task_interval_ms: int = 30_000  # remote.log.manager.task.interval.ms
    copier_thread_pool_size: int = 10
    expiration_thread_pool_size: int = 10
    follower_thread_pool_size: int = 2
    copy_max_bytes_per_second: int = LONG_MAX
    copy_quota_window_num: int = 11
    copy_quota_window_size_seconds: int = 1
    custom_metadata_max_bytes: int = 128  # remote.log.metadata.custom.metadata.max.bytes
    reader_threads: int = 10  # remote.log.reader.threads
    reader_max_pending_tasks: int = 100  # remote.log.reader.max.pending.tasks
    index_file_cache_total_size_bytes: int = 1 << 30  # remote.log.index.file.cache.total.size.bytes

    @classmethod
    def from_kafka_config(cls, config) -> RemoteLogManagerConfig:
        """From a KafkaConfig (duck-typed: the log layer does not import the server's)."""
        return cls(config.remote_log_storage_system_enable, config.remote_log_manager_task_interval_ms,
                   config.remote_log_manager_copier_thread_pool_size,
                   config.remote_log_manager_expiration_thread_pool_size,
                   config.remote_log_manager_follower_thread_pool_size,
                   config.remote_log_manager_copy_max_bytes_per_second,
                   config.remote_log_manager_copy_quota_window_num,
                   config.remote_log_manager_copy_quota_window_size_seconds,
                   config.remote_log_metadata_custom_metadata_max_bytes, config.remote_log_reader_threads,
                   config.remote_log_reader_max_pending_tasks,
                   config.remote_log_index_file_cache_total_size_bytes)
