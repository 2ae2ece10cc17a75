"""QuorumControllerConfig: what the controller takes from the node's KafkaConfig (Kafka sets the same
values on its QuorumController.Builder in ControllerServer): default partitions and replication,
how long a broker's session lasts, how often the idle controller writes a NoOpRecord, whether topics
may be deleted or leaders elected uncleanly, and the preferred-leader balancing knobs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QuorumControllerConfig:
    num_partitions: int = 1
    default_replication_factor: int = 1
    broker_session_timeout_ms: int = 9000
    metadata_max_idle_interval_ms: int = 500
    delete_topic_enable: bool = True
    unclean_leader_election_enable: bool = False
    auto_leader_rebalance_enable: bool = True
    leader_imbalance_check_interval_ms: int = 300_000
    leader_imbalance_per_broker_percentage: int = 10
    min_insync_replicas: int = 1  # a topic without its own, on a cluster without a cluster-wide one

    @classmethod
    def from_kafka_config(cls, config) -> QuorumControllerConfig:
        return cls(config.num_partitions, config.default_replication_factor, config.broker_session_timeout_ms,
                   config.metadata_max_idle_interval_ms, config.delete_topic_enable,
                   config.unclean_leader_election_enable, config.auto_leader_rebalance_enable,
                   config.leader_imbalance_check_interval_seconds * 1000,
                   config.leader_imbalance_per_broker_percentage, config.min_insync_replicas)
