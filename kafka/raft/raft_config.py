"""RaftConfig: the quorum's timing (Kafka's org.apache.kafka.raft.QuorumConfig), from controller.quorum.*,
and how QuorumConfig parses the two ways of naming the quorum: controller.quorum.voters (static) and
controller.quorum.bootstrap.servers (a dynamic quorum, KIP-853)."""

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


def _items(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


@dataclass(frozen=True)
class QuorumVoter:
    """One entry of controller.quorum.voters: id@host:port (Kafka's QuorumConfig.InetAddressSpec)."""
    node_id: int
    host: str
    port: int


def parse_voter_connections(value: str) -> dict[int, QuorumVoter]:
    """controller.quorum.voters: id@host:port,... (Kafka's QuorumConfig.parseVoterConnections)."""
    voters: dict[int, QuorumVoter] = {}
    for item in _items(value):
        node, at, address = item.partition("@")
        host, colon, port = address.rpartition(":")
        if not at or not colon or not node.strip().isdigit() or not port.isdigit():
            raise ValueError(f"{item!r} is not of the form id@host:port")
        voter = QuorumVoter(int(node), host.strip("[]"), int(port))
        if voter.node_id in voters:
            raise ValueError(f"voter {voter.node_id} is listed twice")
        voters[voter.node_id] = voter
    return voters


def parse_bootstrap_servers(value: str) -> list[tuple[str, int]]:
    """controller.quorum.bootstrap.servers: host:port,... (KIP-853, QuorumConfig.parseBootstrapServers)."""
    servers = [item.rpartition(":") for item in _items(value)]
    if any(not colon or not port.isdigit() for _, colon, port in servers):
        raise ValueError(f"{value!r} is not of the form host:port,...")
    return [(host.strip("[]"), int(port)) for host, _, port in servers]
