"""LogConfig: the per-topic settings of a log (Kafka's storage.internals.log.LogConfig).

Every topic starts from the broker's defaults (`log.segment.bytes`, `log.index.interval.bytes`, ...)
and may override them with Kafka's topic-config keys (`segment.bytes`, `index.interval.bytes`, ...),
the names `kafka-topics.sh --config` and CreateTopics use. Seed 002 ("Kafka Physical Storage"):
segment.bytes decides when the commit log starts a new segment, index.interval.bytes how sparse the
.index file is.

The log acts on segment.bytes, segment.ms, index.interval.bytes, segment.index.bytes and
max.message.bytes; the rest are stored so that DescribeConfigs can show them and later issues
(retention, compaction, flush policy, timestamp validation) can act on them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

LONG_MAX = 2**63 - 1
INT_MAX = 2**31 - 1

DEFAULT_SEGMENT_BYTES = 1024 * 1024 * 1024
DEFAULT_SEGMENT_MS = 7 * 24 * 60 * 60 * 1000
DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000
DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 + 12  # 1 MiB of batch plus the log overhead
DEFAULT_INDEX_INTERVAL_BYTES = 4096
DEFAULT_SEGMENT_INDEX_BYTES = 10 * 1024 * 1024
DEFAULT_MESSAGE_TIMESTAMP_AFTER_MAX_MS = 60 * 60 * 1000  # an hour ahead of the broker's clock (Kafka 4.0)
TIERED_STORAGE_DISABLED = ("Tiered Storage functionality is disabled in the broker. "
                           "Topic cannot be configured with remote log storage.")
# Kafka's Topic.INTERNAL_TOPICS: clients may not write them; and the logs never tiered.
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})
NEVER_TIERED_TOPICS = INTERNAL_TOPICS | {"__remote_log_metadata", "__cluster_metadata"}

CLEANUP_POLICIES = ("delete", "compact")
TIMESTAMP_TYPES = ("CreateTime", "LogAppendTime")
COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")


@dataclass(frozen=True)
class LogConfig:
    """One log's settings. Frozen: a config change builds a new LogConfig (`UnifiedLog.update_config`)."""

    segment_bytes: int = DEFAULT_SEGMENT_BYTES
    segment_ms: int = DEFAULT_SEGMENT_MS
    segment_jitter_ms: int = 0
    segment_index_bytes: int = DEFAULT_SEGMENT_INDEX_BYTES
    index_interval_bytes: int = DEFAULT_INDEX_INTERVAL_BYTES
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    retention_ms: int = DEFAULT_RETENTION_MS
    retention_bytes: int = -1
    cleanup_policy: str = "delete"
    delete_retention_ms: int = 24 * 60 * 60 * 1000
    min_compaction_lag_ms: int = 0
    max_compaction_lag_ms: int = LONG_MAX
    min_cleanable_dirty_ratio: float = 0.5
    file_delete_delay_ms: int = 60_000
    min_insync_replicas: int = 1
    unclean_leader_election_enable: bool = False
    message_timestamp_type: str = "CreateTime"
    message_timestamp_before_max_ms: int = LONG_MAX
    message_timestamp_after_max_ms: int = DEFAULT_MESSAGE_TIMESTAMP_AFTER_MAX_MS
    compression_type: str = "producer"
    compression_gzip_level: int = -1
    compression_lz4_level: int = 9
    compression_zstd_level: int = 3
    max_decompressed_message_bytes: int = INT_MAX - 8
    leader_replication_throttled_replicas: str = ""
    follower_replication_throttled_replicas: str = ""
    errors_deadletterqueue_group_enable: bool = False
    # Tiered storage (KIP-405): the RemoteLogManager acts on these when the broker's
    # remote.log.storage.system.enable is true (the validation in validate_remote_storage below).
    remote_storage_enable: bool = False
    local_retention_ms: int = -2
    local_retention_bytes: int = -2
    remote_log_copy_disable: bool = False
    remote_log_delete_on_disable: bool = False
    remote_copy_lag_ms: int = 0
    remote_copy_lag_bytes: int = -1
    flush_messages: int = LONG_MAX
    flush_ms: int = LONG_MAX
    preallocate: bool = False

    @property
    def compact(self) -> bool:
        return "compact" in self.cleanup_policy.split(",")

    @property
    def delete(self) -> bool:
        return "delete" in self.cleanup_policy.split(",")

    def effective_local_retention_ms(self, remote_copy_enabled: bool = True) -> int:
        """Kafka's localRetentionMs: local.retention.ms, -2 meaning retention.ms (a log not copying to
        remote storage keeps retention.ms locally: UnifiedLog.localRetentionMs)."""
        if not remote_copy_enabled or self.local_retention_ms == -2:
            return self.retention_ms
        return self.local_retention_ms

    def effective_local_retention_bytes(self, remote_copy_enabled: bool = True) -> int:
        if not remote_copy_enabled or self.local_retention_bytes == -2:
            return self.retention_bytes
        return self.local_retention_bytes

    @property
    def effective_remote_copy_lag_ms(self) -> int:
        """Kafka's remoteCopyLagMs: -1 follows the effective local.retention.ms."""
        lag = self.remote_copy_lag_ms
        return self.effective_local_retention_ms() if lag == -1 else lag

    @property
    def effective_remote_copy_lag_bytes(self) -> int:
        return (self.effective_local_retention_bytes() if self.remote_copy_lag_bytes == -1
                else self.remote_copy_lag_bytes)

    @property
    def max_index_entries(self) -> int:
        """segment.index.bytes counts bytes; an offset index entry is 8 of them."""
        return self.segment_index_bytes // 8

    @classmethod
    def from_props(cls, props: Mapping[str, str], defaults: LogConfig | None = None) -> LogConfig:
        """`defaults` overridden by Kafka topic-config keys; a bad key or value raises ValueError."""
        base = defaults if defaults is not None else cls()
        changes: dict[str, Any] = {}
        for key, raw in props.items():
            spec = TOPIC_CONFIGS.get(key)
            if spec is None:
                raise ValueError(f"Unknown topic config name: {key}")
            changes[spec.field] = spec.parse(key, raw)
        return dataclasses.replace(base, **changes)

    def to_props(self) -> dict[str, str]:
        """Every topic config as Kafka's key and string value (what DescribeConfigs reports)."""
        return {key: spec.format(getattr(self, spec.field)) for key, spec in TOPIC_CONFIGS.items()}

    def overrides(self, defaults: LogConfig) -> dict[str, str]:
        """Only the keys whose value differs from `defaults` (Kafka's overriddenConfigs)."""
        mine, theirs = self.to_props(), defaults.to_props()
        return {key: value for key, value in mine.items() if theirs[key] != value}


