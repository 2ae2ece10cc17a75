"""RaftConfig: the quorum's timing (Kafka's org.apache.kafka.raft.QuorumConfig), from controller.quorum.*."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RaftConfig:
    election_timeout_ms: int = 1000
    fetch_timeout_ms: int = 2000
    election_backoff_max_ms: int = 1000
    request_timeout_ms: int = 2000
    retry_backoff_ms: int = 20
    append_linger_ms: int = 25
    fetch_max_wait_ms: int = 500  # how long the leader holds a fetch that finds nothing new (Kafka: 500)
    fetch_max_bytes: int = 8 * 1024 * 1024

    @classmethod
    def from_kafka_config(cls, config) -> RaftConfig:
        return cls(election_timeout_ms=config.controller_quorum_election_timeout_ms,
                   fetch_timeout_ms=config.controller_quorum_fetch_timeout_ms,
                   election_backoff_max_ms=config.controller_quorum_election_backoff_max_ms,
                   request_timeout_ms=config.controller_quorum_request_timeout_ms,
                   retry_backoff_ms=config.controller_quorum_retry_backoff_ms,
                   append_linger_ms=config.controller_quorum_append_linger_ms)
