"""RemoteLeaderEndPoint: a follower's connection to the broker that leads its partitions (Kafka's
kafka.server.RemoteLeaderEndPoint over ReplicaFetcherBlockingSend).

The three questions a follower asks its leader, each one blocking request on one socket:

    fetch                       Fetch with replica_id = this broker: records from my log end on,
                                and the epoch of my last batch, for the leader to check
    fetch_epoch_end_offsets     OffsetForLeaderEpoch: where does my latest epoch end in your log?
    fetch_earliest_offset /     ListOffsets with replica_id: your log start / log end offset
    fetch_latest_offset         (after OFFSET_OUT_OF_RANGE)
    fetch_earliest_local_offset ListOffsets -4: your local log start offset and its epoch (after
                                OFFSET_MOVED_TO_TIERED_STORAGE: the TierStateMachine)

A follower's Fetch names itself (replica_id), so the leader reads past the high watermark and counts
the fetch offset as this follower's log end offset. It names the leader epoch it believes in
(current_leader_epoch), so a leader from an older or newer epoch refuses it instead of answering
from a different history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from kafka.clients.client_config import ADMIN, ClientConfig
from kafka.clients.client_request import ClientRequest
from kafka.clients.errors import KafkaError
from kafka.clients.fetch_session_handler import FetchSessionHandler, PartitionData
from kafka.clients.manual_metadata_updater import ManualMetadataUpdater
from kafka.clients.metadata import Node
from kafka.clients.network_client import NetworkClient
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1
EARLIEST_LOCAL_TIMESTAMP = -4
# Fetch v12 (KIP-595) added LastFetchedEpoch and DivergingEpoch: from it on, a leader checks the
# follower's log on every fetch (Kafka's isTruncationOnFetchSupported).
FIRST_FETCH_VERSION_WITH_DIVERGING_EPOCH = 12
# Kafka's fetcher asks at its metadata.version's Fetch version (18) when it knows the topic id of every
# partition, and at 12, by name, when it does not (FetchSessionHandler.canUseTopicIds). This follower
# does not carry topic ids yet, so it always asks as Kafka's does then.
FETCH_VERSION_WITHOUT_TOPIC_IDS = 12


class ReplicaFetchPosition(NamedTuple):
    """One partition of a follower's Fetch (Kafka's FetchRequest.PartitionData, less the byte limit,
    which is the follower's replica.fetch.max.bytes)."""

    fetch_offset: int
    current_leader_epoch: int
    log_start_offset: int
    last_fetched_epoch: int = -1  # the epoch of the follower's last batch; -1: not named, not checked


class LeaderUnreachableError(Exception):
    """The leader did not answer: refused connection, disconnect or timeout. The fetcher backs off."""


@dataclass(frozen=True)
class ReplicaFetchConfig:
    """The follower's replica.* settings (Kafka's names and defaults)."""

    max_wait_ms: int = 500  # replica.fetch.wait.max.ms: the leader may hold a fetch this long
    min_bytes: int = 1  # replica.fetch.min.bytes
    max_bytes: int = 1048576  # replica.fetch.max.bytes, per partition
    response_max_bytes: int = 10485760  # replica.fetch.response.max.bytes
    backoff_ms: int = 1000  # replica.fetch.backoff.ms: after an error
    socket_timeout_ms: int = 30000  # replica.socket.timeout.ms
    # security.protocol and ssl.* of the inter-broker listener (KafkaConfig.client_configs)
    client_configs: dict = field(default_factory=dict)

    @classmethod
    def from_kafka_config(cls, config) -> ReplicaFetchConfig:
        return cls(config.replica_fetch_wait_max_ms, config.replica_fetch_min_bytes,
                   config.replica_fetch_max_bytes,
                   config.replica_fetch_response_max_bytes, config.replica_fetch_backoff_ms,
                   config.replica_socket_timeout_ms, config.client_configs(config.inter_broker_listener_name))


