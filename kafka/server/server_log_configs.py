"""The broker's log.* keys as the log layer takes them (Kafka's ServerLogConfigs, with
KafkaConfig.extractLogConfigMap and the CleanerConfig built from the broker's config).

`default_log_config` is the broker-wide default of every topic config, which a topic's own configs
override (docs/configuration.md, "Topic configs"); `cleaner_config` is the LogCleaner's settings.
KafkaServer hands both to the LogManager, the LogCleaner, the AdminManager and the metadata publisher.
"""

from __future__ import annotations

from kafka.log.log_cleaner import CleanerConfig
from kafka.log.log_config import LogConfig
from kafka.server.kafka_config import KafkaConfig


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
        **{topic_key: str(config.values[broker_key]).lower() if isinstance(config.values[broker_key], bool)
           else str(config.values[broker_key]) for topic_key, broker_key in _STORED_DEFAULTS.items()},
    })


# Topic configs whose broker-wide default is read as it is (the ones above need a conversion).
_STORED_DEFAULTS = {
    "compression.type": "compression.type", "compression.gzip.level": "compression.gzip.level",
    "compression.lz4.level": "compression.lz4.level", "compression.zstd.level": "compression.zstd.level",
    "message.timestamp.type": "log.message.timestamp.type",
    "message.timestamp.before.max.ms": "log.message.timestamp.before.max.ms",
    "message.timestamp.after.max.ms": "log.message.timestamp.after.max.ms", "preallocate": "log.preallocate",
    "max.compaction.lag.ms": "log.cleaner.max.compaction.lag.ms",
    "max.decompressed.message.bytes": "max.decompressed.message.bytes",
    "local.retention.ms": "log.local.retention.ms", "local.retention.bytes": "log.local.retention.bytes",
    "remote.copy.lag.ms": "log.remote.copy.lag.ms", "remote.copy.lag.bytes": "log.remote.copy.lag.bytes",
    "unclean.leader.election.enable": "unclean.leader.election.enable",
}


def cleaner_config(config: KafkaConfig) -> CleanerConfig:
    return CleanerConfig(num_threads=config.log_cleaner_threads,
                         dedupe_buffer_size=config.log_cleaner_dedupe_buffer_size,
                         backoff_ms=config.log_cleaner_backoff_ms,
                         enable_cleaner=config.log_cleaner_enable and config.log_cleaner_threads > 0)
