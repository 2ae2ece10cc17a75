"""ShareCoordinatorConfig: the broker's share.coordinator.* settings, as the share coordinator reads
them (Kafka's org.apache.kafka.coordinator.share.ShareCoordinatorConfig).

One frozen object handed to the service and every shard, so no share coordinator code reads the
KafkaConfig. Keys and defaults are Kafka 4.4's; KafkaConfig declares and validates them, except the two
Kafka keeps internal (its DescribeConfigs does not list them), which keep their defaults here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ShareCoordinatorConfig:
    # __share_group_state
    state_topic_num_partitions: int = 50            # share.coordinator.state.topic.num.partitions
    state_topic_replication_factor: int = 3         # share.coordinator.state.topic.replication.factor
    state_topic_min_isr: int = 2                    # share.coordinator.state.topic.min.isr
    state_topic_segment_bytes: int = 104_857_600    # share.coordinator.state.topic.segment.bytes
    # share.coordinator.state.topic.prune.interval.ms (internal)
    state_topic_prune_interval_ms: int = 300_000
    load_buffer_size: int = 5_242_880               # share.coordinator.load.buffer.size
    # the runtime
    num_threads: int = 1                            # share.coordinator.threads
    write_timeout_ms: int = 5000                    # share.coordinator.write.timeout.ms
    append_linger_ms: int = -1                      # share.coordinator.append.linger.ms (accepted; one
    #                                                 write is one batch here, see CoordinatorRuntime)
    # snapshots
    snapshot_update_records_per_snapshot: int = 500  # share.coordinator.snapshot.update.records.per.snapshot
    # share.coordinator.cold.partition.snapshot.interval.ms (internal)
    cold_partition_snapshot_interval_ms: int = 300_000

    @classmethod
    def from_kafka_config(cls, config) -> ShareCoordinatorConfig:
        return cls(
            state_topic_num_partitions=config.share_coordinator_state_topic_num_partitions,
            state_topic_replication_factor=config.share_coordinator_state_topic_replication_factor,
            state_topic_min_isr=config.share_coordinator_state_topic_min_isr,
            state_topic_segment_bytes=config.share_coordinator_state_topic_segment_bytes,
            load_buffer_size=config.share_coordinator_load_buffer_size,
            num_threads=config.share_coordinator_threads,
            write_timeout_ms=config.share_coordinator_write_timeout_ms,
            append_linger_ms=config.share_coordinator_append_linger_ms,
            snapshot_update_records_per_snapshot=config.share_coordinator_snapshot_update_records_per_snapshot)