# ---------------------------------------------------------------------------------- parsing

@dataclass(frozen=True)
class _Spec:
    """One topic config's parser and range; the errors are Kafka's ConfigDef sentences, naming the key."""

    field: str
    parse_value: Callable[[str], Any]  # raises ValueError(why)
    check: Callable[[Any], str | None] = lambda value: None  # why the value is out of range, or None
    kind: str = "STRING"  # Kafka's ConfigDef.Type: what DescribeConfigs reports as config_type

    def parse(self, key: str, raw: str | None) -> Any:
        if raw is None:
            raise ValueError(f"Null value not supported for topic configs: {key}")
        try:
            value = self.parse_value(str(raw).strip())
        except ValueError as e:
            raise ValueError(f"Invalid value {raw} for configuration {key}: {e}") from None
        reason = self.check(value)
        if reason is not None:
            raise ValueError(f"Invalid value {raw} for configuration {key}: {reason}")
        return value

    @staticmethod
    def format(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)


def _bool(raw: str) -> bool:
    lowered = raw.lower()
    if lowered not in ("true", "false"):
        raise ValueError("Expected value to be either true or false")
    return lowered == "true"


def _cleanup_policy(raw: str) -> str:
    # A LIST config: "compact,delete" is legal, and since Kafka 4.1 so is "" (keep everything for ever);
    # keep Kafka's spelling, without blanks.
    items = [item.strip() for item in raw.split(",") if item.strip()]
    if any(item not in CLEANUP_POLICIES for item in items):
        raise ValueError(f"String must be one of: {', '.join(sorted(CLEANUP_POLICIES))}")
    return ",".join(items)


