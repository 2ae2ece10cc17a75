"""GroupCoordinatorConfig: the broker's group.* and offsets.* settings, as the group coordinator
reads them (Kafka's org.apache.kafka.coordinator.group.GroupCoordinatorConfig).

One frozen object handed to the service and every shard, so no group code reads the KafkaConfig.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    # share groups (KIP-932)
    share_group_session_timeout_ms: int = 45_000          # group.share.session.timeout.ms
    share_group_heartbeat_interval_ms: int = 5000         # group.share.heartbeat.interval.ms
    share_group_max_size: int = 200                       # group.share.max.size
    share_group_assignment_interval_ms: int = 1000        # group.share.assignment.interval.ms
    share_group_initialize_retry_interval_ms: int = 30_000  # group.share.initialize.retry.interval.ms
    #                                                       (internal in Kafka: not a KafkaConfig key here)
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
            share_group_session_timeout_ms=config.group_share_session_timeout_ms,
            share_group_heartbeat_interval_ms=config.group_share_heartbeat_interval_ms,
            share_group_max_size=config.group_share_max_size,
            share_group_assignment_interval_ms=config.group_share_assignment_interval_ms,
            offsets_topic_num_partitions=config.offsets_topic_num_partitions,
            offsets_topic_segment_bytes=config.offsets_topic_segment_bytes,
            offsets_retention_ms=config.offsets_retention_minutes * 60_000,
            offsets_retention_check_interval_ms=config.offsets_retention_check_interval_ms,
            offset_metadata_max_size=config.offset_metadata_max_bytes)
