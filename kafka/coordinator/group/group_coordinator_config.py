"""GroupCoordinatorConfig: the broker's group.* and offsets.* settings, as the group coordinator
reads them (Kafka's org.apache.kafka.coordinator.group.GroupCoordinatorConfig).

One frozen object handed to the service and every shard, so no group code reads the KafkaConfig.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kafka.coordinator.group.consumer_group_migration_policy import ConsumerGroupMigrationPolicy


@dataclass(frozen=True)
class GroupCoordinatorConfig:
    # the runtime: event-processor threads, and how long a write waits for its records to commit
    num_threads: int = 4                                  # group.coordinator.threads
    offset_commit_timeout_ms: int = 5000                  # offsets.commit.timeout.ms
    # classic groups (JoinGroup / SyncGroup)
    classic_group_min_session_timeout_ms: int = 6000      # group.min.session.timeout.ms
    classic_group_max_session_timeout_ms: int = 1_800_000  # group.max.session.timeout.ms
    classic_group_initial_rebalance_delay_ms: int = 3000  # group.initial.rebalance.delay.ms
    classic_group_max_size: int = 2**31 - 1               # group.max.size
    classic_group_new_member_join_timeout_ms: int = 300_000  # Kafka's constant: a new member's first join
    # consumer groups (KIP-848)
    consumer_group_session_timeout_ms: int = 45_000       # group.consumer.session.timeout.ms
    consumer_group_heartbeat_interval_ms: int = 5000      # group.consumer.heartbeat.interval.ms
    consumer_group_assignors: tuple[str, ...] = ("uniform", "range")  # group.consumer.assignors
    consumer_group_max_size: int = 2**31 - 1              # group.consumer.max.size
    consumer_group_migration_policy: ConsumerGroupMigrationPolicy = ConsumerGroupMigrationPolicy.BIDIRECTIONAL
    #                                                     # group.consumer.migration.policy
    # the bounds of a consumer group's own configs (group_config.py), and the broker's values between them
    consumer_group_min_session_timeout_ms: int = 45_000   # group.consumer.min.session.timeout.ms
    consumer_group_max_session_timeout_ms: int = 60_000   # group.consumer.max.session.timeout.ms
    consumer_group_min_heartbeat_interval_ms: int = 5000  # group.consumer.min.heartbeat.interval.ms
    consumer_group_max_heartbeat_interval_ms: int = 15_000  # group.consumer.max.heartbeat.interval.ms
    consumer_group_assignment_interval_ms: int = 1000     # group.consumer.assignment.interval.ms
    consumer_group_min_assignment_interval_ms: int = 0    # group.consumer.min.assignment.interval.ms
    consumer_group_max_assignment_interval_ms: int = 15_000  # group.consumer.max.assignment.interval.ms
    # share groups (KIP-932)
    share_group_session_timeout_ms: int = 45_000          # group.share.session.timeout.ms
    share_group_heartbeat_interval_ms: int = 5000         # group.share.heartbeat.interval.ms
    share_group_max_size: int = 200                       # group.share.max.size
    share_group_assignment_interval_ms: int = 1000        # group.share.assignment.interval.ms
    share_group_initialize_retry_interval_ms: int = 30_000  # group.share.initialize.retry.interval.ms
    #                                                       (internal in Kafka: not a KafkaConfig key here)
    share_group_min_session_timeout_ms: int = 45_000      # group.share.min.session.timeout.ms
    share_group_max_session_timeout_ms: int = 60_000      # group.share.max.session.timeout.ms
    share_group_min_heartbeat_interval_ms: int = 5000     # group.share.min.heartbeat.interval.ms
    share_group_max_heartbeat_interval_ms: int = 15_000   # group.share.max.heartbeat.interval.ms
    share_group_min_assignment_interval_ms: int = 0       # group.share.min.assignment.interval.ms
    share_group_max_assignment_interval_ms: int = 15_000  # group.share.max.assignment.interval.ms
    # Kafka's ShareGroupConfig holds these (kafka/server/share/share_group_config.py declares the keys); here
    # they ride along so that the group coordinator, and a share group's configs, read no KafkaConfig
    share_group_record_lock_duration_ms: int = 30_000     # group.share.record.lock.duration.ms
    share_group_min_record_lock_duration_ms: int = 15_000  # group.share.min.record.lock.duration.ms
    share_group_max_record_lock_duration_ms: int = 60_000  # group.share.max.record.lock.duration.ms
    share_group_delivery_count_limit: int = 5             # group.share.delivery.count.limit
    share_group_min_delivery_count_limit: int = 2         # group.share.min.delivery.count.limit
    share_group_max_delivery_count_limit: int = 10        # group.share.max.delivery.count.limit
    share_group_partition_max_record_locks: int = 2000    # group.share.partition.max.record.locks
    share_group_min_partition_max_record_locks: int = 100  # group.share.min.partition.max.record.locks
    share_group_max_partition_max_record_locks: int = 4000  # group.share.max.partition.max.record.locks
    # streams groups (KIP-1071)
    streams_group_session_timeout_ms: int = 45_000        # group.streams.session.timeout.ms
    streams_group_min_session_timeout_ms: int = 45_000    # group.streams.min.session.timeout.ms
    streams_group_max_session_timeout_ms: int = 60_000    # group.streams.max.session.timeout.ms
    streams_group_heartbeat_interval_ms: int = 5000       # group.streams.heartbeat.interval.ms
    streams_group_min_heartbeat_interval_ms: int = 5000   # group.streams.min.heartbeat.interval.ms
    streams_group_max_heartbeat_interval_ms: int = 15_000  # group.streams.max.heartbeat.interval.ms
    streams_group_max_standby_replicas: int = 2           # group.streams.max.standby.replicas
    streams_group_min_assignment_interval_ms: int = 0     # group.streams.min.assignment.interval.ms
    streams_group_max_assignment_interval_ms: int = 15_000  # group.streams.max.assignment.interval.ms
    streams_group_assignors: tuple[str, ...] = ("sticky",)  # group.streams.assignors
    streams_group_max_size: int = 2**31 - 1               # group.streams.max.size
    streams_group_num_standby_replicas: int = 0           # group.streams.num.standby.replicas
    streams_group_initial_rebalance_delay_ms: int = 3000  # group.streams.initial.rebalance.delay.ms
    streams_group_assignment_interval_ms: int = 1000      # group.streams.assignment.interval.ms
    streams_group_rack_aware_assignment_tags: tuple[str, ...] = ()  # group.streams.rack.aware.assignment.tags
    streams_group_task_offset_interval_ms: int = 60_000   # Kafka's internal
    #                                                       group.streams.task.offset.interval.ms
    streams_group_acceptable_recovery_lag: int = 10_000   # Kafka's internal
    #                                                       group.streams.acceptable.recovery.lag
    streams_group_min_task_offset_interval_ms: int = 15_000  # Kafka's internal
    #                                                       group.streams.min.task.offset.interval.ms
    streams_group_max_warmup_replicas: int = 20           # Kafka's internal group.streams.max.warmup.replicas
    # __consumer_offsets and committed offsets
    offsets_topic_num_partitions: int = 50                # offsets.topic.num.partitions
    offsets_topic_segment_bytes: int = 100 * 1024 * 1024  # offsets.topic.segment.bytes
    offsets_retention_ms: int = 7 * 24 * 3600 * 1000      # offsets.retention.minutes
    offsets_retention_check_interval_ms: int = 600_000    # offsets.retention.check.interval.ms
    offset_metadata_max_size: int = 4096                  # offset.metadata.max.bytes

    @classmethod
    def from_kafka_config(cls, config) -> GroupCoordinatorConfig:
        return cls(
            num_threads=config.group_coordinator_threads,
            offset_commit_timeout_ms=config.offsets_commit_timeout_ms,
            classic_group_min_session_timeout_ms=config.group_min_session_timeout_ms,
            classic_group_max_session_timeout_ms=config.group_max_session_timeout_ms,
            classic_group_initial_rebalance_delay_ms=config.group_initial_rebalance_delay_ms,
            classic_group_max_size=config.group_max_size,
            consumer_group_session_timeout_ms=config.group_consumer_session_timeout_ms,
            consumer_group_heartbeat_interval_ms=config.group_consumer_heartbeat_interval_ms,
            consumer_group_assignors=tuple(config.group_consumer_assignors),
            consumer_group_max_size=config.group_consumer_max_size,
            consumer_group_migration_policy=ConsumerGroupMigrationPolicy.parse(config.group_consumer_migration_policy),
            consumer_group_min_session_timeout_ms=config.group_consumer_min_session_timeout_ms,
            consumer_group_max_session_timeout_ms=config.group_consumer_max_session_timeout_ms,
            consumer_group_min_heartbeat_interval_ms=config.group_consumer_min_heartbeat_interval_ms,
            consumer_group_max_heartbeat_interval_ms=config.group_consumer_max_heartbeat_interval_ms,
            consumer_group_assignment_interval_ms=config.group_consumer_assignment_interval_ms,
            consumer_group_min_assignment_interval_ms=config.group_consumer_min_assignment_interval_ms,
            consumer_group_max_assignment_interval_ms=config.group_consumer_max_assignment_interval_ms,
            share_group_session_timeout_ms=config.group_share_session_timeout_ms,
            share_group_heartbeat_interval_ms=config.group_share_heartbeat_interval_ms,
            share_group_max_size=config.group_share_max_size,
            share_group_assignment_interval_ms=config.group_share_assignment_interval_ms,
            share_group_min_session_timeout_ms=config.group_share_min_session_timeout_ms,
            share_group_max_session_timeout_ms=config.group_share_max_session_timeout_ms,
            share_group_min_heartbeat_interval_ms=config.group_share_min_heartbeat_interval_ms,
            share_group_max_heartbeat_interval_ms=config.group_share_max_heartbeat_interval_ms,
            share_group_min_assignment_interval_ms=config.group_share_min_assignment_interval_ms,
            share_group_max_assignment_interval_ms=config.group_share_max_assignment_interval_ms,
            share_group_record_lock_duration_ms=config.group_share_record_lock_duration_ms,
            share_group_min_record_lock_duration_ms=config.group_share_min_record_lock_duration_ms,
            share_group_max_record_lock_duration_ms=config.group_share_max_record_lock_duration_ms,
            share_group_delivery_count_limit=config.group_share_delivery_count_limit,
            share_group_min_delivery_count_limit=config.group_share_min_delivery_count_limit,
            share_group_max_delivery_count_limit=config.group_share_max_delivery_count_limit,
            share_group_partition_max_record_locks=config.group_share_partition_max_record_locks,
            share_group_min_partition_max_record_locks=config.group_share_min_partition_max_record_locks,
            share_group_max_partition_max_record_locks=config.group_share_max_partition_max_record_locks,
            streams_group_session_timeout_ms=config.group_streams_session_timeout_ms,
            streams_group_min_session_timeout_ms=config.group_streams_min_session_timeout_ms,
            streams_group_max_session_timeout_ms=config.group_streams_max_session_timeout_ms,
            streams_group_heartbeat_interval_ms=config.group_streams_heartbeat_interval_ms,
            streams_group_min_heartbeat_interval_ms=config.group_streams_min_heartbeat_interval_ms,
            streams_group_max_heartbeat_interval_ms=config.group_streams_max_heartbeat_interval_ms,
            streams_group_max_standby_replicas=config.group_streams_max_standby_replicas,
            streams_group_min_assignment_interval_ms=config.group_streams_min_assignment_interval_ms,
            streams_group_max_assignment_interval_ms=config.group_streams_max_assignment_interval_ms,
            streams_group_assignors=tuple(config.group_streams_assignors),
            streams_group_max_size=config.group_streams_max_size,
            streams_group_num_standby_replicas=config.group_streams_num_standby_replicas,
            streams_group_initial_rebalance_delay_ms=config.group_streams_initial_rebalance_delay_ms,
            streams_group_assignment_interval_ms=config.group_streams_assignment_interval_ms,
            streams_group_rack_aware_assignment_tags=tuple(config.group_streams_rack_aware_assignment_tags),
            offsets_topic_num_partitions=config.offsets_topic_num_partitions,
            offsets_topic_segment_bytes=config.offsets_topic_segment_bytes,
            offsets_retention_ms=config.offsets_retention_minutes * 60_000,
            offsets_retention_check_interval_ms=config.offsets_retention_check_interval_ms,
            offset_metadata_max_size=config.offset_metadata_max_bytes)


def group_coordinator_config_problem(values: Mapping[str, Any]) -> str | None:
    """What Kafka's GroupCoordinatorConfig requires of the consumer and streams group keys (a broker value
    between its min and max, a heartbeat shorter than the session), in Kafka's words; None if nothing.
    The share group keys are share_group_config.py's."""
    for prefix in ("group.consumer", "group.streams"):
        for name in ("heartbeat.interval.ms", "session.timeout.ms", "assignment.interval.ms"):
            key, low, high = f"{prefix}.{name}", f"{prefix}.min.{name}", f"{prefix}.max.{name}"
            if values[high] < values[low]:
                return f"{high} must be greater than or equal to {low}"
            if values[key] < values[low]:
                return f"{key} must be greater than or equal to {low}"
            if values[key] > values[high]:
                return f"{key} must be less than or equal to {high}"
        if values[f"{prefix}.heartbeat.interval.ms"] >= values[f"{prefix}.session.timeout.ms"]:
            return f"{prefix}.heartbeat.interval.ms must be less than {prefix}.session.timeout.ms"
    if values["group.streams.num.standby.replicas"] > values["group.streams.max.standby.replicas"]:
        return ("group.streams.num.standby.replicas must be less than or equal to "
                "group.streams.max.standby.replicas")
    return None