def _one_of(choices: tuple[str, ...]) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        if raw not in choices:
            raise ValueError(f"String must be one of: {', '.join(choices)}")
        return raw
    return parse


def _throttled_replicas(raw: str) -> str:
    # "*" or partition:broker pairs, as kafka-reassign-partitions sets them while it moves data
    items = [item.strip() for item in raw.split(",") if item.strip()]
    if items != ["*"] and not all(re.fullmatch(r"\d+:\d+", item) for item in items):
        raise ValueError("must be the literal '*' or a list of replicas in the following format: "
                         "[partitionId]:[brokerId],[partitionId]:[brokerId],...")
    return ",".join(items)


def _number(kind: str, bits: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(f"Not a number of type {kind}") from None
        if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
            raise ValueError(f"Not a number of type {kind}")
        return value
    return parse


def _double(raw: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise ValueError("Not a number of type DOUBLE") from None


def _range(low: float, high: float | None) -> Callable[[Any], str | None]:
    def check(value) -> str | None:
        if value < low:
            return f"Value must be at least {low}"
        if high is not None and value > high:
            return f"Value must be no more than {high}"
        return None
    return check


def _int(low: int, high: int | None = None) -> tuple[Callable[[str], int], Callable[[int], str | None], str]:
    return _number("INT", 32), _range(low, high), "INT"


def _long(low: int) -> tuple[Callable[[str], int], Callable[[int], str | None], str]:
    return _number("LONG", 64), _range(low, None), "LONG"


TOPIC_CONFIGS: dict[str, _Spec] = {
    # Kafka's lower bound for segment.bytes is one legacy record's overhead (14 bytes).
    "segment.bytes": _Spec("segment_bytes", *_int(14)),
    "segment.ms": _Spec("segment_ms", *_long(1)),
    "segment.jitter.ms": _Spec("segment_jitter_ms", *_long(0)),
    "segment.index.bytes": _Spec("segment_index_bytes", *_int(4)),
    "index.interval.bytes": _Spec("index_interval_bytes", *_int(0)),
    "max.message.bytes": _Spec("max_message_bytes", *_int(0)),
    "retention.ms": _Spec("retention_ms", *_long(-1)),
    "retention.bytes": _Spec("retention_bytes", _number("LONG", 64), kind="LONG"),
    "cleanup.policy": _Spec("cleanup_policy", _cleanup_policy, kind="LIST"),
    "delete.retention.ms": _Spec("delete_retention_ms", *_long(0)),
    "min.compaction.lag.ms": _Spec("min_compaction_lag_ms", *_long(0)),
    "max.compaction.lag.ms": _Spec("max_compaction_lag_ms", *_long(1)),
    "min.cleanable.dirty.ratio": _Spec("min_cleanable_dirty_ratio", _double, _range(0, 1), "DOUBLE"),
    "file.delete.delay.ms": _Spec("file_delete_delay_ms", *_long(0)),
    "min.insync.replicas": _Spec("min_insync_replicas", *_int(1)),
    "unclean.leader.election.enable": _Spec("unclean_leader_election_enable", _bool, kind="BOOLEAN"),
    "message.timestamp.type": _Spec("message_timestamp_type", _one_of(TIMESTAMP_TYPES)),
    "message.timestamp.before.max.ms": _Spec("message_timestamp_before_max_ms", *_long(0)),
    "message.timestamp.after.max.ms": _Spec("message_timestamp_after_max_ms", *_long(0)),
    "compression.type": _Spec("compression_type", _one_of(COMPRESSION_TYPES)),
    "compression.gzip.level": _Spec("compression_gzip_level", _number("INT", 32),
                                    lambda v: None if v == -1 or 1 <= v <= 9
                                    else "Value must be -1 or in [1, 9]",
                                    "INT"),
    "compression.lz4.level": _Spec("compression_lz4_level", *_int(1, 17)),
    "compression.zstd.level": _Spec("compression_zstd_level", *_int(-131072, 22)),
    "max.decompressed.message.bytes": _Spec("max_decompressed_message_bytes", *_int(0)),
    "leader.replication.throttled.replicas": _Spec("leader_replication_throttled_replicas",
                                                   _throttled_replicas, kind="LIST"),
    "follower.replication.throttled.replicas": _Spec("follower_replication_throttled_replicas",
                                                     _throttled_replicas, kind="LIST"),
    "errors.deadletterqueue.group.enable": _Spec("errors_deadletterqueue_group_enable", _bool,
                                                 kind="BOOLEAN"),
    "remote.storage.enable": _Spec("remote_storage_enable", _bool, kind="BOOLEAN"),
    "local.retention.ms": _Spec("local_retention_ms", *_long(-2)),
    "local.retention.bytes": _Spec("local_retention_bytes", *_long(-2)),
    "remote.log.copy.disable": _Spec("remote_log_copy_disable", _bool, kind="BOOLEAN"),
    "remote.log.delete.on.disable": _Spec("remote_log_delete_on_disable", _bool, kind="BOOLEAN"),
    "remote.copy.lag.ms": _Spec("remote_copy_lag_ms", *_long(0)),
    "remote.copy.lag.bytes": _Spec("remote_copy_lag_bytes", *_long(-1)),
    "flush.messages": _Spec("flush_messages", *_long(1)),
    "flush.ms": _Spec("flush_ms", *_long(0)),
    "preallocate": _Spec("preallocate", _bool, kind="BOOLEAN"),
}

# The server.properties key that supplies each topic config's broker-wide default (Kafka's
# ServerTopicConfigSynonyms; the first synonym only: log.roll.hours, log.retention.hours and
# friends are the server config's business).
TOPIC_CONFIG_SYNONYMS: dict[str, str] = {
    "segment.bytes": "log.segment.bytes",
    "segment.ms": "log.roll.ms",
    "segment.jitter.ms": "log.roll.jitter.ms",
    "segment.index.bytes": "log.index.size.max.bytes",
    "index.interval.bytes": "log.index.interval.bytes",
    "max.message.bytes": "message.max.bytes",
    "retention.ms": "log.retention.ms",
    "retention.bytes": "log.retention.bytes",
    "cleanup.policy": "log.cleanup.policy",
    "delete.retention.ms": "log.cleaner.delete.retention.ms",
    "min.compaction.lag.ms": "log.cleaner.min.compaction.lag.ms",
    "max.compaction.lag.ms": "log.cleaner.max.compaction.lag.ms",
    "min.cleanable.dirty.ratio": "log.cleaner.min.cleanable.ratio",
    "file.delete.delay.ms": "log.segment.delete.delay.ms",
    "min.insync.replicas": "min.insync.replicas",
    "unclean.leader.election.enable": "unclean.leader.election.enable",
    "message.timestamp.type": "log.message.timestamp.type",
    "message.timestamp.before.max.ms": "log.message.timestamp.before.max.ms",
    "message.timestamp.after.max.ms": "log.message.timestamp.after.max.ms",
    "compression.type": "compression.type",
    "compression.gzip.level": "compression.gzip.level",
    "compression.lz4.level": "compression.lz4.level",
    "compression.zstd.level": "compression.zstd.level",
    "local.retention.ms": "log.local.retention.ms",
    "local.retention.bytes": "log.local.retention.bytes",
    "remote.copy.lag.ms": "log.remote.copy.lag.ms",
    "remote.copy.lag.bytes": "log.remote.copy.lag.bytes",
    "max.decompressed.message.bytes": "max.decompressed.message.bytes",
    "flush.messages": "log.flush.interval.messages",
    "flush.ms": "log.flush.interval.ms",
    "preallocate": "log.preallocate",
}


# ---------------------------------------------------------------------------------- tiered storage checks

def is_remote_log_enabled(remote_storage_system_enable: bool, config: LogConfig, topic: str) -> bool:
    """Kafka's UnifiedLog.isRemoteLogEnabled: the broker has a remote log storage system, the topic asks for
    it, and it is neither compacted nor one of the internal topics."""
    return (remote_storage_system_enable and config.remote_storage_enable and not config.compact
            and topic not in NEVER_TIERED_TOPICS)


def validate(existing: Mapping[str, str], props: Mapping[str, str], defaults: LogConfig | None,
             remote_storage_system_enable: bool) -> LogConfig:
    """Kafka's LogConfig.validate: a topic's new configs (`props`, over the broker's `defaults`), checked
    as the controller checks them before it writes them; `existing` are the topic's current ones. Raises
    ValueError with Kafka's message."""
    config = LogConfig.from_props(props, defaults)
    if config.remote_storage_enable:
        validate_remote_storage_only_if_system_enabled(config, remote_storage_system_enable, False)
        if config.cleanup_policy not in ("", "delete"):
            raise ValueError("Remote log storage only supports topics with cleanup.policy=delete or "
                             "cleanup.policy being an empty list.")
        _check_local_retention("local.retention.bytes", config.local_retention_bytes, "retention.bytes",
                               config.retention_bytes, lambda retention: retention > -1)
        _check_local_retention("local.retention.ms", config.local_retention_ms, "retention.ms",
                               config.retention_ms, lambda retention: retention != -1)
        _check_copy_lag("remote.copy.lag.bytes", config.remote_copy_lag_bytes, "local.retention.bytes",
                        config.effective_local_retention_bytes())
        _check_copy_lag("remote.copy.lag.ms", config.remote_copy_lag_ms, "local.retention.ms",
                        config.effective_local_retention_ms())
        if config.remote_log_copy_disable:
            # Nothing more is copied: local retention is the topic's retention from now on.
            for local, whole in (("local.retention.bytes", "retention.bytes"),
                                 ("local.retention.ms", "retention.ms")):
                local_value = getattr(config, local.replace(".", "_"))
                if local_value != -2 and local_value != getattr(config, whole.replace(".", "_")):
                    raise ValueError(f"When `remote.log.copy.disable` is set to true, the `{local}` and "
                                     f"`{whole}` must be set to the identical value because there will be no "
                                     "more logs copied to the remote storage.")
    elif existing.get("remote.storage.enable", "false").lower() == "true" \
            and not config.remote_log_delete_on_disable:
        raise ValueError(
            "It is invalid to disable remote storage without deleting remote data. If you want to keep the "
            "remote data and turn to read only, please set `remote.storage.enable=true,"
            "remote.log.copy.disable=true`. If you want to disable remote storage and delete all remote "
            "data, please set `remote.storage.enable=false,remote.log.delete.on.disable=true`.")
    return config


def validate_remote_storage_only_if_system_enabled(config: LogConfig, remote_storage_system_enable: bool,
                                                   from_store: bool) -> None:
    """A tiered topic needs remote.log.storage.system.enable; a broker reading such a topic's stored config
    without it (`from_store`) is told to delete the topic first."""
    if config.remote_storage_enable and not remote_storage_system_enable:
        raise ValueError("You have to delete all topics with the property remote.storage.enable=true before "
                         "disabling tiered storage cluster-wide" if from_store else TIERED_STORAGE_DISABLED)


def _check_local_retention(local: str, local_value: int, whole: str, value: int,
                           limited: Callable[[int], bool]) -> None:
    if limited(value) and local_value != -2:
        if local_value == -1:
            raise ValueError(f"Invalid value {local_value} for configuration {local}: "
                             f"Value must not be -1 as {whole} value is set as {value}.")
        if local_value > value:
            raise ValueError(f"Invalid value {local_value} for configuration {local}: "
                             f"Value must not be more than {whole} property value: {value}")


def _check_copy_lag(key: str, lag: int, local: str, effective_local: int) -> None:
    if lag > 0 and effective_local >= 0 and lag > effective_local:
        raise ValueError(f"Invalid value {lag} for configuration {key}: "
                         f"Value must not exceed {local} (effective value: {effective_local})")