class RemoteLeaderEndPoint:
    def __init__(self, local_broker_id: int, leader: Node, fetch_config: ReplicaFetchConfig, time: Time,
                 client_id: str) -> None:
        self.local_broker_id = local_broker_id
        self.leader = leader
        self.config = fetch_config
        self.time = time
        client_config = ClientConfig(ADMIN, {
            "bootstrap.servers": f"{leader.host}:{leader.port}", "client.id": client_id,
            "request.timeout.ms": max(fetch_config.socket_timeout_ms, fetch_config.max_wait_ms + 1000),
            "reconnect.backoff.ms": 50, "reconnect.backoff.max.ms": fetch_config.backoff_ms,
            **fetch_config.client_configs,
        })
        self.client = NetworkClient(ManualMetadataUpdater([leader]), client_config, time)
        self.fetch_session = FetchSessionHandler(leader.node_id)
        self._closing = False

    def describe(self) -> str:
        return f"broker {self.leader.node_id} at {self.leader.host}:{self.leader.port}"

    # ------------------------------------------------------------------ one blocking request
    def _send_and_receive(self, api_key: int, body: dict, max_version: int | None = None):
        """Kafka's ReplicaFetcherBlockingSend.sendRequest: send, poll until answered; a close()
        from another thread (shutdown) ends the wait early."""
        future = self.client.send(ClientRequest(self.leader.node_id, api_key, body,
                                                timeout_ms=self.config.socket_timeout_ms,
                                                max_version=max_version))
        self.client.poll_until(lambda: future.done() or self._closing, self.config.socket_timeout_ms)
        if not future.done():
            raise LeaderUnreachableError(f"no answer from {self.describe()}")
        response = future.result()
        if response.error is not None or response.body is None:
            raise LeaderUnreachableError(f"{self.describe()}: {response.error or 'disconnected'}")
        return response.body

    # ------------------------------------------------------------------ Fetch
    def is_truncation_on_fetch_supported(self) -> bool:
        """Does the leader check LastFetchedEpoch? Yes unless its ApiVersions said it speaks Fetch
        below v12 (Kafka decides by metadata.version, which every KRaft cluster has past 2.7)."""
        versions = self.client.api_versions.get(self.leader.node_id, {}).get(ApiKey.FETCH)
        return versions is None or versions[1] >= FIRST_FETCH_VERSION_WITH_DIVERGING_EPOCH

    def fetch(self, partitions: dict[TopicPartition, ReplicaFetchPosition]) -> dict[TopicPartition, object]:
        """One Fetch for these partitions. The answer has only the partitions with news: the leader
        keeps a fetch session for us (KIP-227)."""
        data = self.fetch_session.build({
            tp: PartitionData(p.fetch_offset, self.config.max_bytes, p.current_leader_epoch,
                              p.log_start_offset,
                              p.last_fetched_epoch)
            for tp, p in partitions.items()})
        by_topic: dict[str, list[dict]] = {}
        for tp, p in data.to_send.items():
            by_topic.setdefault(tp.topic, []).append(dict(
                partition=tp.partition, current_leader_epoch=p.current_leader_epoch,
                fetch_offset=p.fetch_offset,
                last_fetched_epoch=p.last_fetched_epoch, log_start_offset=p.log_start_offset,
                partition_max_bytes=p.max_bytes))
        forgotten: dict[str, list[int]] = {}
        for tp in data.to_forget:
            forgotten.setdefault(tp.topic, []).append(tp.partition)
        body = dict(replica_id=self.local_broker_id, max_wait_ms=self.config.max_wait_ms,
                    min_bytes=self.config.min_bytes, max_bytes=self.config.response_max_bytes,
                    isolation_level=0, session_id=data.session_id, session_epoch=data.epoch,
                    topics=[dict(topic=name, partitions=ps) for name, ps in by_topic.items()],
                    forgotten_topics_data=[dict(topic=name, partitions=ps) for name, ps in forgotten.items()],
                    rack_id="")
        try:
            response = self._send_and_receive(ApiKey.FETCH, body, FETCH_VERSION_WITHOUT_TOPIC_IDS)
        except KafkaError as e:
            self.fetch_session.handle_error()
            raise LeaderUnreachableError(f"{self.describe()}: {e}") from e
        except LeaderUnreachableError:
            self.fetch_session.handle_error()
            raise
        error = Errors.for_code(response.error_code)
        if not self.fetch_session.handle_response(error, response.session_id):
            if error in (Errors.FETCH_SESSION_ID_NOT_FOUND, Errors.INVALID_FETCH_SESSION_EPOCH):
                # the session was lost (evicted, the leader restarted): the next fetch is a full one
                return {}
            raise LeaderUnreachableError(f"{self.describe()} refused the fetch: {error.name}")
        return {TopicPartition(t.topic, p.partition_index): p for t in response.responses
                for p in t.partitions}

    # ------------------------------------------------------------------ OffsetForLeaderEpoch
    def fetch_epoch_end_offsets(self, partitions: dict[TopicPartition, tuple[int, int]]
                                ) -> dict[TopicPartition, tuple[Errors, int, int]]:
        """partitions: tp -> (current leader epoch, the epoch asked about). Returns tp -> (error,
        the leader's epoch at or below it, where that epoch ends in the leader's log)."""
        by_topic: dict[str, list[dict]] = {}
        for tp, (current_leader_epoch, leader_epoch) in partitions.items():
            by_topic.setdefault(tp.topic, []).append(dict(
                partition=tp.partition, current_leader_epoch=current_leader_epoch, leader_epoch=leader_epoch))
        body = dict(replica_id=self.local_broker_id,
                    topics=[dict(topic=name, partitions=ps) for name, ps in by_topic.items()])
        response = self._send_and_receive(ApiKey.OFFSET_FOR_LEADER_EPOCH, body)
        return {TopicPartition(t.topic, p.partition): (Errors.for_code(p.error_code), p.leader_epoch,
                                                       p.end_offset)
                for t in response.topics for p in t.partitions}

    # ------------------------------------------------------------------ ListOffsets
    def fetch_earliest_offset(self, tp: TopicPartition, current_leader_epoch: int) -> int:
        return self._list_offset(tp, current_leader_epoch, EARLIEST_TIMESTAMP)

    def fetch_latest_offset(self, tp: TopicPartition, current_leader_epoch: int) -> int:
        return self._list_offset(tp, current_leader_epoch, LATEST_TIMESTAMP)

    def fetch_earliest_local_offset(self, tp: TopicPartition, current_leader_epoch: int) -> tuple[int, int]:
        """The leader's local log start offset and the epoch that wrote it (ListOffsets -4, KIP-405): where
        a follower whose fetch offset moved to tiered storage starts fetching."""
        partition = self._list_offset(tp, current_leader_epoch, EARLIEST_LOCAL_TIMESTAMP, whole=True)
        return partition.offset, partition.leader_epoch

    def _list_offset(self, tp: TopicPartition, current_leader_epoch: int, timestamp: int, whole=False):
        body = dict(replica_id=self.local_broker_id, isolation_level=0, topics=[dict(
            name=tp.topic,
            partitions=[dict(partition_index=tp.partition, current_leader_epoch=current_leader_epoch,
                                            timestamp=timestamp)])])
        response = self._send_and_receive(ApiKey.LIST_OFFSETS, body)
        partition = response.topics[0].partitions[0]
        if partition.error_code != Errors.NONE:
            raise LeaderUnreachableError(
                f"{self.describe()} answered ListOffsets for {tp} with "
                f"{Errors.for_code(partition.error_code).name}")
        return partition if whole else partition.offset

    def close(self) -> None:
        self._closing = True
        self.client.wakeup()

    def release(self) -> None:
        """Close the sockets (the fetcher thread, once it has stopped using the client)."""
        self.client.close()

